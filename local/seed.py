"""The demo data of local/demo/, loaded into an (emulated) account by the local stack and the tests."""

import json
from collections.abc import Collection
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import boto3
import yaml

from local.guide_demo import next_telecast, seed_guide
from local.template import Template
from ott.audit import AuditLog
from ott.auth.admin import create_user, register_client
from ott.auth.playlist_links import PLAYLIST_PATH, new_link
from ott.auth.policy import AuthPolicy
from ott.auth.store import auth_records
from ott.auth.xtream_logins import new_login, playlist_url
from ott.callers import Account, Device, MachineClient, Operator
from ott.channels.service import publish
from ott.channels.store import DynamoChannelStore
from ott.channels.validation import validate_configuration
from ott.config import load_settings
from ott.nichecontent.intake import parse_add_file
from ott.nichecontent.params import read_update
from ott.nichecontent.service import add_item, update_status
from ott.nichecontent.store import DynamoNicheStore, NicheStore
from ott.nichecontent.transitions import RetryPolicy
from ott.recordstore import RecordStore
from ott.registry.catalog import compile_catalog, parse_catalog
from ott.registry.store import DynamoRegistryStore
from ott.storage import Database
from ott.storage.dynamo import DynamoDatabase
from ott.tvguide.store import DynamoGuideStore

DEMO = Path(__file__).resolve().parent / "demo"
# Who the audit trail names for what the demo seeding changes.
DEMO_OPERATOR = Operator("demo data")


def demo_document(name: str) -> Any:
    """A file of local/demo/, parsed (the demo seeding reads its files itself: the local stack uses no ops)."""
    return yaml.safe_load((DEMO / name).read_text(encoding="utf-8"))


# The services whose demo data `make run` loads, in the order they are loaded: the launcher's posters may take
# from the guide. The registry and the demo clients and users come first, always.
DEMO_SERVICES = ("channels", "nichecontent", "tvguide", "launcher")


def seed_demo(template: Template, dynamodb: Any, services: Collection[str] = DEMO_SERVICES) -> None:
    """The registry, the demo clients and users, and the demo data of `services` (tests name only theirs)."""
    seed_registry_and_auth(template, dynamodb)
    for service in DEMO_SERVICES:
        if service in services:
            seed_service(template, dynamodb, service, services)


def seed_registry_and_auth(template: Template, dynamodb: Any) -> None:
    """What every service needs first: the registry, and the demo clients and users."""
    database = DynamoDatabase(dynamodb)
    registry = DynamoRegistryStore(database, template.physical_name("RegistryTable"), reports_table="")
    registry.replace_catalog(compile_catalog(parse_catalog(demo_document("registry.yaml"))))
    seed_auth(auth_records(database, template.physical_name("AuthTable")))


def seed_service(template: Template, dynamodb: Any, service: str, services: Collection[str]) -> None:
    """The demo data of one of DEMO_SERVICES, after those before it; `services`: all that are loaded."""
    database = DynamoDatabase(dynamodb)
    guide = DynamoGuideStore(database, template.physical_name("GuideTable"))
    if service == "channels":
        seed_channels(template, database)
    elif service == "nichecontent":
        seed_niche_content(DynamoNicheStore(database, template.physical_name("NicheContentTable")), datetime.now(UTC))
    elif service == "tvguide":
        now = datetime.now(UTC)
        seed_guide(guide, now.date(), now)
        export_demo_guide(template, guide)
    elif service == "launcher":
        block = demo_document("launcher.yaml")
        if "tvguide" in services:
            bind_to_demo_guide(block, guide, datetime.now(UTC))
        seed_launcher(template, database, block)
    else:
        raise ValueError(f"no demo data for {service!r}")


# The zone of 127.0.0.1 in the demo data: the demo block's telecast poster names a telecast of its guide.
DEMO_POSTER_ZONE = "Europe/Moscow"


def export_demo_guide(template: Template, guide: DynamoGuideStore) -> None:
    """What the export function does after an import, at once: the banner comes with every zone's export written."""
    # Deferred: the guide's service module sets up the functions' metrics, which read the environment the local
    # stack sets only once it starts.
    from ott.tvguide.zone_export import S3ExportBucket, write_zone_export

    exports = S3ExportBucket(boto3.client("s3"), template.physical_name("GuideExportBucket"))
    for zone in guide.configuration()[0].zones:
        write_zone_export(guide, exports, zone.name)


def bind_to_demo_guide(block: dict[str, Any], guide: DynamoGuideStore, now: datetime) -> None:
    """Each telecast poster of the demo block names the next telecast with its title on its channel in the demo
    guide, which is generated around today, so that a client can open it (telecastInfo) from the poster."""
    for poster in block["posters"]:
        if poster["type"] == "TELECAST":
            found = next_telecast(guide, DEMO_POSTER_ZONE, poster["channel_id"], poster["title"], now)
            if found is not None:
                poster["telecast_id"] = found


def seed_channels(template: Template, database: Database) -> None:
    """The demo channel configuration (local/demo/channels.yaml) as its first version."""
    store = DynamoChannelStore(database, template.physical_name("ChannelsTable"), demo_audit_log(template, database))
    valid = validate_configuration(demo_document("channels.yaml"))
    publish(store, valid, "channels.yaml", DEMO_OPERATOR, datetime.now(UTC))


def demo_audit_log(template: Template, database: Database) -> AuditLog:
    """The audit trail of the emulated account, entries kept as long as the template's default says."""
    retention = int(template.document["Parameters"]["AuditRetentionDays"]["Default"])
    return AuditLog(database, template.physical_name("AuditTable"), retention)


def demo_api_keys() -> dict[str, str]:
    """The local stack's API keys (local/demo/api_keys.yaml): each value with its name as the key id."""
    demo = demo_document("api_keys.yaml")
    return {entry["value"]: entry["name"] for entry in demo["keys"]}


def seed_auth(store: RecordStore) -> None:
    """The demo clients and users of local/demo/auth.yaml, their passwords hashed at the auth policy's cost."""
    demo = demo_document("auth.yaml")
    cost = load_settings(AuthPolicy).password_hash_cost
    for entry in demo["clients"]:
        register_client(
            store,
            entry["client_id"],
            entry["name"],
            entry["grant_types"],
            entry.get("redirect_uris", []),
            secret=entry.get("secret"),
            requires_pkce=entry.get("requires_pkce", False),
            resource_server=entry.get("resource_server", False),
            public=entry.get("public", False),
            **({"scopes": entry["scopes"]} if "scopes" in entry else {}),
            **({"access_ttl": entry["access_ttl"]} if "access_ttl" in entry else {}),
        )
    for entry in demo["users"]:
        account_id = create_user(
            store,
            entry["username"],
            entry["password"],
            entry.get("cid"),
            entry.get("confirmed_phone"),
            contractor_id=entry.get("contractor_id"),
            territory_id=entry.get("territory_id"),
            staff_scopes=entry.get("staff_scopes", ()),
            password_hash_cost=cost,
        )
        if link := entry.get("playlist_link"):
            home = {"contractor_id": link["contractor_id"], "territory_id": link["territory_id"]}
            subscriber = Account(account_id, "demo-tv", frozenset(), "127.0.0.1", **home)
            new_link(store, subscriber, "", datetime.now(UTC), secret=link["secret"])
        if xtream := entry.get("xtream_login"):
            home = {"contractor_id": xtream["contractor_id"], "territory_id": xtream["territory_id"]}
            subscriber = Account(account_id, "demo-tv", frozenset(), "127.0.0.1", **home)
            new_login(store, subscriber, "", datetime.now(UTC), demo=(xtream["username"], xtream["password"]))


def demo_playlist_path() -> str:
    """The path (with its link) of the demo subscriber's playlist."""
    (link,) = [entry["playlist_link"] for entry in demo_document("auth.yaml")["users"] if "playlist_link" in entry]
    return f"{PLAYLIST_PATH}?link={link['secret']}"


def demo_xtream_login() -> tuple[str, str]:
    """The demo subscriber's Xtream username and password."""
    (login,) = [entry["xtream_login"] for entry in demo_document("auth.yaml")["users"] if "xtream_login" in entry]
    return login["username"], login["password"]


def demo_xtream_path() -> str:
    """The path of the demo subscriber's Xtream M3U link, as providers hand it out."""
    return playlist_url("", *demo_xtream_login())


def seed_niche_content(store: NicheStore, now: datetime) -> None:
    """The items of local/demo/niche_content.yaml, queued a minute apart up to `now` in file order, then the
    demo encoder's updates of niche_content_progress.yaml."""
    items = parse_add_file(demo_document("niche_content.yaml"))
    for place, item in enumerate(items):
        add_item(store, item, now - timedelta(minutes=len(items) - place))
    progress = demo_document("niche_content_progress.yaml")
    for item_id, updates in progress["updates"].items():
        for update in updates:
            update = read_update({**update, "id": item_id})
            update_status(store, RetryPolicy(), update, MachineClient(progress["encoder"]), now)


def seed_launcher(template: Template, database: Database, block: dict[str, Any]) -> None:
    """The demo block (local/demo/launcher.yaml), loaded as ops.launcher.load loads it, and the demo clicks
    of local/demo/launcher_clicks.yaml counted by the click consumer's domain function."""
    from ott.launcher.guide import programme_guide
    from ott.launcher.params import PostersParams
    from ott.launcher.service import answer_posters, count_click, load_block, take_snapshot
    from ott.launcher.store import DynamoLauncherStore

    store = DynamoLauncherStore(
        database, template.physical_name("LauncherTable"), audit=demo_audit_log(template, database)
    )
    now = datetime.now(UTC)
    load_block(store, block, programme_guide(), DEMO_OPERATOR, now)
    registry = DynamoRegistryStore(database, template.physical_name("RegistryTable"), reports_table="")
    seen = answer_posters(store, registry, Device("127.0.0.1"), PostersParams(), now).snapshot_hash
    clicks = demo_document("launcher_clicks.yaml")["clicks"]
    for group, entry in enumerate(clicks):
        for n in range(entry["count"]):
            event = {
                "event_id": f"demo-{group}-{n}",
                "poster_id": entry["poster_id"],
                "snapshot_hash": seen,
                "device_id": f"demo-stb-{n % 4}",
                "time": (now - timedelta(hours=entry["hours_ago"])).isoformat(),
            }
            count_click(store, json.dumps(event), now)
    take_snapshot(store, now)  # so that time travel shows the demo clicks too
