"""Token families: one sign-in of one account on one device, with one live access token and one
live refresh token. Issuing, rotating and revoking them."""

import secrets
from dataclasses import dataclass
from datetime import datetime

from ott.accounts import DAY, anonymous_expiry
from ott.auth.crypto import new_token, token_hash
from ott.auth.models import TokenReply
from ott.auth.policy import STAFF_SCOPES
from ott.auth.records import (
    REVOKED_FAMILY_RETENTION,
    AccessToken,
    Account,
    Client,
    Family,
    RefreshToken,
)
from ott.clock import epoch_seconds
from ott.recordstore import HOUR, Delete, Put, changed, created
from ott.wire import MAX_SAFE_INTEGER

# How long a personal sign-in lives (docs/auth.md, "Lifetimes"): it ends when its refresh token was
# not used for the idle time, and at the latest the absolute time after it began, whatever its use. A subscriber's
# TV or phone refreshes every hour while in use: a month unused ends it, and a year after its sign-in its owner
# signs in again. A staff sign-in (its scope holds a staff scope) is a working day's, as Keycloak's SSO session.
PERSONAL_IDLE = 30 * DAY
PERSONAL_MAX = 365 * DAY
STAFF_IDLE = 2 * HOUR
STAFF_MAX = 10 * HOUR


@dataclass
class Issued:
    """New tokens and the writes that store them."""

    reply: TokenReply
    family: Family
    changes: list[Put | Delete]


def new_account_id() -> int:
    """Below 2^53: exact in every JSON parser, JavaScript's doubles included (docs/decisions.md)."""
    return secrets.randbelow(MAX_SAFE_INTEGER) + 1


def granted_scope(client: Client, limit: str | None = None) -> str:
    """The client's scopes, or those of them that `limit` (a space-separated scope) also names."""
    return " ".join(scope for scope in client.scopes if limit is None or scope in limit.split())


def account_scope(scope: str, account: Account | None) -> str:
    """`scope` without the staff scopes the account was not given: a staff console's client has them, but
    only its staff's sign-ins carry them (none without an account record)."""
    given = account.staff_scopes if account is not None else []
    return " ".join(name for name in scope.split() if name not in STAFF_SCOPES or name in given)


def follow_account(family: Family, client: Client, account: Account | None) -> None:
    """What a refresh re-reads: the scope the client and the account grant now, within what the sign-in was
    given (a demoted moderator's next token has no staff scope), and the account's current home."""
    family.scope = account_scope(granted_scope(client, family.scope), account)
    if account is not None:
        family.contractor_id, family.territory_id = account.contractor_id, account.territory_id
        family.username = account.username


def sign_in_expiry(account: Account | None, family: Family, now: datetime) -> int:
    """An anonymous sign-in ends with its account; one without a record (v1) a year after its last use. A personal
    one (the spec's "unlimited lifetime" bounded, issue 28) the idle time after this use, and never later than the
    absolute time after it began: its family and its live refresh token expire then (a sign-in from before these
    limits counts from its first refresh since)."""
    at = epoch_seconds(now)
    if family.anonymous:
        return account.expires_at if account is not None and account.expires_at else anonymous_expiry(now)
    if family.started_at is None:
        family.started_at = at
    staff = bool(STAFF_SCOPES.intersection(family.scope.split()))
    idle, most = (STAFF_IDLE, STAFF_MAX) if staff else (PERSONAL_IDLE, PERSONAL_MAX)
    return min(at + idle, family.started_at + most)


def open_family(client: Client, account: Account, now: datetime, scope: str | None = None) -> Issued:
    """A new sign-in of `account`, with the client's scopes limited to `scope` when given. An anonymous
    account's caller adds the family to `account.families`, so that a merge can end it."""
    family = Family(
        family_id=secrets.token_hex(16),
        account_id=account.account_id,
        client_id=client.client_id,
        anonymous=account.anonymous,
        scope=granted_scope(client, scope),
        started_at=epoch_seconds(now),
    )
    follow_account(family, client, account)
    family.expires_at = sign_in_expiry(account, family, now)
    issued = issue(client, family, now, refresh=None)
    issued.changes.append(created(family))
    return issued


def issue(client: Client, family: Family, now: datetime, refresh: str | None) -> Issued:
    """A new access token (and a new refresh token unless `refresh` is kept) as the family's live pair;
    the caller adds the write of `family` itself."""
    access = new_token()
    access_record = AccessToken(
        token_hash=token_hash(access),
        account_id=family.account_id,
        client_id=family.client_id,
        anonymous=family.anonymous,
        family_id=family.family_id,
        scope=family.scope,
        expires_at=epoch_seconds(now) + client.access_ttl,
        contractor_id=family.contractor_id,
        territory_id=family.territory_id,
        username=family.username,
    )
    changes: list[Put | Delete] = [created(access_record)]
    if family.access_hash:
        changes.append(Delete(AccessToken, family.access_hash))
    if refresh is None:
        refresh = new_token()
        changes.append(
            created(
                RefreshToken(
                    token_hash=token_hash(refresh),
                    family_id=family.family_id,
                    account_id=family.account_id,
                    client_id=family.client_id,
                    expires_at=family.expires_at,
                )
            )
        )
    family.access_hash = access_record.token_hash
    family.refresh_hash = token_hash(refresh)
    reply = TokenReply(access_token=access, expires_in=client.access_ttl, refresh_token=refresh)
    return Issued(reply=reply, family=family, changes=changes)


def revocation(family: Family, now: datetime) -> list[Put | Delete]:
    """The bounded writes that end a family: its live pair goes, and the family is marked revoked."""
    changes: list[Put | Delete] = []
    if family.access_hash:
        changes.append(Delete(AccessToken, family.access_hash))
    if family.refresh_hash:
        changes.append(Delete(RefreshToken, family.refresh_hash))
    family.revoked = True
    family.expires_at = epoch_seconds(now) + REVOKED_FAMILY_RETENTION
    family.access_hash = family.refresh_hash = None
    changes.append(changed(family))
    return changes
