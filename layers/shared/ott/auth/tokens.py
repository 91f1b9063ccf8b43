"""The token endpoint (spec document 1, 4.A `token`): every grant, client authentication, account merge."""

from dataclasses import dataclass

from ott.auth import errors
from ott.auth.crypto import same, token_hash
from ott.auth.merge import merge_hint, merge_trees
from ott.auth.models import RevokeForm, TokenForm, TokenReply
from ott.auth.policy import GRANTS, AuthPolicy
from ott.auth.records import (
    AccessToken,
    Account,
    AuthorizationCode,
    Client,
    DataTree,
    DeviceAuthorization,
    Family,
    RefreshToken,
)
from ott.auth.sessions import issue, new_account_id, open_family, revocation
from ott.auth.store import AuthStore
from ott.errors import TooManyRequests
from ott.recordstore import ConcurrentChange, Delete, Key, Put, changed, count_this_hour, created


@dataclass(frozen=True)
class TokenRequest:
    form: TokenForm
    basic_credentials: tuple[str, str] | None  # from an Authorization: Basic header
    source_ip: str
    now: int


def exchange(store: AuthStore, policy: AuthPolicy, request: TokenRequest) -> TokenReply:
    """Check the client and the grant, then issue tokens; one retry when a concurrent request won a race."""
    try:
        return _exchange(store, policy, request)
    except ConcurrentChange:
        try:
            return _exchange(store, policy, request)
        except ConcurrentChange:
            raise errors.InvalidGrant("the grant was used by another request") from None


def _exchange(store: AuthStore, policy: AuthPolicy, request: TokenRequest) -> TokenReply:
    form = request.form
    client_id, secret = client_credentials(request.basic_credentials, form.client_id, form.client_secret)
    if form.grant_type not in GRANTS or form.grant_type in policy.disabled_grants:
        raise errors.UnsupportedGrantType(f"grant_type {form.grant_type[:40]!r} is not supported")
    if form.anonymous_token and form.grant_type not in ("authorization_code", "vendor:device_code"):
        raise errors.InvalidRequest("anonymous_token goes with authorization_code or vendor:device_code only")
    # The client, the grant's records and the anonymous account's token come in one read.
    grant_keys: list[Key] = []
    if form.grant_type == "authorization_code":
        grant_keys = [(AuthorizationCode, token_hash(required(form.code, "code")))]
    elif form.grant_type == "refresh_token":
        presented = token_hash(required(form.refresh_token, "refresh_token"))
        grant_keys = [(RefreshToken, presented), (AccessToken, presented)]
    elif form.grant_type == "vendor:device_code":
        grant_keys = [(DeviceAuthorization, token_hash(required(form.device_code, "device_code")))]
    source_key: Key | None = (AccessToken, token_hash(form.anonymous_token)) if form.anonymous_token else None
    found = store.read([(Client, client_id), *grant_keys, *([source_key] if source_key else [])])
    client = authenticate(found.get((Client, client_id)), secret)  # type: ignore[arg-type]
    if form.grant_type not in client.grant_types:
        raise errors.UnauthorizedClient(f"this client may not use {form.grant_type}")
    source = found.get(source_key) if source_key else None
    if source_key and source is None:
        raise errors.InvalidGrant("anonymous_token is not a valid access token")
    records = [found.get(key) for key in grant_keys]
    if form.grant_type == "vendor:anonymous":
        return anonymous(store, policy, client, request)
    if form.grant_type == "refresh_token":
        presented_record, legacy = records
        return refresh(store, policy, client, form.refresh_token or "", presented_record, legacy, request.now)  # type: ignore[arg-type]
    if form.grant_type == "authorization_code":
        return redeem_code(store, client, records[0], form, source, request.now)  # type: ignore[arg-type]
    return redeem_device(store, client, records[0], source, request.now)  # type: ignore[arg-type]


def required(value: str | None, name: str) -> str:
    if not value:
        raise errors.InvalidRequest(f"{name} is required for this grant_type")
    return value


def client_credentials(
    basic: tuple[str, str] | None, client_id: str | None, client_secret: str | None
) -> tuple[str, str]:
    """RFC 6749 §2.3.1: HTTP Basic or the body, not both."""
    if basic and (client_secret or (client_id and client_id != basic[0])):
        raise errors.InvalidRequest("send client credentials once: in the Authorization header or in the body")
    client_id, secret = basic or (client_id, client_secret)
    if not client_id or not secret:
        raise errors.InvalidClient("client_id and client_secret are required")
    return client_id, secret


def authenticate(client: Client | None, secret: str) -> Client:
    if client is None or not same(client.secret_hash, token_hash(secret)):
        raise errors.InvalidClient("unknown client or wrong client_secret")
    return client


def anonymous(store: AuthStore, policy: AuthPolicy, client: Client, request: TokenRequest) -> TokenReply:
    """vendor:anonymous: a new anonymous account, limited per client address per hour."""
    count, seconds_left = count_this_hour(store, f"anonymous#{request.source_ip}", request.now)
    if count > policy.anonymous_per_ip_per_hour:
        raise TooManyRequests("too many anonymous accounts from this address", seconds_left)
    account_id = new_account_id()
    issued = open_family(client, account_id, anonymous=True, now=request.now)
    device = {k: v for k, v in {"mac": request.form.mac, "signature": request.form.signature}.items() if v}
    account = Account(account_id=account_id, anonymous=True, families=[issued.family.family_id], device=device)
    store.commit([created(account), created(DataTree(account_id=account_id)), *issued.changes])
    return issued.reply


def refresh(
    store: AuthStore,
    policy: AuthPolicy,
    client: Client,
    token: str,
    presented: RefreshToken | None,
    legacy: AccessToken | None,
    now: int,
) -> TokenReply:
    """Rotation with reuse detection: a rotated token presented after the grace window ends the family."""
    if presented is None:
        return convert_legacy(store, client, token, legacy, now)
    if presented.client_id != client.client_id:
        raise errors.InvalidGrant("the refresh token belongs to another client")
    family = store.get(Family, presented.family_id)
    if family is None or family.revoked:
        raise errors.InvalidGrant("the refresh token was revoked")
    changes: list[Put | Delete] = []
    if presented.rotated_at is not None:
        if now - presented.rotated_at > policy.refresh_reuse_grace:
            store.commit(revocation(family))
            raise errors.InvalidGrant("the refresh token was used before; the sign-in is revoked")
        if family.refresh_hash:  # the successor the client evidently never received
            changes.append(Delete(RefreshToken, family.refresh_hash))
    else:
        presented.rotated_at = now
        changes.append(changed(presented))
    issued = issue(client, family, now, refresh=None)
    store.commit([*changes, *issued.changes, changed(family)])
    return issued.reply


def convert_legacy(store: AuthStore, client: Client, token: str, legacy: AccessToken | None, now: int) -> TokenReply:
    """A v1 access token without expiry becomes the refresh token of a new family (spec 4.A rule 4)."""
    if legacy is None:
        raise errors.InvalidGrant("unknown refresh token")
    if legacy.expires_at is not None:
        raise errors.ExpiringTokenAsRefresh("an access token cannot be used as a refresh token")
    if legacy.client_id != client.client_id:
        raise errors.InvalidGrant("the token belongs to another client")
    family = Family(
        family_id=f"legacy-{legacy.token_hash[:32]}",
        account_id=legacy.account_id,
        client_id=client.client_id,
        anonymous=legacy.anonymous,
        scope=" ".join(client.scopes),
    )
    kept = RefreshToken(
        token_hash=legacy.token_hash,
        family_id=family.family_id,
        account_id=legacy.account_id,
        client_id=client.client_id,
    )
    issued = issue(client, family, now, refresh=token)  # the legacy token itself stays the refresh token
    changes = [Delete(AccessToken, legacy.token_hash, legacy.version), created(kept), created(family), *issued.changes]
    store.commit(changes)
    return issued.reply


def redeem_code(
    store: AuthStore,
    client: Client,
    code: AuthorizationCode | None,
    form: TokenForm,
    source: AccessToken | None,
    now: int,
) -> TokenReply:
    if code is None or code.client_id != client.client_id:
        raise errors.InvalidGrant("unknown, expired or foreign authorization code")
    if code.issued_family is not None:
        # RFC 6749 §4.1.2: a code used twice revokes what its first use issued.
        family = store.get(Family, code.issued_family)
        if family is not None and not family.revoked:
            store.commit(revocation(family))
        raise errors.InvalidGrant("the authorization code was already used")
    if code.redirect_uri is not None and form.redirect_uri != code.redirect_uri:
        raise errors.InvalidGrant("redirect_uri differs from the one the code was issued for")
    issued = open_family(client, code.account_id, anonymous=False, now=now)
    code.issued_family = issued.family.family_id
    changes = [changed(code), *issued.changes]
    if source is not None:
        changes += merge_changes(store, source, code.account_id)
    store.commit(changes)
    return issued.reply


def redeem_device(
    store: AuthStore, client: Client, device: DeviceAuthorization | None, source: AccessToken | None, now: int
) -> TokenReply:
    """RFC 8628 §3.4-3.5 polling; tokens are issued once per device code."""
    if device is None or device.client_id != client.client_id or device.status == "used":
        raise errors.InvalidGrant("unknown or already used device_code")
    if device.expires_at <= now:
        raise errors.ExpiredToken("the device code expired; request a new one")
    if now - device.last_poll < device.interval:
        device.interval += 5
        device.last_poll = now
        store.commit([changed(device)])
        raise errors.SlowDown(f"poll at most every {device.interval} seconds")
    if device.status == "pending":
        device.last_poll = now
        store.commit([changed(device)])
        raise errors.AuthorizationPending("the user has not entered the PIN yet")
    account_id = device.account_id or 0
    issued = open_family(client, account_id, anonymous=device.anonymous, now=now)
    device.status = "used"
    changes = [changed(device), *issued.changes]
    if device.anonymous:
        account = store.get(Account, str(account_id))
        if account is None or account.retired:
            raise errors.InvalidGrant("the account that confirmed the PIN no longer exists")
        account.families.append(issued.family.family_id)
        changes.append(changed(account))
    if source is not None:
        changes += merge_changes(store, source, account_id, destination_anonymous=device.anonymous)
    store.commit(changes)
    return issued.reply


def merge_changes(
    store: AuthStore, source_token: AccessToken, destination_id: int, destination_anonymous: bool = False
) -> list[Put | Delete]:
    """Move the source account's tree into the destination's root, retire the source and end its sign-ins.
    The writes join the token request's transaction: all of it happens, or none."""
    if source_token.account_id == destination_id:
        raise errors.InvalidGrant("an account cannot be merged into itself")
    hint = merge_hint(source_token.anonymous, destination_anonymous)
    if hint is None:
        raise errors.InvalidGrant("two personal accounts are never merged")
    source_id, destination_key = str(source_token.account_id), str(destination_id)
    # One read for the usual case: an anonymous account signed in on one device, through this token's family.
    token_family = [(Family, source_token.family_id)] if source_token.family_id else []
    found = store.read([(Account, source_id), (DataTree, source_id), (DataTree, destination_key), *token_family])
    source = found.get((Account, source_id))
    if not isinstance(source, Account) or source.retired:
        raise errors.InvalidGrant("the anonymous account no longer exists")
    others = [(Family, family_id) for family_id in source.families if family_id != source_token.family_id]
    families = [*(found[key] for key in token_family if key in found), *(store.read(others).values() if others else [])]
    source_tree = found.get((DataTree, source_id))
    target = found.get((DataTree, destination_key))
    merged_tree = merge_trees(
        target.tree if isinstance(target, DataTree) else {},
        source_tree.tree if isinstance(source_tree, DataTree) else {},
        hint,
    )
    changes: list[Put | Delete] = []
    if isinstance(target, DataTree):
        target.tree = merged_tree
        changes.append(changed(target))
    else:
        changes.append(created(DataTree(account_id=destination_id, tree=merged_tree)))
    if isinstance(source_tree, DataTree):
        changes.append(Delete(DataTree, source_id, source_tree.version))
    source.retired = True
    changes.append(changed(source))
    for family in families:
        if isinstance(family, Family) and not family.revoked:
            changes += revocation(family)
    return changes


def revoke(store: AuthStore, form: RevokeForm, basic_credentials: tuple[str, str] | None) -> None:
    """RFC 7009: a refresh token ends its whole sign-in, an access token only itself. Tokens that are
    unknown or belong to another client are left alone, and the reply is the same."""
    client_id, secret = client_credentials(basic_credentials, form.client_id, form.client_secret)
    hashed = token_hash(form.token)
    found = store.read([(Client, client_id), (RefreshToken, hashed), (AccessToken, hashed)])
    client = authenticate(found.get((Client, client_id)), secret)  # type: ignore[arg-type]
    refresh_token = found.get((RefreshToken, hashed))
    access_token = found.get((AccessToken, hashed))
    if isinstance(refresh_token, RefreshToken) and refresh_token.client_id == client.client_id:
        family = store.get(Family, refresh_token.family_id)
        if family is not None and not family.revoked:
            store.commit(revocation(family))
    elif isinstance(access_token, AccessToken) and access_token.client_id == client.client_id:
        store.commit([Delete(AccessToken, hashed)])
