"""Resources of the auth service as clients see them (spec document 1, section 2) and the forms it accepts."""

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

from ott.wire import AccountId, UInt64

MAC_LIST = r"^[0-9a-f]{2}(:[0-9a-f]{2}){5}(,[0-9a-f]{2}(:[0-9a-f]{2}){5})*$"
PKCE_VERIFIER = r"^[A-Za-z0-9._~-]{43,128}$"  # RFC 7636 §4.1
ShortText = Annotated[str, Field(max_length=512)]
Secret = Annotated[str, Field(max_length=512)]


class TokenReply(BaseModel):
    access_token: str
    token_type: str = "bearer"  # noqa: S105 - the scheme name, not a secret
    expires_in: int
    refresh_token: str
    # RFC 6749 §5.1: sent by the grants that let a client ask for scopes (RFC 8628's device grant)
    scope: str | None = None


class DeviceCodeReply(BaseModel):
    pin: str
    device_code: str
    expires_in: int
    interval: int  # seconds


class DeviceAuthorizationReply(BaseModel):
    """RFC 8628 §3.2."""

    device_code: str
    user_code: str
    verification_uri: str
    verification_uri_complete: str
    expires_in: int
    interval: int  # seconds


class AccountInfo(BaseModel):
    username: str | None = None
    account_id: AccountId | None = None
    cid: UInt64 | None = None
    panel_ruid: str | None = None


class PinConfirmation(BaseModel):
    """Reply of `authorize` with response_type=pin_code: the waiting device is authorized."""

    status: str = "authorized"


class Revocation(BaseModel):
    """RFC 7009: the reply is the same whether or not the token existed."""


class Form(BaseModel):
    model_config = ConfigDict(extra="ignore")


class TokenForm(Form):
    grant_type: ShortText
    client_id: ShortText | None = None
    client_secret: Secret | None = None
    code: Secret | None = None
    redirect_uri: Annotated[str, Field(max_length=2048)] | None = None
    refresh_token: Secret | None = None
    device_code: Secret | None = None
    code_verifier: Annotated[str, Field(pattern=PKCE_VERIFIER)] | None = None
    anonymous_token: Secret | None = None
    signature: Annotated[str, Field(max_length=1024, pattern=r"^[A-Za-z0-9+/=_-]+$")] | None = None
    mac: Annotated[str, Field(max_length=1024, pattern=MAC_LIST)] | None = None


class DeviceCodeForm(Form):
    client_id: ShortText
    mac: Annotated[str, Field(max_length=1024, pattern=MAC_LIST)] | None = None


class DeviceAuthorizationForm(Form):
    """RFC 8628 §3.1: client_id, unless the client authenticates with HTTP Basic; the scope it asks for."""

    client_id: ShortText | None = None
    client_secret: Secret | None = None
    scope: (
        Annotated[str, Field(max_length=512, pattern=r"^[\x21\x23-\x5b\x5d-\x7e]+( [\x21\x23-\x5b\x5d-\x7e]+)*$")]
        | None
    ) = None


class RevokeForm(Form):
    token: Secret
    token_type_hint: Annotated[str, Field(max_length=32)] | None = None
    client_id: ShortText | None = None
    client_secret: Secret | None = None


class IntrospectForm(Form):
    """RFC 7662 §2.1; the caller's credentials in HTTP Basic or the body."""

    token: Secret
    token_type_hint: Annotated[str, Field(max_length=32)] | None = None
    client_id: ShortText | None = None
    client_secret: Secret | None = None


class Introspection(BaseModel):
    """RFC 7662 §2.2: only `active` for anything but a live access token."""

    active: bool
    scope: str | None = None
    client_id: str | None = None
    exp: int | None = None  # seconds since the epoch; none for a v1 token without expiry
    sub: str | None = None  # the account id, as a string (RFC 7519's StringOrURI)
    token_type: str | None = None


class PlaylistLinkReply(BaseModel):
    """The account's new playlist link: the URL to give a player (Kodi, TiviMate, VLC); shown once."""

    playlist_url: str


class AccountData(BaseModel):
    """The account's data tree: any JSON object."""

    model_config = ConfigDict(extra="allow")

    @property
    def tree(self) -> dict[str, Any]:
        return dict(self.model_extra or {})


class ServerMetadata(BaseModel):
    """RFC 8414 authorization server metadata."""

    issuer: str
    authorization_endpoint: str
    token_endpoint: str
    device_authorization_endpoint: str
    revocation_endpoint: str
    introspection_endpoint: str
    grant_types_supported: list[str]
    response_types_supported: list[str]
    token_endpoint_auth_methods_supported: list[str]
    revocation_endpoint_auth_methods_supported: list[str]
    introspection_endpoint_auth_methods_supported: list[str]
    code_challenge_methods_supported: list[str]


class XtreamLoginReply(BaseModel):
    """A new Xtream login (issue 29): what a stock player's "Xtream Codes" sign-in asks for (server, username,
    password) and the M3U link providers hand out; the password is shown once."""

    server: str
    username: str
    password: str
    playlist_url: str


class XtreamLoginEntry(BaseModel):
    username: str
    created_at: int  # seconds since the epoch


class XtreamLoginList(BaseModel):
    """The account's Xtream logins; never their passwords."""

    logins: list[XtreamLoginEntry]


class XtreamLoginParams(BaseModel):
    """`DELETE /auth/2/xtream_login`: the login to revoke; nothing else (a parameter it does not know is a 400, not
    a revocation of whatever it might have meant)."""

    model_config = ConfigDict(extra="forbid")

    username: Annotated[str, Field(min_length=1, max_length=64)]


class XtreamLimitRequest(BaseModel):
    """`POST /staff/auth/xtream_limit.json`: an account's limit of concurrent streams (null: the default)."""

    model_config = ConfigDict(extra="forbid")

    account_id: AccountId
    max_connections: Annotated[int, Field(ge=1, le=100)] | None


class XtreamLimit(BaseModel):
    account_id: int
    max_connections: int | None
