#!/usr/bin/env python3
"""Signs in to the emulator's Sign in with ChatGPT issuer as an OIDC relying party and verifies
its tokens with PyJWT.

Usage: siwc_oidc_relying_party.py ISSUER

The emulator must approve authorizations by itself (its default). Steps:
  1. discovery: `issuer` equals ISSUER, every endpoint is on ISSUER's origin, S256 and RS256 are
     advertised, no registration or device endpoint;
  2. the authorization request of a first registration (dynamic_agent_client, agent_name_hint,
     ext_agent_host_id, resource, fresh state, nonce and a PKCE S256 challenge made with hashlib),
     its redirect read without following it: state echoed, an issued oaiapp_ client id;
  3. the code exchange (form body, the issued id, the verifier, the same redirect URI, resource);
  4. both tokens verified with PyJWT's PyJWKClient against the published JWKS: RS256 signature by
     the header's `kid`, `iss`, `aud` (the ID token's is the issued id, the access token's the API
     resource), `exp`/`iat`/`sub` required, the ID token's `nonce`;
  5. a tampered payload, another audience and an `alg: none` copy are refused;
  6. a refresh rotates the refresh token and its new ID token verifies with the same `sub`;
     revoking the new refresh token answers an empty 200 and makes it unusable.
Prints `OK: <step>` per step; exits 1 on the first failure.
"""
import base64
import hashlib
import json
import secrets
import sys
import urllib.error
import urllib.parse
import urllib.request

import jwt
from jwt import PyJWKClient

REDIRECT_URI = "http://127.0.0.1:1455/auth/callback"
RESOURCE = "https://api.openai.com/v1"
SCOPE = "openid profile email offline_access resource.invoke chatgpt.tokens.use.direct"


def fail(message):
    print(f"FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def b64(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def post_form(url, fields):
    request = urllib.request.Request(url, data=urllib.parse.urlencode(fields).encode(), method="POST",
                                     headers={"Content-Type": "application/x-www-form-urlencoded",
                                              "Accept": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def verify(keys, token, audience, issuer):
    key = keys.get_signing_key_from_jwt(token)
    return key, jwt.decode(token, key.key, algorithms=["RS256"], audience=audience, issuer=issuer,
                           options={"require": ["iss", "aud", "exp", "iat", "sub"]})


def main():
    issuer = sys.argv[1]
    with urllib.request.urlopen(issuer + "/.well-known/openid-configuration", timeout=30) as response:
        discovery = json.load(response)
    if discovery.get("issuer") != issuer:
        fail(f"issuer {discovery.get('issuer')!r} is not {issuer!r}")
    for name in ("authorization_endpoint", "token_endpoint", "jwks_uri", "revocation_endpoint"):
        if not str(discovery.get(name, "")).startswith(issuer + "/"):
            fail(f"{name} {discovery.get(name)!r} is not on the issuer's origin")
    if "S256" not in discovery.get("code_challenge_methods_supported", []):
        fail("S256 is not advertised")
    if "RS256" not in discovery.get("id_token_signing_alg_values_supported", []):
        fail("RS256 is not advertised")
    if "registration_endpoint" in discovery or "device_authorization_endpoint" in discovery:
        fail("discovery advertises a registration or device endpoint")
    print("OK: discovery")

    state, nonce, verifier = b64(secrets.token_bytes(32)), b64(secrets.token_bytes(32)), b64(secrets.token_bytes(32))
    query = urllib.parse.urlencode({
        "response_type": "code", "client_id": "dynamic_agent_client", "redirect_uri": REDIRECT_URI, "scope": SCOPE,
        "resource": RESOURCE, "state": state, "nonce": nonce, "code_challenge_method": "S256",
        "code_challenge": b64(hashlib.sha256(verifier.encode()).digest()), "agent_name_hint": "PyJWT relying party",
        "ext_agent_host_id": "urn:uuid:" + "4d7a1c2e-5b3f-4a6d-8e9f-0a1b2c3d4e5f",
    })
    opener = urllib.request.build_opener(NoRedirect)
    try:
        opener.open(discovery["authorization_endpoint"] + "?" + query, timeout=30)
        fail("the authorization request did not redirect")
    except urllib.error.HTTPError as error:
        if error.code != 302:
            fail(f"authorization answered {error.code}")
        location = error.headers["Location"]
    if not location.startswith(REDIRECT_URI + "?"):
        fail(f"redirect to {location!r}")
    callback = urllib.parse.parse_qs(urllib.parse.urlsplit(location).query)
    if callback.get("state") != [state]:
        fail("state not echoed")
    client_id = callback.get("client_id", [""])[0]
    if not client_id.startswith("oaiapp_"):
        fail(f"client id {client_id!r}")
    print("OK: authorize")

    status, body = post_form(discovery["token_endpoint"], {
        "grant_type": "authorization_code", "client_id": client_id, "code": callback["code"][0],
        "code_verifier": verifier, "redirect_uri": REDIRECT_URI, "resource": RESOURCE,
    })
    if status != 200:
        fail(f"code exchange answered {status}: {body[:200]!r}")
    tokens = json.loads(body)
    if tokens.get("token_type", "").lower() != "bearer" or tokens.get("expires_in") != 3600:
        fail(f"token response {sorted(tokens)}")
    print("OK: exchange")

    keys = PyJWKClient(discovery["jwks_uri"])
    key, claims = verify(keys, tokens["id_token"], client_id, issuer)
    if claims.get("nonce") != nonce:
        fail("nonce mismatch")
    _, access = verify(keys, tokens["access_token"], RESOURCE, issuer)
    if access.get("client_id") != client_id or "chatgpt.tokens.use.direct" not in access.get("scope", "").split(" "):
        fail(f"access token claims {access}")
    print(f"OK: tokens verified (kid {jwt.get_unverified_header(tokens['id_token'])['kid']})")

    header, payload, signature = tokens["id_token"].split(".")
    forged = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    forged["sub"] = "someone-else"
    for label, token, audience in (
        ("tampered", ".".join([header, b64(json.dumps(forged).encode()), signature]), client_id),
        ("other audience", tokens["id_token"], "oaiapp_someone_else"),
        ("unsigned", ".".join([b64(json.dumps({"alg": "none", "typ": "JWT"}).encode()), payload, ""]), client_id),
    ):
        try:
            jwt.decode(token, key.key, algorithms=["RS256"], audience=audience, issuer=issuer)
            fail(f"a {label} ID token was accepted")
        except jwt.InvalidTokenError:
            print(f"OK: {label} refused")

    status, body = post_form(discovery["token_endpoint"], {
        "grant_type": "refresh_token", "client_id": client_id, "refresh_token": tokens["refresh_token"], "resource": RESOURCE,
    })
    if status != 200:
        fail(f"refresh answered {status}")
    rotated = json.loads(body)
    if rotated["refresh_token"] == tokens["refresh_token"]:
        fail("the refresh token was not rotated")
    _, refreshed = verify(keys, rotated["id_token"], client_id, issuer)
    if refreshed["sub"] != claims["sub"]:
        fail("the refreshed ID token names another subject")
    status, body = post_form(discovery["revocation_endpoint"], {
        "token": rotated["refresh_token"], "token_type_hint": "refresh_token", "client_id": client_id,
    })
    if status != 200 or body:
        fail(f"revocation answered {status} {body!r}")
    status, _ = post_form(discovery["token_endpoint"], {
        "grant_type": "refresh_token", "client_id": client_id, "refresh_token": rotated["refresh_token"], "resource": RESOURCE,
    })
    if status == 200:
        fail("a revoked refresh token still refreshes")
    print("OK: refresh and revocation")


if __name__ == "__main__":
    main()
