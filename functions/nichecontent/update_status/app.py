"""POST /1/niche-content/updateStatus.json"""

from datetime import UTC, datetime

from ott.config import load_settings
from ott.http.handler import api_handler
from ott.http.request import ApiRequest
from ott.nichecontent.params import StatusUpdate
from ott.nichecontent.service import update_status
from ott.nichecontent.settings import NicheSettings, encoder_keys
from ott.nichecontent.store import niche_store


@api_handler(params=StatusUpdate, reply=None, success_status=204, statuses=(404, 409, 503), api_keys=encoder_keys)
def lambda_handler(request: ApiRequest[StatusUpdate, None]) -> None:
    """An encoder's progress on an item (query parameters): an empty 204, also when the same move is resent."""
    policy = load_settings(NicheSettings).policy
    update_status(niche_store(), policy, request.params, request.machine_client, datetime.now(UTC))
