"""POST /tvguide/2/idbytitle.{json,xml}"""

from datetime import UTC, datetime

from ott.http.handler import api_handler
from ott.http.request import ApiRequest, Reply
from ott.registry.location import registry_store
from ott.tvguide.edge import guide_reply
from ott.tvguide.models import ChannelsList, TitlesRequest
from ott.tvguide.service import id_by_title
from ott.tvguide.store import guide_store
from ott.wire import FORMATS


@api_handler(payload=TitlesRequest, reply=ChannelsList, formats=FORMATS)
def lambda_handler(request: ApiRequest[None, TitlesRequest]) -> Reply:
    """Channel ids by channel name, the names in a TitlesRequest body (json or xml, as the path's format)."""
    answer = id_by_title(guide_store(), registry_store(), request.payload, request.caller, datetime.now(UTC))
    return guide_reply(answer)
