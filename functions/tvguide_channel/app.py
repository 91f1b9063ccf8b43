"""GET /tvguide/2/channel.{json,xml} (deprecated since 2.7)"""

from ott.http.handler import api_handler
from ott.http.request import ApiRequest, Reply
from ott.registry.location import registry_store
from ott.tvguide.api import viewer_of
from ott.tvguide.models import Channel
from ott.tvguide.params import ChannelParams
from ott.tvguide.service import GUIDE_CACHE, channel
from ott.tvguide.store import guide_store
from ott.wire import FORMATS


@api_handler(params=ChannelParams, reply=Channel, formats=FORMATS, cache=GUIDE_CACHE, statuses=(404,))
def lambda_handler(request: ApiRequest[ChannelParams, None]) -> Reply:
    """One channel with every field, in the programme zone chosen as for channels (deprecated since 2.7)."""
    return channel(guide_store(), registry_store(), request.params, viewer_of(request))
