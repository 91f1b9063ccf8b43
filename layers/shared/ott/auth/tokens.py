"""The token endpoint (spec document 1, 4.A `token`): every grant, client authentication, account merge."""

from dataclasses import dataclass
from datetime import datetime

from ott.accounts import ConfirmedPhone, anonymous_expiry
from ott.auth import errors, verification
from ott.auth.crypto import s256_challenge, same, token_hash
from ott.auth.merge import MAX_TREE_BYTES, merge_hint, merge_trees, tree_bytes
from ott.auth.models import RevokeForm, TokenForm, TokenReply
from ott.auth.playlist_links import forget_link
from ott.auth.policy import DEVICE_CODE_GRANT, GRANTS, AuthPolicy
from ott.auth.records import (
    ROTATED_TOKEN_RETENTION,
    AccessToken,
    Account,
    AuthorizationCode,
    Client,
    DataTree,
    DeviceAuthorization,
    Family,
    RefreshToken,
)
from ott.auth.sessions import (
    Issued,
    follow_account,
    issue,
    new_account_id,
    open_family,
    revocation,
    sign_in_expiry,
)
from ott.auth.store import AuthStore
from ott.clock import epoch_seconds
from ott.errors import TooManyRequests
from ott.netaddr import subscriber_key
from ott.recordstore import ConcurrentChange, Delete, Key, Put, Record, changed, count_this_hour, created

# The data tree is what a merge moves, and `user_data` is the scope that reads and writes it.
MERGE_SCOPE = "user_data"


@dataclass(frozen=True)
class TokenRequest:
    form: TokenForm
    basic_credentials: tuple[str, str] | None  # from an Authorization: Basic header
    source_ip: str
    now: datetime


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
    if form.grant_type == DEVICE_CODE_GRANT:  # RFC 8628: a poll is one call, the client checked from its record
        return verification.poll(store, client_id, secret, required(form.device_code, "device_code"), request.now)
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
    if isinstance(source, AccessToken):
        check_merge_source(source, client)
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
) -> tuple[str, str | None]:
    """RFC 6749 §2.3.1: HTTP Basic or the body, not both. A public client sends its client_id alone (§2.1)."""
    if basic and (client_secret or (client_id and client_id != basic[0])):
        raise errors.InvalidRequest("send client credentials once: in the Authorization header or in the body")
    client_id, secret = basic or (client_id, client_secret)
    if not client_id:
        raise errors.InvalidClient("client_id is required")
    return client_id, secret or None


def authenticate(client: Client | None, secret: str | None) -> Client:
    """A confidential client by its secret; a public client (no secret to keep: the staff console in a browser)
    by its client_id alone, its codes bound to PKCE instead (RFC 7636, RFC 9700 §2.1.1)."""
    if client is not None and client.public and secret is None:
        return client
    if client is None or client.public or secret is None or not same(client.secret_hash, token_hash(secret)):
        raise errors.InvalidClient("unknown client or wrong client_secret")
    return client


def anonymous(store: AuthStore, policy: AuthPolicy, client: Client, request: TokenRequest) -> TokenReply:
    """vendor:anonymous: a new anonymous account, limited per client address per hour."""
    address = subscriber_key(request.source_ip)
    count, seconds_left = count_this_hour(store, f"anonymous#{address}", epoch_seconds(request.now))
    if count > policy.anonymous_per_ip_per_hour:
        raise TooManyRequests("too many anonymous accounts from this address", seconds_left)
    expires_at = anonymous_expiry(request.now)
    device = {k: v for k, v in {"mac": request.form.mac, "signature": request.form.signature}.items() if v}
    account = Account(account_id=new_account_id(), anonymous=True, device=device, expires_at=expires_at)
    issued = open_family(client, account, request.now)
    account.families.append(issued.family.family_id)
    tree = DataTree(account_id=account.account_id, expires_at=expires_at)
    store.commit([created(account), created(tree), *issued.changes])
    return issued.reply


def refresh(
    store: AuthStore,
    policy: AuthPolicy,
    client: Client,
    token: str,
    presented: RefreshToken | None,
    legacy: AccessToken | None,
    now: datetime,
) -> TokenReply:
    """Rotation with reuse detection: a rotated token presented after the grace window ends the family."""
    if presented is None:
        return convert_legacy(store, client, token, legacy, now)
    if presented.client_id != client.client_id:
        raise errors.InvalidGrant("the refresh token belongs to another client")
    found = store.read([(Family, presented.family_id), (Account, str(presented.account_id))])
    family = found.get((Family, presented.family_id))
    if not isinstance(family, Family) or family.revoked:
        raise errors.InvalidGrant("the refresh token was revoked")
    account = unretired(found.get((Account, str(presented.account_id))))
    changes: list[Put | Delete] = []
    at = epoch_seconds(now)
    if presented.rotated_at is not None:
        if at - presented.rotated_at > policy.refresh_reuse_grace:
            store.commit(revocation(family, now))
            raise errors.InvalidGrant("the refresh token was used before; the sign-in is revoked")
        if family.refresh_hash:  # the successor the client evidently never received
            changes.append(Delete(RefreshToken, family.refresh_hash))
    else:
        presented.rotated_at = at
        presented.expires_at = at + ROTATED_TOKEN_RETENTION
        changes.append(changed(presented))
    if account is not None and account.lifetime_due(now):  # a refresh is a use: the account lives on
        changes += prolonged(store, account, now)
    follow_account(family, client, account)
    family.expires_at = sign_in_expiry(account, family, now)
    issued = issue(client, family, now, refresh=None)
    store.commit([*changes, *issued.changes, changed(family)])
    return issued.reply


def convert_legacy(
    store: AuthStore, client: Client, token: str, legacy: AccessToken | None, now: datetime
) -> TokenReply:
    """A v1 access token without expiry becomes the refresh token of a new family (spec 4.A rule 4)."""
    if legacy is None:
        raise errors.InvalidGrant("unknown refresh token")
    if legacy.expires_at is not None:
        raise errors.ExpiringTokenAsRefresh("an access token cannot be used as a refresh token")
    if legacy.client_id != client.client_id:
        raise errors.InvalidGrant("the token belongs to another client")
    account = unretired(store.get(Account, str(legacy.account_id)))
    anonymous = account.anonymous if account else legacy.anonymous
    family = Family(
        family_id=f"legacy-{legacy.token_hash[:32]}",
        account_id=legacy.account_id,
        client_id=client.client_id,
        anonymous=anonymous,
        scope=legacy.scope,
    )
    follow_account(family, client, account)
    family.expires_at = sign_in_expiry(account, family, now)
    kept = RefreshToken(
        token_hash=legacy.token_hash,
        family_id=family.family_id,
        account_id=legacy.account_id,
        client_id=client.client_id,
        expires_at=family.expires_at,
    )
    issued = issue(client, family, now, refresh=token)  # the legacy token itself stays the refresh token
    changes = [Delete(AccessToken, legacy.token_hash, legacy.version), created(kept), created(family), *issued.changes]
    if account is not None and account.anonymous:  # so that a merge of this account ends this sign-in too
        account.families.append(family.family_id)
        changes.append(changed(account))
    store.commit(changes)
    return issued.reply


def redeem_code(
    store: AuthStore,
    client: Client,
    code: AuthorizationCode | None,
    form: TokenForm,
    source: AccessToken | None,
    now: datetime,
) -> TokenReply:
    if code is None or code.client_id != client.client_id:
        raise errors.InvalidGrant("unknown, expired or foreign authorization code")
    if code.issued_family is not None:
        # RFC 6749 §4.1.2: a code used twice revokes what its first use issued.
        family = store.get(Family, code.issued_family)
        if family is not None and not family.revoked:
            store.commit(revocation(family, now))
        raise errors.InvalidGrant("the authorization code was already used")
    if code.redirect_uri is not None and form.redirect_uri != code.redirect_uri:
        raise errors.InvalidGrant("redirect_uri differs from the one the code was issued for")
    check_code_verifier(code.code_challenge, form.code_verifier)
    issued, sign_in = open_sign_in(store, client, code.account_id, source, now)
    code.issued_family = issued.family.family_id
    store.commit([changed(code), *sign_in])
    return issued.reply


def check_code_verifier(challenge: str | None, verifier: str | None) -> None:
    """RFC 7636 §4.6. A verifier for a code issued without a challenge is refused too (RFC 9700 §4.8.2):
    otherwise an attacker could inject a stolen code into a PKCE-using client."""
    if challenge is None and verifier is None:
        return
    if challenge is None or verifier is None or not same(s256_challenge(verifier), challenge):
        raise errors.InvalidGrant("code_verifier does not match the code_challenge of the authorization request")


def redeem_device(
    store: AuthStore, client: Client, device: DeviceAuthorization | None, source: AccessToken | None, now: datetime
) -> TokenReply:
    """The spec's PIN flow, polled as RFC 8628 §3.4-3.5 says; tokens are issued once per device code."""
    if device is None or device.flow != "pin" or device.client_id != client.client_id or device.status == "used":
        raise errors.InvalidGrant("unknown or already used device_code")
    at = epoch_seconds(now)
    if device.expires_at <= at:
        raise errors.ExpiredToken("the device code expired; request a new one")
    if at - device.last_poll < device.interval:
        device.interval += 5
        device.last_poll = at
        store.commit([changed(device)])
        raise errors.SlowDown(f"poll at most every {device.interval} seconds")
    if device.status == "pending":
        device.last_poll = at
        store.commit([changed(device)])
        raise errors.AuthorizationPending("the user has not entered the PIN yet")
    device.status = "used"
    issued, sign_in = open_sign_in(store, client, device.account_id or 0, source, now, scope=device.scope)
    store.commit([changed(device), *sign_in])
    return issued.reply


def unretired(account: Record | None) -> Account | None:
    """A retired account (merged into another) never gets tokens again. None: there is no record, as for
    a v1 account whose record was not imported; its v1 sessions go on."""
    if isinstance(account, Account) and account.retired:
        raise errors.InvalidGrant("the account no longer exists")
    return account if isinstance(account, Account) else None


def prolonged(store: AuthStore, account: Account, now: datetime) -> list[Put | Delete]:
    """Push an anonymous account's expiry, and its tree's and confirmed phone's with it, a year past this use."""
    account.expires_at = anonymous_expiry(now)
    changes: list[Put | Delete] = [changed(account)]
    key = str(account.account_id)
    for kept in store.read([(DataTree, key), (ConfirmedPhone, key)]).values():
        if isinstance(kept, DataTree | ConfirmedPhone):
            kept.expires_at = account.expires_at
            changes.append(changed(kept))
    return changes


def open_sign_in(
    store: AuthStore,
    client: Client,
    account_id: int,
    source: AccessToken | None,
    now: datetime,
    scope: str | None = None,
) -> tuple[Issued, list[Put | Delete]]:
    """A new sign-in of a live account, with the anonymous account of `source` merged into it when given;
    the writes join the grant's transaction: all of it happens, or none."""
    destination_key = str(account_id)
    merge_keys: list[Key] = []
    if source is not None:
        if source.account_id == account_id:
            raise errors.InvalidGrant("an account cannot be merged into itself")
        source_id = str(source.account_id)
        # One read for the usual case: an anonymous account signed in on one device, through this token's family.
        token_family = [(Family, source.family_id)] if source.family_id else []
        merge_keys = [(Account, source_id), (DataTree, source_id), (DataTree, destination_key), *token_family]
    found = store.read([(Account, destination_key), *merge_keys])
    account = unretired(found.get((Account, destination_key)))
    if account is None:  # accounts that sign in anew have records
        raise errors.InvalidGrant("the account no longer exists")
    issued = open_family(client, account, now, scope)
    changes = list(issued.changes)
    if account.anonymous:  # so that a merge of this account ends this sign-in too
        account.families.append(issued.family.family_id)
        changes.append(changed(account))
    if source is not None:
        changes += merge_changes(store, found, source, account, now)
    return issued, changes


def check_merge_source(source: AccessToken, client: Client) -> None:
    """Spec 7.A rule 3: only an anonymous account's token, of this client, that may use the data tree.
    Anything else would let a stolen or lesser token carry another account's data away."""
    if not source.anonymous:
        raise errors.InvalidGrant("anonymous_token is a personal account's token: only anonymous accounts merge")
    if source.client_id != client.client_id:
        raise errors.InvalidGrant("anonymous_token was issued to another client")
    if MERGE_SCOPE not in source.scope.split():
        raise errors.InvalidGrant(f"anonymous_token lacks the {MERGE_SCOPE} scope that merging needs")


def merge_changes(
    store: AuthStore, found: dict[Key, Record], source_token: AccessToken, destination: Account, now: datetime
) -> list[Put | Delete]:
    """Move the source account's tree into the destination's root, retire the source and end its sign-ins, its
    playlist link and the link's stream session (introspection answers `active: false` for it from then on)."""
    source_id, destination_key = str(source_token.account_id), str(destination.account_id)
    source = found.get((Account, source_id))
    if not isinstance(source, Account) or source.retired or not source.anonymous:
        raise errors.InvalidGrant("the anonymous account no longer exists")
    hint = merge_hint(source_anonymous=True, destination_anonymous=destination.anonymous)
    if hint is None:
        raise errors.InvalidGrant("two personal accounts are never merged")
    source_tree = found.get((DataTree, source_id))
    target = found.get((DataTree, destination_key))
    merged_tree = merge_trees(
        target.tree if isinstance(target, DataTree) else {},
        source_tree.tree if isinstance(source_tree, DataTree) else {},
        hint,
    )
    if tree_bytes(merged_tree) > MAX_TREE_BYTES:
        raise errors.InvalidGrant(
            f"the merged data tree would pass {MAX_TREE_BYTES} bytes: sign in without anonymous_token,"
            " or make the trees smaller first"
        )
    changes: list[Put | Delete] = []
    if isinstance(target, DataTree):
        target.tree, target.expires_at = merged_tree, destination.expires_at
        changes.append(changed(target))
    else:
        tree = DataTree(account_id=destination.account_id, tree=merged_tree, expires_at=destination.expires_at)
        changes.append(created(tree))
    if isinstance(source_tree, DataTree):
        changes.append(Delete(DataTree, source_id, source_tree.version))
    changes += forget_link(source)
    source.retired = True
    changes.append(changed(source))
    token_family = found.get((Family, source_token.family_id)) if source_token.family_id else None
    others = [(Family, family_id) for family_id in source.families if family_id != source_token.family_id]
    for family in [token_family, *(store.read(others).values() if others else [])]:
        if isinstance(family, Family) and not family.revoked:
            changes += revocation(family, now)
    if source_token.family_id is None:  # a v1 token belongs to no family: it ends here
        changes.append(Delete(AccessToken, source_token.token_hash))
    return changes


def revoke(store: AuthStore, form: RevokeForm, basic_credentials: tuple[str, str] | None, now: datetime) -> None:
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
            store.commit(revocation(family, now))
    elif isinstance(access_token, AccessToken) and access_token.client_id == client.client_id:
        store.commit([Delete(AccessToken, hashed)])
