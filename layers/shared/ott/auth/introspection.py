"""RFC 7662 token introspection, for resource servers (the stream-authorization component of document 3, part A):
is this access token live, and whose is it. docs/auth.md, "Token introspection (RFC 7662)"."""

from datetime import UTC, datetime

from ott.auth import errors
from ott.auth.crypto import token_hash
from ott.auth.models import IntrospectForm, Introspection
from ott.auth.policy import STAFF_SCOPES
from ott.auth.records import AccessToken, Client, StreamSession
from ott.auth.store import AuthStore
from ott.auth.tokens import authenticate, client_credentials
from ott.auth.xtream_access import account_of_session, screen_introspection
from ott.auth.xtream_records import XtreamAccount

INACTIVE = Introspection(active=False)
STREAM_SCOPE = "stream"  # what a stream session grants: watching the streams of its playlist
STREAM_SESSION = "stream_session"  # the kind of token (RFC 7662 token_type)


def introspect(
    store: AuthStore, form: IntrospectForm, basic_credentials: tuple[str, str] | None, now: datetime | None = None
) -> Introspection:
    """One read: the calling client and the token. Only a client registered as a resource server may ask.
    A live stream session (a playlist link's) is active with its account. Anything but that or a live access token
    of this server (a refresh token, a revoked, expired or rotated-out access token, a token of another realm) is
    `{"active": false}` and nothing more (§2.2). A staff token's staff scopes are left out of the answer: a resource
    server (a stream component) decides on watching, and who is staff is none of its business (issue 28).
    An Xtream screen's session (issue 29) names its account, whose screens are read in the same call: active while
    its screen lives, and seeing it keeps the screen alive.
    Wrong client secrets are not slowed: a secret is 256 random bits (`register_client`), beyond guessing."""
    client_id, secret = client_credentials(basic_credentials, form.client_id, form.client_secret)
    hashed = token_hash(form.token)
    screen_account = account_of_session(form.token)
    screens = [(XtreamAccount, str(screen_account))] if screen_account is not None else []
    found = store.read([(Client, client_id), (AccessToken, hashed), (StreamSession, hashed), *screens])
    client = authenticate(found.get((Client, client_id)), secret)  # type: ignore[arg-type]
    if not client.resource_server:
        raise errors.NotAResourceServer("this client is not registered as a resource server")
    session = found.get((StreamSession, hashed))
    if isinstance(session, StreamSession):  # a playlist's %(session_id)s, live while its link is
        account = str(session.account_id)
        return Introspection(active=True, scope=STREAM_SCOPE, sub=account, token_type=STREAM_SESSION)
    if screens:
        when = now or datetime.now(UTC)
        watcher = screen_introspection(store, found.get(screens[0]), form.token, when)
        if watcher is not None:
            return Introspection(active=True, scope=STREAM_SCOPE, sub=str(watcher), token_type=STREAM_SESSION)
    token = found.get((AccessToken, hashed))
    if not isinstance(token, AccessToken):  # the read treats an expired token as absent
        return INACTIVE
    return Introspection(
        active=True,
        scope=" ".join(scope for scope in token.scope.split() if scope not in STAFF_SCOPES),
        client_id=token.client_id,
        exp=token.expires_at,
        sub=str(token.account_id),
        token_type="Bearer",  # noqa: S106 - the scheme name, not a secret
    )
