"""GET /tvguide/2/idbytitle.{json,xml}"""

from datetime import UTC, datetime

from ott.http.handler import api_handler
from ott.http.request import ApiRequest, Reply
from ott.registry.location import registry_store
from ott.tvguide.edge import CATALOGUE_CACHE, guide_reply
from ott.tvguide.models import ChannelsList
from ott.tvguide.params import IdByTitleParams
from ott.tvguide.service import id_by_title
from ott.tvguide.store import guide_store
from ott.wire import FORMATS


@api_handler(params=IdByTitleParams, reply=ChannelsList, formats=FORMATS, cache=CATALOGUE_CACHE)
def lambda_handler(request: ApiRequest[IdByTitleParams, None]) -> Reply:
    """Channel ids by name (comma-separated, a comma inside a name written as backslash-comma), case- and
    е/ё-insensitive; an empty entry for a name found nowhere."""
    answer = id_by_title(guide_store(), registry_store(), request.params, request.caller, datetime.now(UTC))
    return guide_reply(answer)
