"""Making and revoking playlist links (issue 19): one per account, its secret stored only as a hash, with the
stream session its streams carry. Who a link is for: ott.auth.playlist_access."""

from datetime import datetime

from ott.auth.crypto import new_token, token_hash
from ott.auth.device import limit
from ott.auth.playlist_access import session_of
from ott.auth.records import Account, PlaylistLink, StreamSession
from ott.auth.store import AuthStore
from ott.callers import Account as Caller
from ott.errors import NotFound
from ott.recordstore import Delete, changed, created
from ott.staff import SCOPES, Area

PLAYLIST_PATH = "/channels/playlist.m3u"
# What makes a link list the channels still in TESTING: the channels area's scope, on the token that makes the link
# and on the account from then on (`ott.auth.admin.update_user` takes it off the link with the scope).
CHANNELS_SCOPE = SCOPES[Area.CHANNELS]
LINKS_PER_ACCOUNT_PER_HOUR = 10


def new_link(store: AuthStore, caller: Caller, base_url: str, now: datetime, secret: str | None = None) -> str:
    """A new playlist link for the caller's account, replacing the one it had (and that link's session) in the
    same write; return its URL. The link keeps the home of the caller's token, and lists TESTING channels when the
    token carries the channels area's scope (not any staff scope) and the account still holds it. `secret`: the
    local stack's demo link only (a real link's is random)."""
    limit(store, f"playlist-link#{caller.account_id}", LINKS_PER_ACCOUNT_PER_HOUR, now, "too many playlist links")
    account = store.get(Account, str(caller.account_id))
    if account is None or account.retired:
        raise NotFound("this account has no record to keep a playlist link with")
    secret = secret or new_token()
    link = PlaylistLink(
        link_hash=token_hash(secret),
        account_id=account.account_id,
        contractor_id=caller.contractor_id,
        territory_id=caller.territory_id,
        staff=CHANNELS_SCOPE in caller.scopes and CHANNELS_SCOPE in account.staff_scopes,
        expires_at=account.expires_at,
    )
    session = StreamSession(
        session_hash=token_hash(session_of(secret)), account_id=account.account_id, expires_at=account.expires_at
    )
    replaced = forget_link(account)
    account.playlist_link_hash, account.stream_session_hash = link.link_hash, session.session_hash
    store.commit([created(link), created(session), *replaced, changed(account)])
    return f"{base_url}{PLAYLIST_PATH}?link={secret}"


def revoke_link(store: AuthStore, caller: Caller) -> None:
    """The account's playlist link and its session end; nothing happens when it has none."""
    account = store.get(Account, str(caller.account_id))
    if account is None or account.playlist_link_hash is None:
        return
    removed = forget_link(account)
    store.commit([*removed, changed(account)])


def forget_link(account: Account) -> list[Delete]:
    """The deletions of the account's link and session, which the account then no longer names."""
    deletions = []
    if account.playlist_link_hash:
        deletions.append(Delete(PlaylistLink, account.playlist_link_hash))
    if account.stream_session_hash:
        deletions.append(Delete(StreamSession, account.stream_session_hash))
    account.playlist_link_hash = account.stream_session_hash = None
    return deletions
