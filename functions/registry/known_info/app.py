"""POST /registry/2/knownInfo.{json,xml}"""

from datetime import UTC, datetime

from ott.http.handler import api_handler
from ott.http.request import ApiRequest
from ott.registry.models import KnownInfo, KnownInfoReceipt
from ott.registry.service import submit_known_info
from ott.registry.store import registry_store
from ott.wire import FORMATS


@api_handler(payload=KnownInfo, reply=KnownInfoReceipt, formats=FORMATS, success_status=201, statuses=(429,))
def lambda_handler(request: ApiRequest[None, KnownInfo]) -> KnownInfoReceipt:
    """A client's report of its contractor and territory, kept for a moderator."""
    now = datetime.now(UTC)
    return submit_known_info(registry_store(), request.payload, request.caller, request.base_url, now)
