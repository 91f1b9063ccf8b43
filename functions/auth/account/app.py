"""GET /auth/2/account"""

from ott.auth.account import account_info
from ott.auth.models import AccountInfo
from ott.auth.policy import AuthPolicy
from ott.auth.store import auth_keys, auth_store
from ott.config import load_settings
from ott.http.handler import api_handler
from ott.http.request import ApiRequest


@api_handler(reply=AccountInfo, scope="account", statuses=(401, 403))
def lambda_handler(request: ApiRequest[None, None]) -> AccountInfo:
    """The signed-in account."""
    return account_info(auth_store(), load_settings(AuthPolicy), auth_keys(), request.account.account_id)
