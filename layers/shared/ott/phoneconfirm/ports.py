"""What the channel workers need from delivery providers. Adapters: providers.py (real), fakes.py (local)."""

from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol


class DeliveryFailed(Exception):
    """The provider could not deliver to this number: the stage is over."""


class ProviderUnavailable(Exception):
    """A transient provider error (timeout, 5xx, throttling): worth retrying the stage."""


class PushStatus(StrEnum):
    ACCEPTED = "accepted"  # the subscriber confirmed on the SIM menu: the number is confirmed
    DELIVERED = "delivered"  # shown to the subscriber; no answer yet
    NOT_DELIVERED = "not_delivered"
    REJECTED = "rejected"


class SimPushProvider(Protocol):
    def push(self, phone: str, text: str) -> PushStatus: ...


class SmsProvider(Protocol):
    def send(self, phone: str, text: str) -> None: ...


class CallProvider(Protocol):
    def flash_call(self, phone: str) -> str:
        """Call the number; return the code, the last 4 digits of the calling number."""
        ...


@dataclass(frozen=True)
class Providers:
    sim_push: SimPushProvider
    first_sms: SmsProvider  # the SMS that follows an undelivered SIM-push (stage 1)
    call: CallProvider  # stage 2
    second_sms: SmsProvider  # stage 3, another provider
