"""DynamoDB calls each request makes, on the demo data in moto: every registry method (sample events from
events/), every token grant, the launcher's methods and click events, the console's staff reads."""

import importlib
import json
import os
import time
from collections import Counter
from collections.abc import Callable
from datetime import datetime
from typing import Any, TextIO
from urllib.parse import urlencode

from bench import QUIET, quiet
from local.invoke import handler_in
from local.template import REGION, Template

REGISTRY_BARS = {"registry/whereami": 3}
TOKEN_BAR = 3
# Issue 19: a device's poll while the person has not decided (it comes every few seconds from every waiting TV).
DEVICE_POLL_BARS = {"RFC 8628 device_code (pending)": 1}
PHONE_BAR = 2
NICHE_BAR = 2
# Every call of a posters/poster request (the registry's detection included), whatever the number of posters.
LAUNCHER_BAR = 3
CLICK_BAR = 2
# Every read of the console's staff routes (issue 20), on their sample events (a staff member with every area).
STAFF_READ_BAR = 3
STAFF_READS = (
    "console/me",
    "console/audit",
    "launcher/staff_moderation",
    "launcher/staff_posters",
    "launcher/staff_daily",
    "channels/staff_versions",
    "channels/staff_diff",
    "nichecontent/staff_queue",
    "nichecontent/staff_item",
    "tvguide/staff_zones",
    "tvguide/staff_imports",
    "tvguide/staff_report",
    "tvguide/staff_grid",
    "tvguide/staff_configuration",
    "registry/staff_load",
)
CLIENT = {"client_id": "demo-tv", "client_secret": "demo-tv-secret"}
INTROSPECTION_BAR = 1  # issue 19: the stream component asks at every stream start
STREAM_COMPONENT = {"client_id": "demo-stream_auth", "client_secret": "demo-stream-auth-secret"}
REDIRECT = "http://127.0.0.1:8765/callback"


def report_dynamodb_calls() -> int:
    template = Template()
    os.environ.update({"AWS_ACCESS_KEY_ID": "bench", "AWS_SECRET_ACCESS_KEY": "bench", "AWS_DEFAULT_REGION": REGION})
    os.environ.pop("AWS_ENDPOINT_URL", None)
    os.environ.update({**template.environment(), **QUIET})

    from moto import mock_aws

    from local.invoke import context, sample_event
    from local.metering import counting_calls
    from local.moto_speedups import speed_up_dynamodb
    from local.resources import create_all
    from local.seed import seed_demo
    from ott.aws import client, reset_clients
    from ott.config import reset_settings
    from ott.storage.cache import hot_items

    def measure(call: Callable[[], dict]) -> tuple[Counter[str], dict]:
        hot_items.forget()  # the calls of a container whose hot items are stale: the most a request makes
        with counting_calls(client("dynamodb")) as calls:
            reply = call()
        return calls, reply

    failures = 0
    print("\nDynamoDB calls per request (demo data in moto)")
    print(f"{'request':40} {'calls':>5}  operations")
    speed_up_dynamodb()  # moto's answers and calls, sooner
    with mock_aws(config={"stepfunctions": {"execute_state_machine": True}}), quiet() as table:
        reset_clients()
        reset_settings()
        create_all(template, client)
        seed_demo(template, client("dynamodb"))
        for function in template.functions():
            folder = function.module.split(".")[1]
            if not folder.startswith("registry_"):
                continue
            handler = getattr(importlib.import_module(function.module), function.attribute)

            def run(handler: Callable[[dict, Any], dict] = handler, folder: str = folder) -> dict:
                return handler(sample_event(folder), context(folder))

            calls, _ = measure(run)
            failures += show(table, folder, calls, REGISTRY_BARS.get(folder))

        token = importlib.import_module("functions.auth.token.app").lambda_handler

        def grant(**fields: str) -> dict:
            event = {**sample_event("auth/token"), "body": urlencode({**CLIENT, **fields})}
            return token(event, context("auth/token"))

        def introspect(issued: dict) -> dict:
            handler = importlib.import_module("functions.auth.introspect.app").lambda_handler
            form = {"token": issued["access_token"], **STREAM_COMPONENT}
            return handler({**sample_event("auth/introspect"), "body": urlencode(form)}, context("auth/introspect"))

        for name, fields in token_requests(grant):

            def request(fields: dict[str, str] = fields) -> dict:
                return grant(**fields)

            calls, reply = measure(request)
            failures += show(table, f"token {name}", calls, DEVICE_POLL_BARS.get(name, TOKEN_BAR))
            if reply["statusCode"] not in (200, 400):  # 400: authorization_pending
                raise RuntimeError(f"token {name}: {reply['body']}")
        viewer = json.loads(grant(grant_type="vendor:anonymous")["body"])
        calls, reply = measure(lambda: introspect(viewer))
        failures += show(table, "introspect (live access token)", calls, INTROSPECTION_BAR)
        if json.loads(reply["body"]).get("active") is not True:
            raise RuntimeError(f"introspect: {reply['body']}")
        for name, call in phone_requests(template):
            calls, _ = measure(call)
            failures += show(table, name, calls, PHONE_BAR if name != "phoneconfirm confirm" else None)
        for name, call in niche_requests():
            calls, reply = measure(call)
            failures += show(table, name, calls, NICHE_BAR)
            if reply["statusCode"] not in (200, 204):
                raise RuntimeError(f"{name}: {reply['body']}")
        for name, call, bar in launcher_requests(template):
            failures += show_launcher(table, name, call, bar)
        failures += staff_reads(table, measure)
    return failures


def staff_reads(table: TextIO, measure: Callable[[Callable[[], dict]], tuple[Counter[str], dict]]) -> int:
    """Each staff read on its sample event, after a second channel version (so that a diff has two to read) and
    with the registry load its sample asks for."""
    from datetime import UTC, datetime

    from local.invoke import context, sample_event
    from local.seed import DEMO_OPERATOR, demo_document
    from ott.audit import audit_log
    from ott.channels.service import publish
    from ott.channels.store import channel_store
    from ott.channels.validation import validate_configuration

    document = {**demo_document("channels.yaml"), "title": "bench"}
    valid = validate_configuration(document)
    now = datetime.now(UTC)
    publish(channel_store(audit_log()), valid, "bench.yaml", DEMO_OPERATOR, now)
    begin_sample_registry_load(now)
    failures = 0
    for function in STAFF_READS:
        handler = handler_in(function)

        def read(handler: Callable[[dict, Any], dict] = handler, function: str = function) -> dict:
            return handler(sample_event(function), context(function))

        calls, reply = measure(read)
        if reply["statusCode"] != 200:
            raise RuntimeError(f"{function}: {reply['body']}")
        failures += show(table, function.replace("_", " ", 1), calls, STAFF_READ_BAR)
    return failures


def begin_sample_registry_load(now: datetime) -> None:
    from local.invoke import sample_event
    from local.seed import DEMO_OPERATOR
    from ott.clock import epoch_seconds
    from ott.registry.loading import STATUS_KEPT, requester_record
    from ott.registry.staff import LoadStatus, RegistryLoad
    from ott.registry.store import registry_store

    load_id = sample_event("registry/staff_load")["queryStringParameters"]["id"]
    waiting = RegistryLoad(
        load_id=load_id,
        source="registry.yaml",
        status=LoadStatus.WAITING,
        requested_by=DEMO_OPERATOR.name,
        requested_at=now,
        updated_at=now,
    )
    registry_store().begin_load(waiting, requester_record(DEMO_OPERATOR), epoch_seconds(now + STATUS_KEPT))


def niche_requests():
    """list.json on pages 1 and 10 of a queue of 210 (page 10 full), then updateStatus: taking an item (it
    leaves the list), a move within work, and the same move resent."""
    from datetime import UTC, datetime, timedelta

    from local.invoke import context, sample_event
    from ott.nichecontent.intake import NewItem
    from ott.nichecontent.service import add_item
    from ott.nichecontent.store import niche_store

    store, now = niche_store(), datetime.now(UTC)
    for number in range(160):  # after the demo's 50
        entry = NewItem(id=f"bench-{number:04d}", source_url=f"https://source.example/bench-{number:04d}.mov")
        add_item(store, entry, now + timedelta(seconds=number))

    def call(function: str, query: dict[str, str]) -> dict:
        handler = handler_in(function)
        return handler({**sample_event(function), "queryStringParameters": query}, context(function))

    for p in ("1", "10"):
        yield f"nichecontent list p={p}", lambda p=p: call("nichecontent/list", {"p": p})
    for name, status in (("take", "totranscoder"), ("progress", "bytranscoder"), ("resent", "bytranscoder")):
        query = {"status": status, "id": "demo-0001"}
        yield f"nichecontent updateStatus ({name})", lambda query=query: call("nichecontent/update_status", query)


def launcher_requests(template: Template):
    """posters and poster as the public, a subscriber with a home and a moderator see them, and click events
    (the last on a hash new to a poster that counts as many as it may: one gives way).
    The bar is on every call a request makes: the launcher's own and the registry's reads (its version pointer,
    read with the block in one call but for time travel, then the caller's prefixes or territories), shown
    split."""
    from datetime import UTC, datetime

    from local.invoke import context, sample_event
    from ott.auth.crypto import token_hash
    from ott.auth.login import sign_in
    from ott.auth.policy import AuthPolicy
    from ott.auth.records import Client
    from ott.auth.store import auth_store
    from ott.launcher.clicks import HASHES_PER_POSTER

    def request(function: str, principal: dict | None = None, **query: str) -> Callable[[], dict]:
        handler = handler_in(function)
        sample, suffix = sample_event(function), query.pop("format", "json")
        event = {
            **sample,
            "path": sample["path"].replace(".json", f".{suffix}"),
            "queryStringParameters": {**(sample["queryStringParameters"] or {}), **query} or None,
        }
        if principal is not None:
            event["requestContext"] = {**event["requestContext"], "authorizer": principal}
        return lambda: handler(event, context(function))

    store, now = auth_store(), datetime.now(UTC)
    staff = store.get(Client, "demo-staff")
    if staff is None:
        raise RuntimeError("the demo staff client is missing")
    code = sign_in(store, AuthPolicy(), staff, REDIRECT, "moderator@example.com", "moderator-password", now)
    token_handler = importlib.import_module("functions.auth.token.app").lambda_handler
    form = {"grant_type": "authorization_code", "code": code, "redirect_uri": REDIRECT}
    form |= {"client_id": "demo-staff", "client_secret": "demo-staff-secret"}
    issued = json.loads(
        token_handler({**sample_event("auth/token"), "body": urlencode(form)}, context("auth/token"))["body"]
    )
    from ott.auth.records import AccessToken

    access = store.get(AccessToken, token_hash(issued["access_token"]))
    if access is None:
        raise RuntimeError("the moderator's token is missing")
    moderator = {
        "accountId": str(access.account_id),
        "clientId": access.client_id,
        "scope": access.scope,
        "contractorId": str(access.contractor_id),
        "territoryId": str(access.territory_id),
    }
    variants: list[tuple[str, dict | None, dict[str, str]]] = [
        ("(address)", None, {}),
        ("xml (address)", None, {"format": "xml"}),
        ("(account)", moderator, {}),
        ("moderation", moderator, {"moderation": "true"}),
        ("statistics", moderator, {"statistics": "true"}),
        ("moderation+statistics", moderator, {"moderation": "true", "statistics": "true"}),
        ("time_travel", moderator, {"statistics": "true", "time_travel": "0"}),
        ("moderation+time_travel", moderator, {"moderation": "true", "statistics": "true", "time_travel": "0"}),
    ]
    for method in ("launcher/posters", "launcher/poster"):
        for label, principal, query in variants:
            yield f"{method.replace('_', ' ')} {label}", request(method, principal, **query), LAUNCHER_BAR
    consumer = importlib.import_module("functions.launcher.clicks.app").lambda_handler
    record = sample_event("launcher/clicks")["Records"][0]

    def clicked(event_id: str, snapshot_hash: str) -> dict:
        """The sample event, clicked now: the consumer refuses an event older than it remembers ids."""
        body = {**json.loads(record["body"]), "event_id": event_id, "snapshot_hash": snapshot_hash}
        body["time"] = datetime.now(UTC).isoformat()
        return {"Records": [{**record, "body": json.dumps(body)}]}

    click = clicked("bench-click", json.loads(record["body"])["snapshot_hash"])
    yield "launcher click event", lambda: consumer(click, context("launcher/clicks")), CLICK_BAR
    yield "launcher click event (redelivered)", lambda: consumer(click, context("launcher/clicks")), CLICK_BAR
    for number in range(HASHES_PER_POSTER):  # as many hashes as a poster counts (told apart by their start)
        consumer(clicked(f"bench-hash-{number}", f"{number:016d}".ljust(43, "x")), context("launcher/clicks"))
    new_hash = clicked("bench-new-hash", "N" * 43)
    yield "launcher click event (new hash, full)", lambda: consumer(new_hash, context("launcher/clicks")), CLICK_BAR


def show_launcher(table: TextIO, name: str, call: Callable[[], dict], bar: int) -> int:
    """The calls in all (a call across both tables counts once) and each table's share of them."""
    from local.metering import counting_calls, counting_calls_by_table
    from ott.aws import client
    from ott.config import load_settings
    from ott.launcher.store import LauncherSettings
    from ott.storage.cache import hot_items

    hot_items.forget()  # as in `measure`: the most a request makes
    with counting_calls(client("dynamodb")) as operations, counting_calls_by_table(client("dynamodb")) as calls:
        reply = call()
    if reply.get("statusCode", 200) != 200 or reply.get("batchItemFailures"):
        raise RuntimeError(f"{name}: {reply}")
    launcher_table = load_settings(LauncherSettings).table
    own = sum(count for (table_name, _), count in calls.items() if table_name == launcher_table)
    others = sum(count for (table_name, _), count in calls.items() if table_name != launcher_table)
    total = sum(operations.values())
    missed = total > bar or "Scan" in operations
    detail = ", ".join(f"{operation} x{count}" for operation, count in sorted(operations.items())) or "none"
    split = f"launcher {own}, registry {others}" if others else f"launcher {own}"
    if own + others > total:
        split += f", {own + others - total} of them across both"
    print(f"{name:40} {total:5}  {detail} ({split}; bar: <= {bar}) {'MISSED' if missed else 'ok'}", file=table)
    return int(missed)


def phone_requests(template: Template):
    """confirm (no bar), then verify and checkCode with a code on the way, on the executed state machine."""
    from local.invoke import access_token, context, principal_of, sample_event
    from local.pollers import deliver
    from ott.aws import client
    from ott.phoneconfirm.fakes import outbox

    principal = principal_of(access_token())

    def call(function: str, body: dict) -> dict:
        handler = handler_in(function)
        event = {**sample_event(function), "body": json.dumps(body)}
        event["requestContext"] = {**event["requestContext"], "authorizer": principal}
        return json.loads(handler(event, context(function))["body"])

    started: dict = {}
    yield "phoneconfirm confirm", lambda: started.update(call("phoneconfirm/confirm", {"phone": "79990000002"}))
    worker = next(f for f in template.functions() if f.logical_id == "PhoneChannelWorkerFunction")
    for _ in range(100):  # the state machine hands stage 1 to the worker through the queue
        deliver(client("sqs"), template.queue_url("ChannelQueue"), template.arn("ChannelQueue"), worker)
        if outbox("79990000002"):
            break
        time.sleep(0.1)
    request_id = started["request_id"]
    yield "phoneconfirm verify", lambda: call("phoneconfirm/verify", {"request_id": request_id})
    wrong = "0000" if outbox("79990000002")[0]["code"] != "0000" else "1111"
    yield "phoneconfirm checkCode", lambda: call("phoneconfirm/check_code", {"request_id": request_id, "code": wrong})


def token_requests(grant: Callable[..., dict]):
    """Each grant once, prepared by the requests a client would make before it."""
    from datetime import UTC, datetime

    from ott.auth import verification
    from ott.auth.crypto import token_hash
    from ott.auth.device import PinEntry, confirm, start
    from ott.auth.login import sign_in
    from ott.auth.models import DeviceAuthorizationForm
    from ott.auth.policy import DEVICE_CODE_GRANT, AuthPolicy
    from ott.auth.records import AccessToken, Client
    from ott.auth.store import auth_keys, auth_store
    from ott.config import load_settings

    store, policy, now = auth_store(), load_settings(AuthPolicy), datetime.now(UTC)
    yield "vendor:anonymous", {"grant_type": "vendor:anonymous"}
    issued = json.loads(grant(grant_type="vendor:anonymous")["body"])
    yield "refresh_token", {"grant_type": "refresh_token", "refresh_token": issued["refresh_token"]}
    client = store.get(Client, "demo-tv")
    if client is None:
        raise RuntimeError("the demo client is missing")
    code = sign_in(store, policy, client, REDIRECT, "demo@example.com", "demo-password", now)
    yield "authorization_code", {"grant_type": "authorization_code", "code": code, "redirect_uri": REDIRECT}
    merged = json.loads(grant(grant_type="vendor:anonymous")["body"])
    code = sign_in(store, policy, client, REDIRECT, "demo@example.com", "demo-password", now)
    yield (
        "authorization_code + merge",
        {
            "grant_type": "authorization_code",
            "code": code,
            "redirect_uri": REDIRECT,
            "anonymous_token": merged["access_token"],
        },
    )
    started = start(store, policy, auth_keys(), "demo-tv", "127.0.0.1", now)
    yield "vendor:device_code (pending)", {"grant_type": "vendor:device_code", "device_code": started.device_code}
    signed_in = json.loads(grant(grant_type="vendor:anonymous")["body"])  # the app the PIN is typed in
    access = store.get(AccessToken, token_hash(signed_in["access_token"]))
    if access is None:
        raise RuntimeError("the access token just issued is missing")
    confirm(store, policy, auth_keys(), PinEntry(access, "demo-tv", started.pin, "127.0.0.1", now))
    time.sleep(policy.device_poll_interval)
    yield "vendor:device_code (authorized)", {"grant_type": "vendor:device_code", "device_code": started.device_code}
    form = DeviceAuthorizationForm(client_id="demo-tv", scope="account user_data")
    rfc8628 = verification.start(store, policy, auth_keys(), form, None, "127.0.0.1", "https://bench.example", now)
    polled = {"grant_type": DEVICE_CODE_GRANT, "device_code": rfc8628.device_code}
    yield "RFC 8628 device_code (pending)", polled
    person = ("demo@example.com", "demo-password")
    verification.approve(store, policy, auth_keys(), rfc8628.user_code, person, "127.0.0.1", now)
    yield "RFC 8628 device_code (approved)", polled


def show(table: TextIO, name: str, calls: Counter[str], bar: int | None) -> int:
    total = sum(calls.values())
    missed = (bar is not None and total > bar) or "Scan" in calls
    verdict = "MISSED" if missed else ("ok" if bar is not None else "")
    detail = ", ".join(f"{operation} x{count}" for operation, count in sorted(calls.items())) or "none"
    print(f"{name:40} {total:5}  {detail} {f'(bar <= {bar})' if bar else ''} {verdict}", file=table)
    return int(missed)
