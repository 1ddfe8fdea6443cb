#!/usr/bin/env python3
"""Drives the emulator's Sign in with ChatGPT consent page in headless Chromium.

    siwc_consent_page_browser.py AUTHORIZE_URL approve|deny FORM_PNG RESULT_PNG
        [--app-name NAME] [--chromium PATH] [--chromedriver PATH] [--timeout SECONDS]

Opens AUTHORIZE_URL (the URL a waiting `chappie login --siwc --no-browser` printed), checks the
consent page (HTML in UTF-8, who is signing in, a labelled app name field, the requested scopes,
the plan usage checkbox, Approve and Deny buttons), replaces the app name with NAME when given,
saves FORM_PNG, clicks the button, waits until the browser has followed the issuer's redirect to
the app's loopback listener on 127.0.0.1, saves RESULT_PNG and checks that page: its text, and
that the address bar no longer holds the callback's query (code, state). Uses Debian's chromium
and chromium-driver at the given paths, so Selenium Manager never downloads anything. Every wait
is bounded by --timeout. Exits 0 on success, 1 with a line on standard error on any failure.
"""

import argparse
import sys
from urllib.parse import urlsplit

from selenium import webdriver
from selenium.common.exceptions import TimeoutException, WebDriverException
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions
from selenium.webdriver.support.ui import WebDriverWait

# What the app's callback page says for each button (LoopbackCallbackListener.swift, CallbackPage).
RESULT_TEXTS = {
    "approve": "Sign-in received. You can close this window and return to the app.",
    "deny": "Sign-in was not completed. You can close this window and return to the app.",
}
# The scope that asks for ChatGPT plan usage (SIWC.md §2.3).
PLAN_USAGE_SCOPE = "chatgpt.tokens.use.direct"
CALLBACK_PATH = "/auth/callback"


class PageCheckFailed(Exception):
    """The page did not look or behave as expected."""


def check(condition, message):
    if not condition:
        raise PageCheckFailed(message)


def start_browser(chromium, chromedriver, timeout):
    options = Options()
    options.binary_location = chromium
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=800,700"):
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service(executable_path=chromedriver), options=options)
    driver.set_page_load_timeout(timeout)
    driver.set_script_timeout(timeout)
    return driver


def page(driver):
    """The current URL without its query, which on the callback holds the code and state."""
    parts = urlsplit(driver.current_url)
    return f"{parts.scheme}://{parts.netloc}{parts.path}"


def wait_for(driver, timeout, condition, what):
    try:
        return WebDriverWait(driver, timeout).until(condition)
    except TimeoutException:
        try:
            text = " ".join(driver.find_element(By.TAG_NAME, "body").text.split())[:300]
        except WebDriverException:
            text = "(no body)"
        raise PageCheckFailed(f"timed out after {timeout:g} s waiting for {what} (page: {page(driver)}, text: {text!r})") from None


def save_screenshot(driver, path):
    check(driver.save_screenshot(path), f"could not save the screenshot {path}")


def check_consent_page(driver):
    check(driver.execute_script("return document.contentType") == "text/html", "the consent page is not served as text/html")
    check(driver.execute_script("return document.characterSet") == "UTF-8", "the consent page is not decoded as UTF-8")
    check(driver.title.strip(), "the consent page has no title")
    account = driver.find_elements(By.ID, "account")
    check(account and "@" in account[0].text, "the consent page does not say who is signing in")
    field = driver.find_element(By.ID, "app_name")
    labels = driver.find_elements(By.CSS_SELECTOR, "label[for='app_name']")
    check(labels and labels[0].text.strip(), "the app name field has no label")
    check(field.get_attribute("value").strip(), "the app name field is empty (agent_name_hint not shown)")
    scopes = [item.text.strip() for item in driver.find_elements(By.CSS_SELECTOR, "#scopes li")]
    check("openid" in scopes and PLAN_USAGE_SCOPE in scopes, f"the requested scopes are not listed: {scopes}")
    plan_usage = driver.find_elements(By.ID, "plan_usage")
    check(plan_usage and plan_usage[0].is_selected(), "the plan usage checkbox is missing or not ticked")
    for action in RESULT_TEXTS:
        check(
            driver.find_elements(By.CSS_SELECTOR, f"form button[type='submit'][name='action'][value='{action}']"),
            f"no {action} button in the form",
        )
    return field


def on_callback(driver):
    """Whether the browser is on the app's loopback listener."""
    parts = urlsplit(driver.current_url)
    return parts.scheme == "http" and parts.hostname == "127.0.0.1" and parts.path == CALLBACK_PATH


def run(arguments):
    authorize = urlsplit(arguments.url)
    driver = start_browser(arguments.chromium, arguments.chromedriver, arguments.timeout)
    try:
        timeout = arguments.timeout
        driver.get(arguments.url)
        wait_for(driver, timeout, expected_conditions.presence_of_element_located((By.ID, "app_name")), "the consent form")
        check(urlsplit(driver.current_url).netloc == authorize.netloc, f"the consent page is not on the issuer: {page(driver)}")
        field = check_consent_page(driver)
        if arguments.app_name is not None:
            field.clear()
            field.send_keys(arguments.app_name)
            check(field.get_attribute("value") == arguments.app_name, "the app name field does not hold the typed name")
        save_screenshot(driver, arguments.form_png)

        driver.find_element(By.CSS_SELECTOR, f"button[value='{arguments.action}']").click()
        wait_for(driver, timeout, on_callback, "the redirect to the app's loopback listener")
        result = wait_for(driver, timeout, expected_conditions.visibility_of_element_located((By.TAG_NAME, "p")), "the callback page")
        save_screenshot(driver, arguments.result_png)
        expected = RESULT_TEXTS[arguments.action]
        check(result.text.strip() == expected, f"the callback page says {result.text!r}, expected {expected!r}")
        # The page's own script drops the query, so the code and state do not stay in the address bar.
        wait_for(driver, timeout, lambda d: d.execute_script("return location.search") == "", "the callback page to clear its query")
        check(not urlsplit(driver.current_url).query, "the address bar still holds the callback's query")
    finally:
        driver.quit()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("url")
    parser.add_argument("action", choices=sorted(RESULT_TEXTS))
    parser.add_argument("form_png")
    parser.add_argument("result_png")
    parser.add_argument("--app-name")
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    parser.add_argument("--chromedriver", default="/usr/bin/chromedriver")
    parser.add_argument("--timeout", type=float, default=30)
    arguments = parser.parse_args()
    try:
        run(arguments)
    except PageCheckFailed as error:
        sys.exit(f"siwc_consent_page_browser: FAILED: {error}")
    except TimeoutException as error:
        sys.exit(f"siwc_consent_page_browser: FAILED: the browser timed out after {arguments.timeout:g} s: {error.msg}")
    except WebDriverException as error:
        sys.exit(f"siwc_consent_page_browser: FAILED: browser error: {error.msg}")
    print(f"siwc_consent_page_browser: {arguments.action} ok")


if __name__ == "__main__":
    main()
