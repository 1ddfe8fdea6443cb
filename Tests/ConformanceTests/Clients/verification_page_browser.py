#!/usr/bin/env python3
"""Drives the emulator's device verification page (GET /codex/device) in headless Chromium.

    verification_page_browser.py URL USER_CODE approve|deny FORM_PNG RESULT_PNG
        [--chromium PATH] [--chromedriver PATH] [--timeout SECONDS]

Opens URL, checks the page (HTML in UTF-8, a labelled and focused code field, Approve and Deny
buttons), types USER_CODE, saves FORM_PNG, clicks the button, waits for the result page, saves
RESULT_PNG and checks the page's text. Uses Debian's chromium and chromium-driver at the given
paths, so Selenium Manager never downloads anything. Every wait is bounded by --timeout. Exits 0
on success, 1 with a line on standard error on any failure.
"""

import argparse
import sys

from selenium import webdriver
from selenium.common.exceptions import TimeoutException, WebDriverException
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions
from selenium.webdriver.support.ui import WebDriverWait

# What the result page must say for each button (DeviceVerificationPage.swift, Wire).
RESULT_TEXTS = {"approve": "Device approved.", "deny": "Device sign-in denied."}


class PageCheckFailed(Exception):
    """The page did not look or behave as expected."""


def check(condition, message):
    if not condition:
        raise PageCheckFailed(message)


def start_browser(chromium, chromedriver, timeout):
    options = Options()
    options.binary_location = chromium
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=800,600"):
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service(executable_path=chromedriver), options=options)
    driver.set_page_load_timeout(timeout)
    driver.set_script_timeout(timeout)
    return driver


def wait_for(driver, timeout, condition, what):
    try:
        return WebDriverWait(driver, timeout).until(condition)
    except TimeoutException:
        raise PageCheckFailed(f"timed out after {timeout:g} s waiting for {what} (page: {driver.current_url})") from None


def save_screenshot(driver, path):
    check(driver.save_screenshot(path), f"could not save the screenshot {path}")


def check_form(driver):
    check(driver.execute_script("return document.contentType") == "text/html", "the page is not served as text/html")
    check(driver.execute_script("return document.characterSet") == "UTF-8", "the page is not decoded as UTF-8")
    check(driver.title.strip(), "the page has no title")
    field = driver.find_element(By.ID, "user_code")
    labels = driver.find_elements(By.CSS_SELECTOR, "label[for='user_code']")
    check(labels and labels[0].text.strip(), "the code field has no label")
    check(driver.switch_to.active_element == field, "the code field does not have the focus")
    for action in RESULT_TEXTS:
        check(
            driver.find_elements(By.CSS_SELECTOR, f"form button[type='submit'][name='action'][value='{action}']"),
            f"no {action} button in the form",
        )
    return field


def run(arguments):
    driver = start_browser(arguments.chromium, arguments.chromedriver, arguments.timeout)
    try:
        timeout = arguments.timeout
        driver.get(arguments.url)
        wait_for(driver, timeout, expected_conditions.presence_of_element_located((By.ID, "user_code")), "the code field")
        field = check_form(driver)
        field.clear()
        field.send_keys(arguments.user_code)
        check(field.get_attribute("value") == arguments.user_code, "the code field does not hold the typed code")
        save_screenshot(driver, arguments.form_png)

        driver.find_element(By.CSS_SELECTOR, f"button[value='{arguments.action}']").click()
        wait_for(driver, timeout, expected_conditions.staleness_of(field), "the result page to load")
        result = wait_for(driver, timeout, expected_conditions.visibility_of_element_located((By.ID, "result")), "the result text")
        save_screenshot(driver, arguments.result_png)
        expected = RESULT_TEXTS[arguments.action]
        check(expected in result.text, f"the result page says {result.text!r}, expected {expected!r}")
        check(not driver.find_elements(By.ID, "user_code"), "the result page still shows the code form")
    finally:
        driver.quit()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("url")
    parser.add_argument("user_code")
    parser.add_argument("action", choices=sorted(RESULT_TEXTS))
    parser.add_argument("form_png")
    parser.add_argument("result_png")
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    parser.add_argument("--chromedriver", default="/usr/bin/chromedriver")
    parser.add_argument("--timeout", type=float, default=30)
    arguments = parser.parse_args()
    try:
        run(arguments)
    except PageCheckFailed as error:
        sys.exit(f"verification_page_browser: FAILED: {error}")
    except TimeoutException as error:
        sys.exit(f"verification_page_browser: FAILED: the browser timed out after {arguments.timeout:g} s: {error.msg}")
    except WebDriverException as error:
        sys.exit(f"verification_page_browser: FAILED: browser error: {error.msg}")
    print(f"verification_page_browser: {arguments.action} ok")


if __name__ == "__main__":
    main()
