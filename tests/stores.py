"""Every service's store over a database (tests.databases), its tables named as template.yaml names them:
what unit tests use in place of hand-written fakes, and what the contract runs over memory and moto alike."""

from typing import TYPE_CHECKING

from ott.audit import AuditLog
from ott.auth.store import auth_records
from ott.channels.store import DynamoChannelStore
from ott.nichecontent.store import DynamoNicheStore
from ott.phoneconfirm.store import phone_records
from ott.recordstore import DynamoRecordStore
from ott.registry.catalog import CatalogSnapshot
from ott.registry.store import DynamoRegistryStore, registry_pointer
from ott.storage import Database
from ott.tvguide.store import DynamoGuideStore, channel_doc, telecast_row
from tests.conftest import TEMPLATE

if TYPE_CHECKING:
    from ott.launcher.store import DynamoLauncherStore


def name(logical_id: str) -> str:
    return TEMPLATE.physical_name(logical_id)


def audit_log(database: Database) -> AuditLog:
    """The audit trail, entries kept as long as the template's default says."""
    return AuditLog(database, name("AuditTable"), int(TEMPLATE.document["Parameters"]["AuditRetentionDays"]["Default"]))


def auth_store(database: Database) -> DynamoRecordStore:
    return auth_records(database, name("AuthTable"))


def phone_store(database: Database) -> DynamoRecordStore:
    return phone_records(database, name("PhoneTable"), name("AuthTable"))


def registry_store(database: Database) -> DynamoRegistryStore:
    return DynamoRegistryStore(database, name("RegistryTable"), name("RegistryReportsTable"))


def loaded_registry(database: Database, snapshot: CatalogSnapshot) -> DynamoRegistryStore:
    """The registry holding `snapshot`, loaded as the operator's loader loads it, its calls not counted."""
    registry_store(database).replace_catalog(snapshot)
    calls = getattr(database, "calls", None)
    if calls is not None:
        calls.clear()
    return registry_store(database)


def channel_store(database: Database) -> DynamoChannelStore:
    return DynamoChannelStore(database, name("ChannelsTable"), audit_log(database))


def niche_store(database: Database) -> DynamoNicheStore:
    return DynamoNicheStore(database, name("NicheContentTable"))


def launcher_store(database: Database, *, with_registry: bool = False) -> "DynamoLauncherStore":
    """With the registry: the block and the registry's pointer read in one call, as the public views do."""
    from ott.launcher.store import DynamoLauncherStore  # when used: it imports the X-Ray SDK (a third of a second)

    pointer = registry_pointer() if with_registry else None
    return DynamoLauncherStore(database, name("LauncherTable"), pointer, audit_log(database))


def guide_store(database: Database, retention_days: int = 0) -> DynamoGuideStore:
    return DynamoGuideStore(database, name("GuideTable"), retention_days)


def guide_as_read(database: Database) -> dict:
    """Everything a client can read of the guide, through a store of its own (as a request has)."""
    reader = guide_store(database)
    catalogue = reader.catalogue()
    days = {
        (zone, number): {day: list(map(telecast_row, telecasts)) for day, telecasts in found.items()}
        for number, record in catalogue.channels.items()
        for zone, dates in record.dates.items()
        if (found := reader.channel_days(zone, number, dates))
    }
    show_ids = {row["h"] for by_day in days.values() for rows in by_day.values() for row in rows if "h" in row}
    channels = {number: (channel_doc(record), record.dates) for number, record in catalogue.channels.items()}
    return {"channels": channels, "days": days, "shows": reader.shows(show_ids)}
