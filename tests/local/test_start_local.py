"""`make run` while it starts (issue 27, "A local stack whole in seconds"): it answers whereami as soon as the
registry is in, and everything sent from that moment on succeeds while the other services are still loading: a
phone confirmation accepted then is processed (its worker is polling its queue), an operator command with
`--local` waits for the stack (saying so in one line) and does its work, and a guide request waits for the guide.
A stack of its own: only a stack just started shows its start."""

import time
from concurrent.futures import ThreadPoolExecutor

import requests

from tests.fixtures.stack import STARTING_AT_MOST, RunningStack, start_stack
from tests.tvguide.test_http_local import run_ops

ANONYMOUS = {"grant_type": "vendor:anonymous", "client_id": "demo-tv", "client_secret": "demo-tv-secret"}
# Fake providers (ott.phoneconfirm.fakes): ...1 is confirmed by the SIM-push alone, ...2 by an SMS's code.
PUSHED, TEXTED = "79990000001", "79990000002"
PROCESSED_WITHIN = 120  # seconds for a confirmation's worker to deliver, however busy the machine


def whereami_answers(stack: RunningStack) -> None:
    deadline = time.monotonic() + STARTING_AT_MOST
    while time.monotonic() < deadline:
        if requests.get(f"{stack.url}/registry/2/whereami.json", timeout=STARTING_AT_MOST).status_code == 200:
            return
        time.sleep(0.05)
    raise AssertionError("whereami never answered")


def until(condition, what: str):
    deadline = time.monotonic() + PROCESSED_WITHIN
    while time.monotonic() < deadline:
        if found := condition():
            return found
        time.sleep(0.2)
    raise AssertionError(f"{what} within {PROCESSED_WITHIN} s")


def confirmed(stack: RunningStack) -> list[str]:
    """Two confirmations started at once, followed to their end: the SIM-push one to `confirmed`, the SMS one
    through its code."""
    token = requests.post(f"{stack.url}/auth/2/token", data=ANONYMOUS, timeout=STARTING_AT_MOST).json()
    bearer = {"Authorization": f"Bearer {token['access_token']}"}

    def call(method: str, **body: str) -> dict:
        reply = requests.post(f"{stack.url}/phoneconfirm/2/{method}", json=body, headers=bearer, timeout=60)
        assert reply.status_code == 200, reply.text
        return reply.json()

    pushed = call("confirm", phone=f"+{PUSHED}")["request_id"]
    texted = call("confirm", phone=f"+{TEXTED}")["request_id"]
    until(lambda: call("verify", request_id=pushed)["status"] == "confirmed", f"{PUSHED} not confirmed")
    assert call("verify", request_id=pushed)["code_input_required"] == "no_code"

    def code() -> str | None:
        sent = requests.get(f"{stack.url}/_dev/outbox", params={"phone": TEXTED}, timeout=60).json()["messages"]
        return next((message["code"] for message in sent if message["channel"] == "sms"), None)

    checked = call("checkCode", request_id=texted, code=until(code, f"no code sent to {TEXTED}"))
    assert checked == {"result": "ok"}
    assert call("verify", request_id=texted)["status"] == "confirmed"
    return [pushed, texted]


def test_a_confirmation_an_ops_command_and_a_guide_request_sent_as_whereami_first_answers_all_succeed(tmp_path):
    launched = time.monotonic()
    stack = start_stack(tmp_path / "output.log", loaded=False)
    try:
        whereami_answers(stack)
        answered = time.monotonic() - launched
        with ThreadPoolExecutor(max_workers=3) as pool:
            confirmations = pool.submit(confirmed, stack)
            command = pool.submit(
                run_ops, stack, "ops.auth.clients", "start-tv", "--name", "Start TV", "--grant", "vendor:anonymous",
                "--local",
            )  # fmt: skip
            guide = pool.submit(
                requests.get,
                f"{stack.url}/tvguide/2/channels.json",
                params={"fields": "title,currentTelecast"},
                timeout=STARTING_AT_MOST,
            )
            made, channels = command.result(), guide.result()
            assert len(confirmations.result()) == 2
        assert made.returncode == 0, made.stderr
        assert "Traceback" not in made.stderr
        secret = made.stdout.split("client_secret:")[1].split()[0]
        fields = {**ANONYMOUS, "client_id": "start-tv", "client_secret": secret}
        assert requests.post(f"{stack.url}/auth/2/token", data=fields, timeout=60).status_code == 200
        assert channels.status_code == 200, channels.text
        assert channels.json()["channels"], "the demo guide's channels"
        banner = time.monotonic() - launched
        print(f"whereami answered after {answered:.1f} s; everything above done after {banner:.1f} s")
    finally:
        stack.stop()
