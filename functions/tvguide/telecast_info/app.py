"""GET /tvguide/2/telecastInfo.{json,xml}"""

from datetime import UTC, datetime

from ott.http.handler import api_handler
from ott.http.request import ApiRequest, Reply
from ott.registry.location import registry_store
from ott.tvguide.edge import GUIDE_CACHE, guide_reply
from ott.tvguide.models import Schedule
from ott.tvguide.params import TelecastInfoParams
from ott.tvguide.service import telecast_info
from ott.tvguide.store import guide_store
from ott.wire import FORMATS


@api_handler(params=TelecastInfoParams, reply=Schedule, formats=FORMATS, cache=GUIDE_CACHE)
def lambda_handler(request: ApiRequest[TelecastInfoParams, None]) -> Reply:
    """The telecasts named by id, in that order; unknown ids are left out."""
    answer = telecast_info(guide_store(), registry_store(), request.params, request.caller, datetime.now(UTC))
    return guide_reply(answer)
