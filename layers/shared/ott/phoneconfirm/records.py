"""The state of one confirmation request (see ott.recordstore for how records are stored and changed)."""

from dataclasses import dataclass
from typing import ClassVar

from ott.recordstore import Record

RETENTION = 86_400  # kept a day past expiry, to answer request_id_expired rather than request_id_not_found
CHANNELS = {1: "sim-push", 2: "call", 3: "sms"}
SUPPORT_STAGE = 4


@dataclass(slots=True)
class ConfirmationRequest(Record):
    kind: ClassVar[str] = "REQ"
    key_field: ClassVar[str] = "request_id"
    request_id: str = ""
    account_id: int = 0
    phone: str = ""
    expires_at: int = 0
    stage: int = 1  # 1 SIM-push (+SMS), 2 call, 3 SMS through the second provider, 4 support
    reported_stage: int = 1  # the stage the client was last told of by `confirm`
    channel: str = "sim-push"
    code_input: str = "no_code"
    code_hash: str | None = None
    sent_at: int = 0
    verify_until: int = 0
    error_attempts: int = 0
    channel_over: str | None = None  # max_attempts_check_code or verify_expired: the channel is spent
    confirmed: bool = False
    task_token: str | None = None  # the state machine's waiting stage
    support_case: str | None = None  # set by the state machine when every channel failed
    # The confirmed phone's: an anonymous account's lifetime from the request on (auth pushes it with the
    # account's); None for a personal account, whose phone stays.
    phone_expires_at: int | None = None

    @property
    def ttl(self) -> int | None:
        return self.expires_at + RETENTION
