"""GET /tvguide/2/channel.{json,xml} (deprecated since 2.7)"""

from datetime import UTC, datetime

from ott.http.handler import api_handler
from ott.http.request import ApiRequest, Reply
from ott.registry.location import registry_store
from ott.tvguide.edge import GUIDE_CACHE, guide_reply
from ott.tvguide.models import Channel
from ott.tvguide.params import ChannelParams
from ott.tvguide.service import channel
from ott.tvguide.store import guide_store
from ott.wire import FORMATS


@api_handler(params=ChannelParams, reply=Channel, formats=FORMATS, cache=GUIDE_CACHE, statuses=(404,))
def lambda_handler(request: ApiRequest[ChannelParams, None]) -> Reply:
    """One channel with every field, in the programme zone chosen as for channels (deprecated since 2.7)."""
    answer = channel(guide_store(), registry_store(), request.params, request.caller, datetime.now(UTC))
    return guide_reply(answer)
