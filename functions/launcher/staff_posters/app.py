"""GET /staff/launcher/posters.json"""

from datetime import UTC, datetime

from ott.http.request import ApiRequest
from ott.http.staff import staff_route
from ott.launcher.models import PosterList
from ott.launcher.params import AudienceParams
from ott.launcher.service import audience_posters
from ott.launcher.store import launcher_store
from ott.registry.location import registry_pointer, registry_store
from ott.staff import Area


@staff_route(Area.LAUNCHER, reply=PosterList, params=AudienceParams, statuses=(404,))
def lambda_handler(request: ApiRequest[AudienceParams, None]) -> PosterList:
    """The block as a chosen contractor, territory (and its ancestors) and client are shown it, with statistics,
    moderation marks and time travel (`time_travel` with `statistics=true`) as the moderator asks."""
    store, now = launcher_store(registry_pointer()), datetime.now(UTC)
    return audience_posters(store, registry_store(), request.account, request.params, now)
