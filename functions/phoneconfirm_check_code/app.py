"""POST /phoneconfirm/2/checkCode"""

from ott.http.handler import api_handler
from ott.http.request import ApiRequest
from ott.phoneconfirm import api
from ott.phoneconfirm.models import CheckCodeReply, CheckCodeRequest


@api_handler(payload=CheckCodeRequest, reply=CheckCodeReply, scope="phoneconfirm", statuses=(401, 403, 503))
def lambda_handler(request: ApiRequest[None, CheckCodeRequest]) -> CheckCodeReply:
    """Check the code the user typed."""
    return api.check_code(request)
