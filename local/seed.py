"""The demo data of local/demo/, loaded into an (emulated) account by the local stack and the tests."""

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import yaml

from local.guide_demo import seed_guide
from local.template import Template
from ops.registry_load import load
from ott.auth.admin import create_user, register_client
from ott.auth.store import auth_records
from ott.recordstore import RecordStore
from ott.tvguide.store import DynamoGuideStore

DEMO = Path(__file__).resolve().parent / "demo"


def seed_demo(template: Template, dynamodb: Any) -> None:
    load(DEMO / "registry.yaml", template.physical_name("RegistryTable"), dynamodb)
    seed_auth(auth_records(dynamodb, template.physical_name("AuthTable")))
    seed_guide(DynamoGuideStore(dynamodb, template.physical_name("GuideTable")), datetime.now(UTC).date())


def seed_auth(store: RecordStore) -> None:
    """The demo clients and users of local/demo/auth.yaml."""
    demo = yaml.safe_load((DEMO / "auth.yaml").read_text(encoding="utf-8"))
    for entry in demo["clients"]:
        register_client(
            store,
            entry["client_id"],
            entry["name"],
            entry["grant_types"],
            entry.get("redirect_uris", []),
            secret=entry["secret"],
            requires_pkce=entry.get("requires_pkce", False),
        )
    for entry in demo["users"]:
        create_user(store, entry["username"], entry["password"], entry.get("cid"), entry.get("confirmed_phone"))
