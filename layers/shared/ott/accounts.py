"""What the services keep about an account that more than one of them reads or writes: phone confirmation
writes the confirmed phone, auth reads it (panel_ruid). It lives in the auth table, keyed by account."""

from dataclasses import dataclass
from typing import ClassVar

from ott.recordstore import Record


@dataclass(slots=True)
class ConfirmedPhone(Record):
    """The account's phone as the phone confirmation service confirmed it; feeds panel_ruid."""

    kind: ClassVar[str] = "PHONE"
    account_id: int = 0
    phone: str = ""

    @property
    def key(self) -> str:
        return str(self.account_id)
