"""POST /phoneconfirm/2/confirm"""

from ott.http.handler import api_handler
from ott.http.request import ApiRequest
from ott.phoneconfirm import api
from ott.phoneconfirm.models import ConfirmReply, ConfirmRequest


@api_handler(payload=ConfirmRequest, reply=ConfirmReply, scope="phoneconfirm", statuses=(401, 403, 422, 503))
def lambda_handler(request: ApiRequest[None, ConfirmRequest]) -> ConfirmReply:
    """Start confirming a number, or (with request_id) move on to the next channel."""
    return api.confirm(request)
