"""The edge of the OAuth endpoints that take a form (token, device_code, revoke): form bodies (RFC 6749
§4.1.3), only the protocol's error codes (§5.2), and replies that carry credentials never cached (§5.1)."""

from functools import partial

from ott.auth.errors import oauth_error
from ott.http.handler import api_handler

oauth_endpoint = partial(api_handler, payload_format="form", error_vocabulary=oauth_error)
NO_STORE = {"Cache-Control": "no-store", "Pragma": "no-cache"}
