"""GET /tvguide/2/channels.{json,xml}"""

from datetime import UTC, datetime

from ott.http.handler import api_handler
from ott.http.request import ApiRequest, Reply
from ott.registry.location import registry_store
from ott.tvguide.edge import GUIDE_CACHE, guide_reply
from ott.tvguide.models import ChannelsList
from ott.tvguide.params import ChannelsParams
from ott.tvguide.service import channels
from ott.tvguide.store import guide_store
from ott.wire import FORMATS


@api_handler(params=ChannelsParams, reply=ChannelsList, formats=FORMATS, cache=GUIDE_CACHE)
def lambda_handler(request: ApiRequest[ChannelsParams, None]) -> Reply:
    """Channels with the fields asked for (title, alias, logoURL, ageRestriction, hasSchedule by default);
    currentTelecast, scheduledDates and hasSchedule in the programme zone the labels or the territory choose."""
    answer = channels(guide_store(), registry_store(), request.params, request.caller, datetime.now(UTC))
    return guide_reply(answer)
