"""PATCH /auth/2/account/data"""

from ott.auth.account import patch_tree
from ott.auth.models import AccountData
from ott.auth.store import auth_store
from ott.http.handler import api_handler
from ott.http.request import ApiRequest


@api_handler(payload=AccountData, reply=AccountData, scope="user_data", statuses=(401, 403))
def lambda_handler(request: ApiRequest[None, AccountData]) -> AccountData:
    """Change the account's data tree with an RFC 7396 JSON Merge Patch; the reply is the new tree."""
    return AccountData(**patch_tree(auth_store(), request.account.account_id, request.payload.tree))
