"""Fake delivery providers for the local stack and the tests. The number chooses what happens:

- 79990000001: the SIM-push is delivered and accepted: confirmed without a code.
- 79990000002: the SIM-push is not delivered; an SMS with a code follows from the same provider.
- 79990000003: stage 1 fails entirely; a flash call carries the code.
- 79990000004: stages 1 and 2 fail; the second provider's SMS carries the code.
- 79990000005: every channel fails: delivery_failed.
- any other number: the SIM-push is delivered and nobody answers.

What they deliver is kept in OUTBOX, which the local stack serves at /_dev/outbox.
"""

import re
import secrets
import threading
import time
from typing import Any

from ott.phoneconfirm.ports import DeliveryFailed, Providers, PushStatus

OUTBOX: list[dict[str, Any]] = []
_LOCK = threading.Lock()


def record(phone: str, channel: str, provider: str, code: str | None) -> None:
    with _LOCK:
        OUTBOX.append({"phone": phone, "channel": channel, "provider": provider, "code": code, "sent_at": time.time()})


def outbox(phone: str) -> list[dict[str, Any]]:
    """What was delivered to `phone`, newest first."""
    with _LOCK:
        return [dict(item) for item in reversed(OUTBOX) if item["phone"] == phone]


def fails(phone: str, *numbers: int) -> bool:
    return phone.startswith("7999000000") and int(phone[-1]) in numbers


class FakeSimPush:
    def push(self, phone: str, text: str) -> PushStatus:
        if fails(phone, 2, 3, 4, 5):
            return PushStatus.NOT_DELIVERED
        record(phone, "sim-push", "fake-sim-push", None)
        return PushStatus.ACCEPTED if fails(phone, 1) else PushStatus.DELIVERED


class FakeSms:
    def __init__(self, provider: str, failing: tuple[int, ...]) -> None:
        self.provider, self.failing = provider, failing

    def send(self, phone: str, text: str) -> None:
        if fails(phone, *self.failing):
            raise DeliveryFailed(f"{self.provider}: not delivered")
        code = re.search(r"\b(\d{4})\b", text)
        record(phone, "sms", self.provider, code.group(1) if code else None)


class FakeCall:
    def flash_call(self, phone: str) -> str:
        if fails(phone, 4, 5):
            raise DeliveryFailed("fake-flash-call: no answer")
        caller = f"7495{secrets.randbelow(10**7):07d}"
        record(phone, "call", "fake-flash-call", caller[-4:])
        return caller[-4:]


def fake_providers() -> Providers:
    return Providers(
        sim_push=FakeSimPush(),
        first_sms=FakeSms("fake-sms-1", failing=(3, 4, 5)),
        call=FakeCall(),
        second_sms=FakeSms("fake-sms-2", failing=(5,)),
    )
