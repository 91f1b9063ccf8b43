"""GET /channels"""

from ott.channels.models import ChannelList
from ott.channels.service import served_configuration
from ott.channels.store import channel_client_keys, channel_store
from ott.http.caching import CachePolicy
from ott.http.handler import api_handler
from ott.http.reply import CONTENT_TYPES
from ott.http.request import ApiRequest, Reply

# The component polls: a strong ETag and 304 save the body; `private, no-cache`, as the reply holds internal
# paths that no shared cache may keep, and each poll must ask whether the configuration changed.
HEADERS = {"Content-Type": CONTENT_TYPES["json"], "Cache-Control": "private, no-cache"}


@api_handler(reply=ChannelList, cache=CachePolicy(max_age=0), statuses=(404, 503), api_keys=channel_client_keys)
def lambda_handler(request: ApiRequest[None, None]) -> Reply:
    """The channel configuration of the stream-authorization component (API key in `x-api-key`)."""
    return Reply(served_configuration(channel_store()), headers=HEADERS)
