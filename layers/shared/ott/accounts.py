"""What the services keep about an account that more than one of them reads or writes: phone confirmation
writes the confirmed phone, auth reads it (panel_ruid). It lives in the auth table, keyed by account.
An anonymous account's lifetime is here too: what is kept of it goes with it."""

from dataclasses import dataclass
from datetime import datetime
from typing import ClassVar

from ott.clock import epoch_seconds
from ott.recordstore import Record

DAY = 86_400
# An anonymous account unused (no token refreshed, no sign-in) for a year goes, with its tree, its sign-ins and
# its confirmed phone. Its expiry is pushed at most once a LIFETIME_STEP, so everyday use costs no extra writes.
ANONYMOUS_LIFETIME = 365 * DAY
LIFETIME_STEP = 7 * DAY


def anonymous_expiry(now: datetime) -> int:
    return epoch_seconds(now) + ANONYMOUS_LIFETIME + LIFETIME_STEP


@dataclass(slots=True)
class ConfirmedPhone(Record):
    """The account's phone as the phone confirmation service confirmed it; feeds panel_ruid."""

    kind: ClassVar[str] = "PHONE"
    key_field: ClassVar[str] = "account_id"
    account_id: int = 0
    phone: str = ""
    expires_at: int | None = None  # an anonymous account's: its account's; a personal account's phone stays
