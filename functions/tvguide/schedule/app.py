"""GET /tvguide/2/schedule.{json,xml}"""

from datetime import UTC, datetime

from ott.http.handler import api_handler
from ott.http.request import ApiRequest, Reply
from ott.registry.location import registry_store
from ott.tvguide.edge import GUIDE_CACHE, guide_reply
from ott.tvguide.models import Schedule
from ott.tvguide.params import ScheduleParams
from ott.tvguide.service import schedule
from ott.tvguide.store import guide_store
from ott.wire import FORMATS


@api_handler(params=ScheduleParams, reply=Schedule, formats=FORMATS, cache=GUIDE_CACHE)
def lambda_handler(request: ApiRequest[ScheduleParams, None]) -> Reply:
    """Telecasts of a channel on the zone's local dates (today by default), chronological, without repeats;
    offset and limit choose the page of total_count."""
    answer = schedule(guide_store(), registry_store(), request.params, request.caller, datetime.now(UTC))
    return guide_reply(answer)
