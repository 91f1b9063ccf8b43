"""GET /auth/2/account/data"""

from ott.auth.account import read_tree
from ott.auth.models import AccountData
from ott.auth.store import auth_store
from ott.http.handler import api_handler
from ott.http.request import ApiRequest


@api_handler(reply=AccountData, scope="user_data", statuses=(401, 403))
def lambda_handler(request: ApiRequest[None, None]) -> AccountData:
    """The account's data tree."""
    return AccountData(**read_tree(auth_store(), request.account.account_id))
