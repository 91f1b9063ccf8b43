"""GET /launcher/1/posters.{json,xml}"""

from datetime import UTC, datetime

from ott.http.handler import api_handler
from ott.http.request import ApiRequest, Reply
from ott.launcher.edge import CACHE, shown_reply
from ott.launcher.models import PosterList
from ott.launcher.params import PostersParams
from ott.launcher.service import answer_posters
from ott.launcher.store import launcher_store
from ott.registry.location import registry_pointer, registry_store
from ott.wire import FORMATS


@api_handler(params=PostersParams, reply=PosterList, formats=FORMATS, cache=CACHE, statuses=(401, 403, 404))
def lambda_handler(request: ApiRequest[PostersParams, None]) -> Reply:
    """The launcher block in order, chosen for the client (its address, or its account with a valid token)."""
    store, now = launcher_store(registry_pointer()), datetime.now(UTC)
    return shown_reply(answer_posters(store, registry_store(), request.caller, request.params, now))
