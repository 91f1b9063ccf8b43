"""GET /console, /console/{file+}"""

from ott.console.edge import FILES_CACHE, console_reply
from ott.console.store import console_settings
from ott.http.handler import api_handler
from ott.http.request import ApiRequest, Reply


@api_handler(reply=None, content_type="text/html", cache=FILES_CACHE, statuses=(301, 404))
def lambda_handler(request: ApiRequest[None, None]) -> Reply:
    """The operator's console: its page (/console/), scripts and styles, and config.json (its OAuth client).
    Static files under a strict Content-Security-Policy, never framed; an ETag for each, 304 when unchanged."""
    return console_reply(request, console_settings())
