"""GET /channels"""

from ott.channels.edge import POLLED, channel_list_reply
from ott.channels.models import ChannelList
from ott.channels.service import served_configuration
from ott.channels.store import channel_client_keys, channel_store
from ott.http.handler import api_handler
from ott.http.request import ApiRequest, Reply


@api_handler(reply=ChannelList, cache=POLLED, statuses=(404, 503), api_keys=channel_client_keys)
def lambda_handler(request: ApiRequest[None, None]) -> Reply:
    """The channel configuration of the stream-authorization component (API key in `x-api-key`)."""
    return channel_list_reply(served_configuration(channel_store()))
