"""Sign a demo user in through the local stack's login page, as a browser would, and print the access token:
what a staff console does for the launcher's moderators. For the local stack only (`make run`; PORT picks it).

    python -m local.sign_in [USERNAME PASSWORD] [--client ID --secret SECRET]
        (default: the demo moderator through the demo staff console)
"""

import argparse
import base64
import hashlib
import os
import re
import secrets
import sys
from html import unescape
from urllib.parse import parse_qs, urlsplit

import requests

REDIRECT = "http://127.0.0.1:8765/callback"  # registered for the demo clients; nothing listens there
HIDDEN = re.compile(r'<input type="hidden" name="([^"]+)" value="([^"]*)">')


def access_token(
    base_url: str, client_id: str, secret: str | None, username: str, password: str, redirect: str = REDIRECT
) -> str:
    """The authorization-code flow over HTTP: the login page, its form, the redirect's code, the token. A public
    client (`secret` None: the operator's console) proves the code is its own with PKCE (S256) instead."""
    session = requests.Session()
    verifier = secrets.token_urlsafe(48)
    query = {"response_type": "code", "client_id": client_id, "redirect_uri": redirect}
    if secret is None:
        challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
        query |= {"code_challenge": challenge, "code_challenge_method": "S256"}
    page = session.get(f"{base_url}/auth/2/authorize", params=query, timeout=30)
    page.raise_for_status()
    form = {unescape(name): unescape(value) for name, value in HIDDEN.findall(page.text)}
    form.update({"login": username, "password": password, "action": "login"})
    signed_in = session.post(f"{base_url}/auth/2/authorize", data=form, allow_redirects=False, timeout=30)
    location = signed_in.headers.get("Location", "")
    code = parse_qs(urlsplit(location).query).get("code")
    if signed_in.status_code != 302 or not code:
        raise RuntimeError(f"sign-in refused ({signed_in.status_code}): check the username and password")
    grant = {"grant_type": "authorization_code", "code": code[0], "redirect_uri": redirect}
    if secret is None:
        grant |= {"client_id": client_id, "code_verifier": verifier}
    basic = (client_id, secret) if secret else None
    reply = session.post(f"{base_url}/auth/2/token", data=grant, auth=basic, timeout=30)
    reply.raise_for_status()
    return str(reply.json()["access_token"])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("username", nargs="?", default="moderator@example.com")
    parser.add_argument("password", nargs="?", default="moderator-password")
    parser.add_argument("--client", default="demo-staff")
    parser.add_argument("--secret", default="demo-staff-secret")
    args = parser.parse_args(argv)
    base_url = f"http://127.0.0.1:{os.environ.get('PORT', '3000')}"
    try:
        print(access_token(base_url, args.client, args.secret, args.username, args.password))
    except (requests.RequestException, RuntimeError) as error:
        print(error, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
