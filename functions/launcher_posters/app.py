"""GET /launcher/1/posters.{json,xml}"""

from datetime import UTC, datetime

from ott.http.handler import api_handler
from ott.http.request import ApiRequest, Reply
from ott.launcher.api import CACHE, caller_of, posters_reply
from ott.launcher.models import PosterList
from ott.launcher.params import PostersParams
from ott.launcher.store import launcher_store
from ott.registry.location import registry_pointer, registry_store
from ott.wire import FORMATS


@api_handler(params=PostersParams, reply=PosterList, formats=FORMATS, cache=CACHE, statuses=(401, 403, 404))
def lambda_handler(request: ApiRequest[PostersParams, None]) -> Reply:
    """The launcher block in order, chosen for the client (its address, or its account with a valid token)."""
    return posters_reply(
        launcher_store(registry_pointer()), registry_store(), caller_of(request), request.params, datetime.now(UTC)
    )
