"""DynamoDB calls of the Xtream Codes front door (issue 29) on the demo data in moto: the account's info (bar 2),
get_live_streams (3), get_short_epg (2; 1 warm: the channel's days are hot items) and a /live/ redirect with its
screen (3). Each in a container whose hot items are stale (the most a request makes: every HOT_ITEM_SECONDS per
container, those items come with the login) and in a warm one (hot items younger than HOT_ITEM_SECONDS: what almost
every request of a player meets), both holding the configuration's reply; get_live_streams also at 10 and 1,000
channels, in a cold process (the reply read from its chunks) and a warm one."""

import importlib
import os
from collections.abc import Callable
from datetime import UTC, datetime

from bench import QUIET, hot_items_off, quiet
from bench.channels.calls import configuration
from bench.dynamodb_calls import show
from local.template import REGION, Template

BARS = {"account info": 2, "get_live_streams": 3, "get_short_epg": 2, "live redirect": 3}
WARM_BARS = {**BARS, "get_short_epg": 1}
SIZES = (10, 1000)
KOROLEV = 5  # the demo registry's territory under Московская область: no zone of the demo guide names either


def report_xtream_calls() -> int:
    template = Template()
    os.environ.update({"AWS_ACCESS_KEY_ID": "bench", "AWS_SECRET_ACCESS_KEY": "bench", "AWS_DEFAULT_REGION": REGION})
    os.environ.pop("AWS_ENDPOINT_URL", None)
    os.environ.update({**template.environment(), **QUIET, "HOT_ITEM_SECONDS": "5"})

    from moto import mock_aws

    from local.invoke import context, sample_event
    from local.metering import counting_calls
    from local.moto_speedups import speed_up_dynamodb
    from local.resources import create_all
    from local.seed import demo_xtream_login, seed_demo
    from ott.audit import AuditLog
    from ott.aws import client, reset_clients
    from ott.callers import Operator
    from ott.channels import store as storage
    from ott.channels.service import publish
    from ott.channels.validation import validate_configuration
    from ott.config import reset_settings
    from ott.storage.cache import hot_items
    from ott.storage.dynamo import dynamo_database

    username, password = demo_xtream_login()
    login = {"username": username, "password": password}

    def lineage_login() -> dict[str, str]:
        """A login of the demo account at Королёв, which no zone of the demo guide names."""
        from ott.auth.store import auth_store
        from ott.auth.xtream_logins import new_login
        from ott.auth.xtream_records import XtreamLogin
        from ott.callers import Account

        store = auth_store()
        demo = store.get(XtreamLogin, username)
        if demo is None:
            raise RuntimeError("the demo data has no Xtream login")
        caller = Account(
            demo.account_id, "demo-tv", frozenset({"account"}), "127.0.0.1", contractor_id=1, territory_id=KOROLEV
        )
        made = new_login(store, caller, "", datetime.now(UTC))
        return {"username": made.username, "password": made.password}

    def api(who: dict[str, str] = login, **query: str) -> Callable[[], dict]:
        handler = importlib.import_module("functions.channels.xtream_player_api.app").lambda_handler
        event = {**sample_event("channels/xtream_player_api"), "queryStringParameters": {**who, **query}}
        return lambda: handler(event, context("channels/xtream_player_api"))

    def live(address: str) -> Callable[[], dict]:
        handler = importlib.import_module("functions.channels.xtream_live.app").lambda_handler
        event = sample_event("channels/xtream_live")
        event["requestContext"]["identity"]["sourceIp"] = address
        return lambda: handler(event, context("channels/xtream_live"))

    requests = {
        "account info": lambda _: api(),
        "get_live_streams": lambda _: api(action="get_live_streams"),
        "get_short_epg": lambda _: api(action="get_short_epg", stream_id="101"),
        "live redirect": lambda n: live(f"198.51.100.{n}"),  # a new screen each time: a start and its write
    }
    failures = 0
    print("\nDynamoDB calls of the Xtream Codes player API (demo data in moto)")
    print(f"{'request':40} {'calls':>5}  operations")
    speed_up_dynamodb()
    with mock_aws(), quiet() as table:
        reset_clients()
        reset_settings()
        create_all(template, client)
        with hot_items_off():
            seed_demo(template, client("dynamodb"))
        api(action="get_live_streams")()  # the process holds the configuration's reply from now on
        for number, (name, request) in enumerate(requests.items(), start=1):
            hot_items.forget()
            with counting_calls(client("dynamodb")) as calls:
                reply = request(number)()
            if reply["statusCode"] not in (200, 302):
                raise RuntimeError(f"{name}: {reply['body']}")
            failures += show(table, f"{name} (stale hot items)", calls, BARS[name])
            with counting_calls(client("dynamodb")) as calls:
                reply = request(number + 10)()
            failures += show(table, f"{name} (warm)", calls, WARM_BARS[name])
        # A login whose territory no zone names (Королёв): its zone (the EPG's, the server's time zone) depends on its
        # lineage, the registry's node of the territory, which only the login names. Login, node, days (the
        # account's info: login, screens, node): a third call when the node is not held.
        elsewhere = lineage_login()
        for name, query in (("account info", {}), ("get_short_epg", {"action": "get_short_epg", "stream_id": "101"})):
            for state in ("stale hot items", "warm"):
                if state == "stale hot items":
                    hot_items.forget()
                with counting_calls(client("dynamodb")) as calls:
                    reply = api(elsewhere, **query)()
                if reply["statusCode"] != 200:
                    raise RuntimeError(f"{name} at Королёв: {reply['body']}")
                show(table, f"{name}, lineage ({state})", calls, None)
        audit = AuditLog(dynamo_database(), template.physical_name("AuditTable"), 1)
        channels = storage.DynamoChannelStore(dynamo_database(), template.physical_name("ChannelsTable"), audit)
        for size in SIZES:
            publish(
                channels, validate_configuration(configuration(size)), "bench", Operator("bench"), datetime.now(UTC)
            )
            for state in ("cold", "warm"):
                if state == "cold":
                    storage.forget_read_replies()
                    hot_items.forget()
                with counting_calls(client("dynamodb")) as calls:
                    reply = api(action="get_live_streams")()
                if reply["statusCode"] != 200 or reply["body"].count('"stream_id"') != size:
                    raise RuntimeError(f"get_live_streams at {size} channels: {reply['body'][:200]}")
                failures += show(table, f"get_live_streams {size} ({state})", calls, BARS["get_live_streams"])
    return failures


if __name__ == "__main__":
    raise SystemExit(1 if report_xtream_calls() else 0)
