"""DynamoDB calls of GET /channels at 10 and 1,000 channels (issue 10: at most 2 whatever the number), in a
cold process (the reply read from its chunks) and a warm one (the reply it already holds); the same for the
subscriber playlist, GET /channels/playlist.m3u (issue 19: at most 3, the same at both sizes)."""

import importlib
import os
from datetime import UTC, datetime

from bench import QUIET, quiet
from bench.dynamodb_calls import show
from local.template import REGION, Template

BAR = 2
PLAYLIST_BAR = 3
SIZES = (10, 1000)


def configuration(count: int) -> dict:
    """`count` channels, each with an HLS stream (timeshift, recordings, a User-Agent rule) and a UDP one."""
    return {
        "title": f"{count} channels",
        "channels": [
            {
                "id": number,
                "alias": f"channel-{number}",
                "title": f"Канал {number}",
                "logo_url": f"https://static.example.com/logos/{number}.png",
                "streams": [
                    {
                        "id": 1,
                        "url": f"https://edge.example.net/live/{number}/index.m3u8?s=%(session_id)s",
                        "protected_path": f"/protected/{number}/%(filename)s",
                        "has_timeshift": True,
                        "timeshift_url": f"https://ts.example.net/{number}/%(program_id)s.m3u8",
                        "recordable": True,
                        "records_protected_path": f"/records/{number}/%(date_time)s/%(filename)s",
                        "user_agents": {"type": "EXCLUDE", "regexp_list": ["^OldBox/1\\."]},
                    },
                    {"id": 2, "type": "UDP", "url": f"udp://@239.{number // 250}.{number % 250}.1:1234"},
                ],
            }
            for number in range(1, count + 1)
        ],
        "categories": [{"title": "Все", "channels": list(range(1, count + 1))}],
    }


def report_channel_calls() -> int:
    template = Template()
    os.environ.update({"AWS_ACCESS_KEY_ID": "bench", "AWS_SECRET_ACCESS_KEY": "bench", "AWS_DEFAULT_REGION": REGION})
    os.environ.pop("AWS_ENDPOINT_URL", None)
    os.environ.update({**template.environment(), **QUIET})

    from moto import mock_aws

    from local.invoke import context, sample_event
    from local.metering import counting_calls
    from local.moto_speedups import speed_up_dynamodb
    from local.resources import create_all
    from ott.audit import AuditLog
    from ott.auth.playlist_links import new_link
    from ott.auth.records import Account as AuthAccount
    from ott.auth.store import auth_records
    from ott.aws import client, reset_clients
    from ott.callers import Account, Operator
    from ott.channels import store as storage
    from ott.channels.service import publish
    from ott.channels.validation import validate_configuration
    from ott.config import reset_settings
    from ott.recordstore import created
    from ott.storage.dynamo import dynamo_database

    failures = 0
    print("\nDynamoDB calls of GET /channels and the subscriber playlist (moto)")
    print(f"{'request':40} {'calls':>5}  operations")
    speed_up_dynamodb()  # moto's answers and calls, sooner
    with mock_aws(), quiet() as table:
        reset_clients()
        reset_settings()
        create_all(template, client)
        handler = importlib.import_module("functions.channels.list.app").lambda_handler
        playlist_handler = importlib.import_module("functions.channels.playlist.app").lambda_handler
        subscriber = Account(1, "demo-tv", frozenset(), "127.0.0.1", contractor_id=1, territory_id=3)
        auth = auth_records(dynamo_database(), template.physical_name("AuthTable"))
        auth.commit([created(AuthAccount(account_id=1, anonymous=False))])

        def playlist_event() -> dict:
            """A fresh link each time: one link answers once every few seconds."""
            url = new_link(auth, subscriber, "https://bench.example", datetime.now(UTC))
            return {**sample_event("channels/playlist"), "queryStringParameters": {"link": url.split("link=")[1]}}

        audit = AuditLog(dynamo_database(), template.physical_name("AuditTable"), 1)
        channel_store = storage.DynamoChannelStore(dynamo_database(), template.physical_name("ChannelsTable"), audit)
        for count in SIZES:
            valid = validate_configuration(configuration(count))
            info = publish(channel_store, valid, "bench", Operator("bench"), datetime.now(UTC))
            for state in ("cold", "warm"):
                if state == "cold":
                    storage.forget_read_replies()
                with counting_calls(client("dynamodb")) as calls:
                    reply = handler(sample_event("channels/list"), context("channels/list"))
                if reply["statusCode"] != 200:
                    raise RuntimeError(f"/channels at {count} channels: {reply['body']}")
                name = f"channels {count} ({info.size // 1000} KB, {state})"
                failures += show(table, name, calls, BAR)
                event = playlist_event()
                if state == "cold":
                    storage.forget_read_replies()
                with counting_calls(client("dynamodb")) as calls:
                    reply = playlist_handler(event, context("channels/playlist"))
                if reply["statusCode"] != 200:
                    raise RuntimeError(f"playlist at {count} channels: {reply['body']}")
                failures += show(table, f"playlist {count} ({state})", calls, PLAYLIST_BAR)
    return failures
