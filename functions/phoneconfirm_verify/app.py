"""POST /phoneconfirm/2/verify"""

from ott.http.handler import api_handler
from ott.http.request import ApiRequest
from ott.phoneconfirm import api
from ott.phoneconfirm.models import VerifyReply, VerifyRequest


@api_handler(payload=VerifyRequest, reply=VerifyReply, scope="phoneconfirm", statuses=(401, 403, 503))
def lambda_handler(request: ApiRequest[None, VerifyRequest]) -> VerifyReply:
    """The state of a confirmation request."""
    return api.verify(request)
