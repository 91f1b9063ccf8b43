"""GET /tvguide/2/schedule.{json,xml}"""

from ott.http.handler import api_handler
from ott.http.request import ApiRequest, Reply
from ott.registry.location import registry_store
from ott.tvguide.api import viewer_of
from ott.tvguide.models import Schedule
from ott.tvguide.params import ScheduleParams
from ott.tvguide.service import GUIDE_CACHE, schedule
from ott.tvguide.store import guide_store
from ott.wire import FORMATS


@api_handler(params=ScheduleParams, reply=Schedule, formats=FORMATS, cache=GUIDE_CACHE)
def lambda_handler(request: ApiRequest[ScheduleParams, None]) -> Reply:
    """Telecasts of a channel on the zone's local dates (today by default), chronological, without repeats;
    offset and limit choose the page of total_count."""
    return schedule(guide_store(), registry_store(), request.params, viewer_of(request))
