"""What operators do to the auth service: register clients, create personal accounts, import v1 tokens."""

import re
import secrets
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ott.accounts import ConfirmedPhone
from ott.auth.crypto import SCRYPT_N, hash_password, token_hash
from ott.auth.policy import DEFAULT_SCOPES, GRANTS, PUBLIC_CLIENT_GRANTS, SCOPES, STAFF_SCOPES
from ott.auth.records import AccessToken, Account, Client, Credentials, DataTree
from ott.auth.sessions import new_account_id
from ott.auth.store import AuthStore
from ott.errors import InvalidInput
from ott.recordstore import changed, created
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
    store.commit([created(client)])
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
) -> Account:
    """Change a personal account's home (None: none) or staff scopes (None: as they are; empty: none). Its
    sign-ins carry the change from their next refresh on; access tokens issued before keep theirs until they
    expire (an hour by default)."""
    credentials = store.get(Credentials, username.casefold())
    account = store.get(Account, str(credentials.account_id)) if credentials else None
    if account is None:
        raise InvalidInput(f"no account signs in as {username}")
    if staff_scopes is not None:
        if unknown := set(staff_scopes) - STAFF_SCOPES:
            raise InvalidInput(f"not staff scopes: {sorted(unknown)}")
        account.staff_scopes = sorted(set(staff_scopes))
    if contractor_id is not UNCHANGED:
        account.contractor_id = contractor_id
    if territory_id is not UNCHANGED:
        account.territory_id = territory_id
    store.commit([changed(account)])  # conditional on the version read: a concurrent change is refused
    return account


@dataclass(frozen=True)
class LegacyToken:
    token: str
    account_id: int
    client_id: str
    anonymous: bool = False
    expires_at: int | None = None  # most v1 tokens have none


def import_legacy(store: AuthStore, tokens: Iterable[LegacyToken], scopes: Iterable[str] = DEFAULT_SCOPES) -> int:
    """v1 tokens keep working as access tokens until one is sent as a refresh token (spec 4.A rule 4)."""
    count = 0
    scope = " ".join(scopes)
    for legacy in tokens:
        record = AccessToken(
            token_hash=token_hash(legacy.token),
            account_id=legacy.account_id,
            client_id=legacy.client_id,
            anonymous=legacy.anonymous,
            scope=scope,
            expires_at=legacy.expires_at,
        )
        store.commit([created(record)])
        count += 1
    return count
