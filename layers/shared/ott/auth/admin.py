"""What operators do to the auth service: register clients, create personal accounts, import v1 tokens. An
operator's command passes its `StaffChange`: each change is recorded in the auth trail in its own transaction
(the demo data and the tests make theirs without one)."""

import re
import secrets
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ott.accounts import ConfirmedPhone
from ott.audit import AUTH_TRAIL, StaffChange
from ott.auth.crypto import SCRYPT_N, hash_password, token_hash
from ott.auth.playlist_links import CHANNELS_SCOPE
from ott.auth.policy import DEFAULT_SCOPES, GRANTS, PUBLIC_CLIENT_GRANTS, SCOPES, STAFF_SCOPES
from ott.auth.records import AccessToken, Account, Client, Credentials, DataTree, PlaylistLink
from ott.auth.sessions import new_account_id
from ott.auth.store import AuthStore
from ott.errors import InvalidInput
from ott.recordstore import Change, changed, created
from ott.text import unsafe_text

CLIENT_ID = re.compile(r"^[a-z0-9_]+(-[a-z0-9_]+)+$")  # <product>-<platform>, as the registry names clients


def register_client(
    store: AuthStore,
    client_id: str,
    name: str,
    grant_types: Iterable[str],
    redirect_uris: Iterable[str] = (),
    scopes: Iterable[str] = DEFAULT_SCOPES,
    access_ttl: int = 3600,
    secret: str | None = None,
    requires_pkce: bool = False,
    resource_server: bool = False,
    public: bool = False,
    change: StaffChange | None = None,
) -> str | None:
    """Store a new client with its secret's hash; return the secret (generated unless given). A public client
    (a browser application, as the staff console) has no secret and must use PKCE: None is returned."""
    grants, uris, granted = list(grant_types), list(redirect_uris), list(scopes)
    if problems := unsafe_text({"client_id": client_id, "name": name, "redirect_uris": uris}):
        raise InvalidInput("; ".join(problems))
    if not CLIENT_ID.fullmatch(client_id):
        raise InvalidInput("client_id must look like <product>-<platform>")
    if unknown := set(grants) - set(GRANTS):
        raise InvalidInput(f"unknown grant types: {sorted(unknown)}")
    if unknown := set(granted) - set(SCOPES):
        raise InvalidInput(f"unknown scopes: {sorted(unknown)}")
    if "authorization_code" in grants and not uris:
        raise InvalidInput("authorization_code needs at least one redirect URI")
    if not 60 <= access_ttl <= 86_400:
        raise InvalidInput("access_ttl must be between 60 and 86400 seconds")
    if public and (secret or set(grants) - set(PUBLIC_CLIENT_GRANTS)):
        raise InvalidInput(f"a public client has no secret and uses only {', '.join(PUBLIC_CLIENT_GRANTS)}")
    secret = None if public else secret or secrets.token_urlsafe(32)
    client = Client(
        client_id=client_id,
        secret_hash=token_hash(secret) if secret else "",
        name=name,
        grant_types=grants,
        redirect_uris=uris,
        scopes=granted,
        access_ttl=access_ttl,
        requires_pkce=requires_pkce or public,
        resource_server=resource_server,
        public=public,
    )
    after = {"name": name, "grant_types": grants, "scopes": granted, "redirect_uris": uris, "public": client.public}
    after["resource_server"] = resource_server
    store.commit([created(client), *audited(change, "register_client", f"client {client_id}", after=after)])
    return secret


def create_user(
    store: AuthStore,
    username: str,
    password: str,
    cid: int | None = None,
    confirmed_phone: str | None = None,
    contractor_id: int | None = None,
    territory_id: int | None = None,
    staff_scopes: Iterable[str] = (),
    password_hash_cost: int = SCRYPT_N,
    change: StaffChange | None = None,
) -> int:
    """A personal account with its login, and an empty data tree; return the account id. `contractor_id`
    and `territory_id` (the registry's) say whose subscriber the account is and where it lives; `staff_scopes`
    are the staff scopes (the launcher's moderators') its sign-ins may carry through a client that has them;
    `password_hash_cost`: scrypt's N (the auth policy's)."""
    if problems := unsafe_text({"username": username}):
        raise InvalidInput("; ".join(problems))
    if not re.fullmatch(r"[^@\s]+@[^@\s]+\.[^@\s]+", username) or len(username) > 254:
        raise InvalidInput("username must be an e-mail address")
    if len(password) < 8:
        raise InvalidInput("password must be at least 8 characters")
    if unknown := set(staff_scopes) - STAFF_SCOPES:
        raise InvalidInput(f"not staff scopes: {sorted(unknown)}")
    account_id = new_account_id()
    password_hash = hash_password(password, password_hash_cost)
    store.commit(
        [
            created(Credentials(username=username, account_id=account_id, password_hash=password_hash)),
            created(
                Account(
                    account_id=account_id,
                    anonymous=False,
                    username=username,
                    cid=cid,
                    contractor_id=contractor_id,
                    territory_id=territory_id,
                    staff_scopes=list(staff_scopes),
                )
            ),
            created(DataTree(account_id=account_id)),
            *([created(ConfirmedPhone(account_id=account_id, phone=confirmed_phone))] if confirmed_phone else []),
            *audited(
                change,
                "create_account",
                f"account {username}",
                after=standing(account_id, contractor_id, territory_id, sorted(set(staff_scopes))),
            ),
        ]
    )
    return account_id


UNCHANGED: Any = object()  # an argument of update_user left as it is


def update_user(
    store: AuthStore,
    username: str,
    contractor_id: int | None = UNCHANGED,
    territory_id: int | None = UNCHANGED,
    staff_scopes: Iterable[str] | None = None,
    change: StaffChange | None = None,
) -> Account:
    """Change a personal account's home (None: none) or staff scopes (None: as they are; empty: none), with the
    standing before and after in the auth trail. Its sign-ins carry the home from their next refresh on; a staff
    scope taken away is gone from the next request on (the API's authorizer checks a staff token's scopes against
    the account: `ott.auth.bearer`)."""
    credentials = store.get(Credentials, username.casefold())
    account = store.get(Account, str(credentials.account_id)) if credentials else None
    if account is None:
        raise InvalidInput(f"no account signs in as {username}")
    before = standing(account.account_id, account.contractor_id, account.territory_id, account.staff_scopes)
    if staff_scopes is not None:
        if unknown := set(staff_scopes) - STAFF_SCOPES:
            raise InvalidInput(f"not staff scopes: {sorted(unknown)}")
        account.staff_scopes = sorted(set(staff_scopes))
    if contractor_id is not UNCHANGED:
        account.contractor_id = contractor_id
    if territory_id is not UNCHANGED:
        account.territory_id = territory_id
    after = standing(account.account_id, account.contractor_id, account.territory_id, account.staff_scopes)
    record = audited(change, "update_account", f"account {username.casefold()}", before=before, after=after)
    # Conditional on the version read: a concurrent change is refused.
    store.commit([changed(account), *demoted_link(store, account), *record])
    return account


def demoted_link(store: AuthStore, account: Account) -> list[Change]:
    """The account's playlist link no longer lists TESTING channels once the account lost the channels area's scope
    (`ott.auth.playlist_links`): written with the account's change, so the link's next request follows it."""
    if not account.playlist_link_hash or CHANNELS_SCOPE in account.staff_scopes:
        return []
    link = store.get(PlaylistLink, account.playlist_link_hash)
    if link is None or not link.staff:
        return []
    link.staff = False
    return [changed(link)]


def standing(account_id: int, contractor_id: int | None, territory_id: int | None, scopes: list[str]) -> dict:
    """What the auth trail records of an account an operator made or changed."""
    return {
        "account_id": account_id,
        "contractor_id": contractor_id,
        "territory_id": territory_id,
        "staff_scopes": sorted(scopes),
    }


def audited(change: StaffChange | None, action: str, subject: str, **details: Any) -> list[Change]:
    """The auth trail's entry of an operator's change, for its transaction; none for demo and test data."""
    return [change.write(AUTH_TRAIL, action, subject, **details)] if change is not None else []


@dataclass(frozen=True)
class LegacyToken:
    token: str
    account_id: int
    client_id: str
    anonymous: bool = False
    expires_at: int | None = None  # most v1 tokens have none


def import_legacy(
    store: AuthStore,
    tokens: Iterable[LegacyToken],
    scopes: Iterable[str] = DEFAULT_SCOPES,
    change: StaffChange | None = None,
    source: str = "",
) -> int:
    """v1 tokens keep working as access tokens until one is sent as a refresh token (spec 4.A rule 4). The auth
    trail records the import once, with its first token's transaction (`source`: the file); a token imported
    before stops the import there (ConcurrentChange), the entry going with the tokens that were written."""
    count = 0
    scope = " ".join(scopes)
    tokens = list(tokens)
    for legacy in tokens:
        record = AccessToken(
            token_hash=token_hash(legacy.token),
            account_id=legacy.account_id,
            client_id=legacy.client_id,
            anonymous=legacy.anonymous,
            scope=scope,
            expires_at=legacy.expires_at,
        )
        first = [] if count else audited(change, "import_legacy_tokens", source, detail=f"{len(tokens)} tokens")
        store.commit([created(record), *first])
        count += 1
    return count
