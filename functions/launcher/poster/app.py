"""GET /launcher/1/poster.{json,xml}"""

from datetime import UTC, datetime

from ott.http.handler import api_handler
from ott.http.request import ApiRequest, Reply
from ott.launcher.edge import CACHE, shown_reply
from ott.launcher.models import Poster
from ott.launcher.params import PosterParams
from ott.launcher.service import answer_poster
from ott.launcher.store import launcher_store
from ott.registry.location import registry_pointer, registry_store
from ott.wire import FORMATS


@api_handler(params=PosterParams, reply=Poster, formats=FORMATS, cache=CACHE, statuses=(401, 403, 404))
def lambda_handler(request: ApiRequest[PosterParams, None]) -> Reply:
    """A collection (`id`) with its attached and related posters, as the client is shown them."""
    store, now = launcher_store(registry_pointer()), datetime.now(UTC)
    return shown_reply(answer_poster(store, registry_store(), request.caller, request.params, now))
