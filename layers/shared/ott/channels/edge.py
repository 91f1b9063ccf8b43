"""The channel configuration's HTTP edge: `GET /channels` answers the stored reply as it is, with the headers
of a polled private reply."""

from ott.http.caching import CachePolicy
from ott.http.reply import CONTENT_TYPES
from ott.http.request import Reply

# The component polls: a strong ETag and 304 save the body (this policy makes them); `private, no-cache`, as
# the reply holds internal paths that no shared cache may keep, and each poll must ask whether it changed.
POLLED = CachePolicy(max_age=0)
HEADERS = {"Content-Type": CONTENT_TYPES["json"], "Cache-Control": "private, no-cache"}


def channel_list_reply(served: str) -> Reply:
    """`GET /channels`: the current configuration's reply (ChannelList as JSON), as it was stored at load."""
    return Reply(served, headers=HEADERS)
