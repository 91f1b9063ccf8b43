"""What the guide's handlers share at the HTTP edge."""

import time

from ott.http.request import ApiRequest
from ott.tvguide.service import Viewer, utc_now


def viewer_of(request: ApiRequest) -> Viewer:
    """The caller's address and languages, and the moment of the request."""
    return Viewer(request.source_ip, request.headers.get("accept-language", ""), utc_now(time.time()))
