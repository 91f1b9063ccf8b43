"""GET /tvguide/2/tvshows.{json,xml}"""

from datetime import UTC, datetime

from ott.http.handler import api_handler
from ott.http.request import ApiRequest, Reply
from ott.registry.location import registry_store
from ott.tvguide.edge import CATALOGUE_CACHE, guide_reply
from ott.tvguide.models import TVShowList
from ott.tvguide.params import TvShowsParams
from ott.tvguide.service import tvshows
from ott.tvguide.store import guide_store
from ott.wire import FORMATS


@api_handler(params=TvShowsParams, reply=TVShowList, formats=FORMATS, cache=CATALOGUE_CACHE)
def lambda_handler(request: ApiRequest[TvShowsParams, None]) -> Reply:
    """The shows named by id, with the channels they air on; unknown ids are left out."""
    answer = tvshows(guide_store(), registry_store(), request.params, request.caller, datetime.now(UTC))
    return guide_reply(answer)
