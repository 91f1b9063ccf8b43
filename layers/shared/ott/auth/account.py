"""AccountInfo (spec document 1, 4.A `account`) and the account's data tree."""

from typing import Any

from ott.accounts import ConfirmedPhone
from ott.auth.keys import AuthKeys, encrypt_phone
from ott.auth.merge import MAX_TREE_BYTES, merge_patch, tree_bytes
from ott.auth.models import AccountInfo
from ott.auth.policy import AuthPolicy
from ott.auth.records import Account, DataTree
from ott.auth.store import AuthStore
from ott.errors import InvalidInput, InvalidToken
from ott.recordstore import ConcurrentChange, changed, created


def account_info(store: AuthStore, policy: AuthPolicy, keys: AuthKeys, account_id: int) -> AccountInfo:
    found = store.read([(Account, str(account_id)), (ConfirmedPhone, str(account_id))])
    account = found.get((Account, str(account_id)))
    if not isinstance(account, Account) or account.retired:
        raise InvalidToken("the token's account no longer exists")
    phone = found.get((ConfirmedPhone, str(account_id)))
    panel_ruid = None
    if policy.panel_ruid_enabled and not account.anonymous and isinstance(phone, ConfirmedPhone):
        panel_ruid = encrypt_phone(keys.panel_ruid, phone.phone)
    return AccountInfo(
        username=account.username,
        account_id=account.account_id,
        cid=account.cid,
        panel_ruid=panel_ruid,
    )


def read_tree(store: AuthStore, account_id: int) -> dict[str, Any]:
    tree = store.get(DataTree, str(account_id))
    return tree.tree if tree else {}


def patch_tree(store: AuthStore, account_id: int, patch: dict[str, Any]) -> dict[str, Any]:
    """Apply an RFC 7396 merge patch; a concurrent change is retried from a fresh read."""
    for _ in range(3):
        current = store.get(DataTree, str(account_id))
        merged = merge_patch(current.tree if current else {}, patch)
        if tree_bytes(merged) > MAX_TREE_BYTES:
            raise InvalidInput(f"the data tree may hold at most {MAX_TREE_BYTES} bytes")
        try:
            if current is None:
                store.commit([created(DataTree(account_id=account_id, tree=merged))])
            else:
                current.tree = merged
                store.commit([changed(current)])
        except ConcurrentChange:
            continue
        return merged
    raise InvalidInput("the data tree is changing too fast; try again")
