"""What the auth service keeps (see ott.recordstore for how records are stored and changed)."""

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, ClassVar

from ott.accounts import ANONYMOUS_LIFETIME, DAY, ConfirmedPhone
from ott.auth.xtream_records import XTREAM_RECORDS
from ott.clock import epoch_seconds
from ott.recordstore import Record

DEVICE_RETENTION = DAY  # a device code is kept a day past its expiry, to answer expired_token
ROTATED_TOKEN_RETENTION = 30 * DAY  # a rotated refresh token is kept this long to detect its reuse
REVOKED_FAMILY_RETENTION = 30 * DAY  # as long as its rotated tokens: it answers them "revoked"
FAILURE_MEMORY = DAY  # consecutive failed sign-ins are forgotten a day after the last one


@dataclass(slots=True)
class Client(Record):
    kind: ClassVar[str] = "CLIENT"
    key_field: ClassVar[str] = "client_id"
    client_id: str = ""
    secret_hash: str = ""
    name: str = ""
    grant_types: list[str] = field(default_factory=list)
    redirect_uris: list[str] = field(default_factory=list)
    scopes: list[str] = field(default_factory=list)
    access_ttl: int = 3600
    requires_pkce: bool = False  # RFC 7636: its authorization requests must carry an S256 code_challenge
    resource_server: bool = False  # RFC 7662: it may introspect tokens (the stream-authorization component)
    public: bool = False  # RFC 6749 §2.1: no secret (a browser application); PKCE required


@dataclass(slots=True)
class Account(Record):
    kind: ClassVar[str] = "ACCOUNT"
    key_field: ClassVar[str] = "account_id"
    account_id: int = 0
    anonymous: bool = True
    username: str | None = None
    cid: int | None = None
    # Whose subscriber the account is and where it lives (registry ids); copied into its sign-ins' tokens.
    contractor_id: int | None = None
    territory_id: int | None = None
    staff_scopes: list[str] = field(default_factory=list)  # staff scopes its sign-ins may carry
    retired: bool = False
    families: list[str] = field(default_factory=list)
    device: dict[str, Any] = field(default_factory=dict)  # mac and signature given at registration
    # Its playlist link and the stream session in it (issue 19), by their hashes: one link per account.
    playlist_link_hash: str | None = None
    stream_session_hash: str | None = None
    expires_at: int | None = None  # anonymous accounts only; its tree has the same expiry

    def lifetime_due(self, now: datetime) -> bool:
        """An anonymous account whose expiry was last pushed more than LIFETIME_STEP ago."""
        return self.anonymous and (self.expires_at is None or self.expires_at - epoch_seconds(now) < ANONYMOUS_LIFETIME)


@dataclass(slots=True)
class Credentials(Record):
    """A personal account's login: the username (e-mail) and the password's scrypt hash."""

    kind: ClassVar[str] = "USER"
    username: str = ""
    account_id: int = 0
    password_hash: str = ""

    @property
    def key(self) -> str:
        return self.username.casefold()


@dataclass(slots=True)
class DataTree(Record):
    kind: ClassVar[str] = "DATA"
    key_field: ClassVar[str] = "account_id"
    account_id: int = 0
    tree: dict[str, Any] = field(default_factory=dict)
    expires_at: int | None = None  # its account's


@dataclass(slots=True)
class AccessToken(Record):
    kind: ClassVar[str] = "ACCESS"
    key_field: ClassVar[str] = "token_hash"
    token_hash: str = ""
    account_id: int = 0
    client_id: str = ""
    anonymous: bool = True
    family_id: str | None = None
    scope: str = ""
    expires_at: int | None = None  # None: a legacy v1 token without expiry
    contractor_id: int | None = None  # the account's when its family was opened
    territory_id: int | None = None
    username: str | None = None  # a personal account's login, which staff are named by in the audit trail


@dataclass(slots=True)
class RefreshToken(Record):
    kind: ClassVar[str] = "REFRESH"
    key_field: ClassVar[str] = "token_hash"
    token_hash: str = ""
    family_id: str = ""
    account_id: int = 0
    client_id: str = ""
    rotated_at: int | None = None
    expires_at: int | None = None  # its family's (a personal sign-in's: its idle and absolute lifetimes)


@dataclass(slots=True)
class Family(Record):
    """The tokens of one sign-in on one device: one live access token and one live refresh token."""

    kind: ClassVar[str] = "FAMILY"
    key_field: ClassVar[str] = "family_id"
    family_id: str = ""
    account_id: int = 0
    client_id: str = ""
    anonymous: bool = True
    scope: str = ""
    access_hash: str | None = None
    refresh_hash: str | None = None
    revoked: bool = False
    # Pushed at every refresh: an anonymous sign-in's with its account, a personal one's by its idle lifetime up to
    # its absolute one (ott.auth.sessions.sign_in_expiry), counted from `started_at`.
    expires_at: int | None = None
    started_at: int | None = None  # None: signed in before sign-ins had lifetimes
    contractor_id: int | None = None  # the account's when it signed in
    territory_id: int | None = None
    username: str | None = None


@dataclass(slots=True)
class AuthorizationCode(Record):
    kind: ClassVar[str] = "CODE"
    key_field: ClassVar[str] = "code_hash"
    code_hash: str = ""
    client_id: str = ""
    redirect_uri: str | None = None
    account_id: int = 0
    expires_at: int = 0
    issued_family: str | None = None  # set on first use; a second use revokes it
    code_challenge: str | None = None  # RFC 7636 S256: BASE64URL(SHA256(code_verifier)), itself a hash


@dataclass(slots=True)
class DeviceAuthorization(Record):
    """A device waiting to be signed in: by the spec's PIN (`flow` "pin") or by RFC 8628's user code."""

    kind: ClassVar[str] = "DEVICE"
    key_field: ClassVar[str] = "device_hash"
    device_hash: str = ""
    client_id: str = ""
    pin_hash: str = ""
    status: str = "pending"  # pending → authorized (or, RFC 8628, denied) → used
    account_id: int | None = None
    anonymous: bool = False  # of the account that confirmed the PIN
    # PIN: of the token that confirmed it. RFC 8628: the client's scopes the device asked for, then those the
    # approving account may have. The most the device's tokens may carry.
    scope: str = ""
    expires_at: int = 0
    interval: int = 5
    last_poll: int = 0
    flow: str = "pin"  # or "rfc8628"
    user_code_hash: str = ""  # RFC 8628
    # RFC 8628: the client's secret hash when the code was issued, so that a poll authenticates the client
    # with the one read it makes (the device code lives minutes).
    client_secret_hash: str = ""

    @property
    def ttl(self) -> int | None:
        return self.expires_at + DEVICE_RETENTION


@dataclass(slots=True)
class Pin(Record):
    """Finds the waiting device from the PIN a user typed."""

    kind: ClassVar[str] = "PIN"
    key_field: ClassVar[str] = "pin_hash"
    pin_hash: str = ""
    device_hash: str = ""
    expires_at: int = 0


@dataclass(slots=True)
class UserCode(Record):
    """RFC 8628: finds the waiting device from the user code a person typed on the verification page."""

    kind: ClassVar[str] = "USERCODE"
    key_field: ClassVar[str] = "code_hash"
    code_hash: str = ""
    device_hash: str = ""
    expires_at: int = 0


@dataclass(slots=True)
class PlaylistLink(Record):
    """A subscriber's playlist URL (issue 19), by the hash of the secret it carries: it opens only this account's
    playlist, with the home the account's token had when the link was made; `staff` (TESTING channels listed) while
    the account holds the channels area's scope."""

    kind: ClassVar[str] = "PLAYLIST"
    key_field: ClassVar[str] = "link_hash"
    link_hash: str = ""
    account_id: int = 0
    contractor_id: int | None = None
    territory_id: int | None = None
    staff: bool = False
    expires_at: int | None = None  # an anonymous account's: the link ends with it


@dataclass(slots=True)
class StreamSession(Record):
    """The stream session of a playlist link, by the hash of the id its stream URLs carry (`%(session_id)s`):
    what the stream-authorization component introspects. It goes with its link."""

    kind: ClassVar[str] = "STREAMSESSION"
    key_field: ClassVar[str] = "session_hash"
    session_hash: str = ""
    account_id: int = 0
    expires_at: int | None = None  # its link's


@dataclass(slots=True)
class LoginAttempts(Record):
    """Sign-in attempts for one username (known or not) from one address (`ott.netaddr.subscriber_key`): a
    stranger's wrong passwords slow down only their own address, never the account's owner elsewhere. Each attempt
    is counted here, by a conditional write, before its password is checked; a success takes its count back."""

    kind: ClassVar[str] = "LOGIN"
    key_field: ClassVar[str] = "username"
    username: str = ""  # casefolded
    address: str = ""
    failures: int = 0  # consecutive
    last_failure: int = 0
    hour: int = 0  # the clock hour (epoch seconds // 3600) that hour_failures counts
    hour_failures: int = 0

    @property
    def key(self) -> str:
        return f"{self.username}#{self.address}"

    @property
    def ttl(self) -> int | None:
        return self.last_failure + FAILURE_MEMORY


AUTH_RECORDS = (
    Client,
    Account,
    ConfirmedPhone,
    Credentials,
    DataTree,
    AccessToken,
    RefreshToken,
    Family,
    AuthorizationCode,
    DeviceAuthorization,
    Pin,
    UserCode,
    PlaylistLink,
    StreamSession,
    LoginAttempts,
    *XTREAM_RECORDS,
)
