"""GET /tvguide/2/tvshows.{json,xml}"""

from ott.http.handler import api_handler
from ott.http.request import ApiRequest, Reply
from ott.registry.location import registry_store
from ott.tvguide.api import viewer_of
from ott.tvguide.models import TVShowList
from ott.tvguide.params import TvShowsParams
from ott.tvguide.service import CATALOGUE_CACHE, tvshows
from ott.tvguide.store import guide_store
from ott.wire import FORMATS


@api_handler(params=TvShowsParams, reply=TVShowList, formats=FORMATS, cache=CATALOGUE_CACHE)
def lambda_handler(request: ApiRequest[TvShowsParams, None]) -> Reply:
    """The shows named by id, with the channels they air on; unknown ids are left out."""
    return tvshows(guide_store(), registry_store(), request.params, viewer_of(request))
