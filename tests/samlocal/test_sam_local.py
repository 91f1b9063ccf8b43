"""Every service answers through `sam local` from `sam build`'s artifacts (the layer mounted at /opt as Lambda mounts
it, the runtime's boto3, the template's handlers and environment), the bearer authorizer accepts and refuses, a
staff route answers a staff token, and a queue consumer and the Step Functions channel worker run under
`sam local invoke` on sample events and write what they should into the emulator.

SAM CLI does not emulate API keys (`ApiKeyRequired`: the machine routes answer 403 from the function, which finds
no key id in the request) nor the API's GatewayResponses (a refusal has SAM's body, not the platform's)."""

import json
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import requests

from local.seed import demo_playlist_path
from local.sign_in import access_token
from local.template import Template
from tests.conftest import ROOT
from tests.samlocal.conftest import SamLocalApi

pytestmark = [pytest.mark.docker]

FORM = {"grant_type": "vendor:anonymous", "client_id": "demo-tv", "client_secret": "demo-tv-secret"}
STAFF_REDIRECT = "http://127.0.0.1/console/"  # the staff console's loopback redirect URI


def get(api: SamLocalApi, path: str, **kwargs: Any) -> requests.Response:
    return requests.get(f"{api.url}{path}", timeout=120, **kwargs)


@pytest.fixture(scope="module")
def tokens(sam_api: SamLocalApi) -> dict[str, str]:
    """A device's token and the demo chief's (every staff scope, signed in through the operator's console: public
    client, PKCE), got while every function the tests call starts its container: at once, not one by one as the
    tests come to them (a first request starts a container: 3–5 s idle, 10–30 s on a loaded machine; SAM CLI
    creates them one at a time but they start, and import the code, side by side)."""
    anonymous = [
        "/registry/2/whereami.json",
        "/tvguide/2/channels.json?fields=title",
        "/launcher/1/posters.json",
        demo_playlist_path(),
        "/1/niche-content/list.json?p=1",
        "/console",
        "/auth/2/account",  # the bearer authorizer's container: it refuses
    ]
    started = time.monotonic()
    with ThreadPoolExecutor(max_workers=4) as pool:
        device = pool.submit(requests.post, f"{sam_api.url}/auth/2/token", data=FORM, timeout=120)
        staff = pool.submit(
            access_token, sam_api.url, "staff-console", None, "chief@example.com", "chief-password", STAFF_REDIRECT
        )
        list(pool.map(lambda path: get(sam_api, path), anonymous))
        reply = device.result()
        assert reply.status_code == 200, reply.text
        found = {"device": str(reply.json()["access_token"]), "staff": staff.result()}
        with_token = [
            ("/auth/2/account", found["device"]),
            ("/staff/me.json", found["staff"]),
            ("/staff/niche-content/queue.json?status=awaiting", found["staff"]),
            ("/staff/launcher/moderation.json", found["staff"]),
        ]
        list(pool.map(lambda call: get(sam_api, call[0], headers=bearer(call[1])), with_token))
    sam_api.report(f"tests/samlocal: the functions' containers started in {time.monotonic() - started:.0f} s")
    return found


@pytest.fixture(scope="module")
def token(tokens: dict[str, str]) -> str:
    return tokens["device"]


@pytest.fixture(scope="module")
def staff_token(tokens: dict[str, str]) -> str:
    """The demo chief (every staff scope) signed in through the operator's console (public client, PKCE)."""
    return tokens["staff"]


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


@pytest.mark.usefixtures("tokens")
def test_registry_whereami(sam_api: SamLocalApi) -> None:
    reply = get(sam_api, "/registry/2/whereami.json")
    assert reply.status_code == 200, reply.text
    assert reply.headers.get("Date")
    assert "Демо" in reply.text  # 127.0.0.0/8 is Демо Телеком's in the demo registry


def test_auth_token_and_the_bearer_authorizer_accepts(sam_api: SamLocalApi, token: str) -> None:
    reply = get(sam_api, "/auth/2/account", headers=bearer(token))
    assert reply.status_code == 200, reply.text


# API Gateway answers both 401 (the template's GatewayResponses). SAM CLI 1.170 applies no GatewayResponses: a Deny
# policy (a wrong token) is its 403, and the authorizer's "Unauthorized" error (no token) its 502.
@pytest.mark.parametrize(
    ("headers", "status"), [({}, 502), ({"Authorization": "Bearer not-a-token"}, 403)], ids=["none", "wrong"]
)
def test_the_bearer_authorizer_refuses(sam_api: SamLocalApi, headers: dict[str, str], status: int) -> None:
    reply = get(sam_api, "/auth/2/account", headers=headers)
    assert reply.status_code in (401, status), reply.text
    assert "account_id" not in reply.text


def test_tvguide_channels(sam_api: SamLocalApi) -> None:
    reply = get(sam_api, "/tvguide/2/channels.json", params={"fields": "title,currentTelecast"})
    assert reply.status_code == 200, reply.text
    assert len(json.dumps(reply.json())) > 100


def test_launcher_posters(sam_api: SamLocalApi) -> None:
    reply = get(sam_api, "/launcher/1/posters.json")
    assert reply.status_code == 200, reply.text


def test_channels_playlist(sam_api: SamLocalApi) -> None:
    reply = get(sam_api, demo_playlist_path())
    assert reply.status_code == 200, reply.text
    assert reply.text.startswith("#EXTM3U")


def test_machine_routes_take_no_key_under_sam_local(sam_api: SamLocalApi) -> None:
    """SAM CLI passes no API key id: the function's own check refuses, as API Gateway would refuse a missing key."""
    reply = get(sam_api, "/1/niche-content/list.json", params={"p": "1"}, headers={"x-api-key": "demo-encoder-key"})
    assert reply.status_code == 403, reply.text


def test_staff_routes(sam_api: SamLocalApi, staff_token: str, token: str) -> None:
    queue = get(sam_api, "/staff/niche-content/queue.json", params={"status": "awaiting"}, headers=bearer(staff_token))
    assert queue.status_code == 200, queue.text
    assert "demo-0" in queue.text  # the demo items awaiting encoding
    moderation = get(sam_api, "/staff/launcher/moderation.json", headers=bearer(staff_token))
    assert moderation.status_code == 200, moderation.text
    assert get(sam_api, "/staff/launcher/moderation.json", headers=bearer(token)).status_code == 403


def test_console(sam_api: SamLocalApi, staff_token: str) -> None:
    me = get(sam_api, "/staff/me.json", headers=bearer(staff_token))
    assert me.status_code == 200, me.text
    page = get(sam_api, "/console")
    assert page.status_code == 200, page.text


def sample_event(template: Template, function: str) -> dict[str, Any]:
    """events/ mirrors functions/: a function's sample event is named after its code's folder."""
    code = template.resources[function]["Properties"]["CodeUri"].strip("/").removeprefix("functions/")
    return json.loads((ROOT / "events" / f"{code}.json").read_text(encoding="utf-8"))


def consumer_of(template: Template, queue: str) -> str:
    return next(function.logical_id for source, function in template.queue_consumers() if source == queue)


def with_body(event: dict[str, Any], body: dict[str, Any]) -> dict[str, Any]:
    record = {**event["Records"][0], "messageId": str(uuid.uuid4()), "body": json.dumps(body)}
    return {"Records": [record]}


def test_a_queue_consumer_and_the_channel_worker(
    sam_api: SamLocalApi, token: str, template: Template, tmp_path: Path
) -> None:
    """Through `sam local invoke`, side by side (each is SAM CLI's start, the template's expansion and a new
    container: tens of seconds on a loaded machine):
    - the click queue's consumer on a click on a poster of the block the API shows: the launcher's table changes;
    - after a phone confirmation through the API (while the click's invoke starts), the Step Functions worker's
      stage 2 (an SMS with a code): the request in the emulator's table moves to that stage with that task token."""
    shown = get(sam_api, "/launcher/1/posters.json")
    assert shown.status_code == 200, shown.text
    posters = shown.json().get("posters", shown.json())
    poster_id = next(node["id"] for node in walk(posters) if isinstance(node, dict) and "id" in node)
    consumer = consumer_of(template, "LauncherClickQueue")
    sample = sample_event(template, consumer)
    body = {
        **json.loads(sample["Records"][0]["body"]),
        "event_id": f"samlocal-{uuid.uuid4()}",
        "poster_id": int(poster_id),
        "snapshot_hash": shown.headers.get("ETag", "").removeprefix("W/").strip('"') or "samlocal",
        "time": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
    }
    launcher_table, phone_table = template.physical_name("LauncherTable"), template.physical_name("PhoneTable")
    before = sam_api.dynamodb().scan(TableName=launcher_table)["Items"]

    with ThreadPoolExecutor(max_workers=2) as pool:
        invokes = {consumer: pool.submit(sam_api.invoke, consumer, with_body(sample, body), tmp_path)}
        started = requests.post(
            f"{sam_api.url}/phoneconfirm/2/confirm", json={"phone": "79990000006"}, headers=bearer(token), timeout=120
        )
        assert started.status_code == 200, started.text
        request_id = str(started.json()["request_id"])
        verify = requests.post(
            f"{sam_api.url}/phoneconfirm/2/verify", json={"request_id": request_id}, headers=bearer(token), timeout=120
        )
        assert verify.status_code == 200, verify.text
        worker = consumer_of(template, "ChannelQueue")
        task_token = f"samlocal-{uuid.uuid4()}"  # no execution waits on it: the worker's SendTaskSuccess is refused
        stage = {"request_id": request_id, "stage": 2, "task_token": task_token}
        invokes[worker] = pool.submit(
            sam_api.invoke, worker, with_body(sample_event(template, worker), stage), tmp_path
        )
    for name, invoked in invokes.items():
        reply, took = invoked.result()
        sam_api.report(f"sam local invoke {name}: {took:.1f} s (side by side)")
        assert reply == {"batchItemFailures": []}, name

    items = sam_api.dynamodb().scan(TableName=phone_table)["Items"]
    written = [item for item in items if json.dumps(item).count(request_id) and json.dumps(item).count(task_token)]
    assert written, f"no item of {phone_table} holds request {request_id} with the worker's task token"
    after = sam_api.dynamodb().scan(TableName=launcher_table)["Items"]
    assert after != before, "the click changed nothing in the launcher's table"


def walk(node: Any) -> Any:
    yield node
    if isinstance(node, dict):
        for value in node.values():
            yield from walk(value)
    elif isinstance(node, list):
        for value in node:
            yield from walk(value)
