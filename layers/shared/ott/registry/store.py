"""Data access of the registry: the port the domain uses and its DynamoDB adapter.

One table; every item has `pk` (the kind) and `sk` (its key), its content in `doc` as JSON.
Every request path is a GetItem, a BatchGetItem or a Query of one kind's partition: never a Scan.
"""

import json
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from itertools import count
from typing import Any, Protocol, TypeVar

from pydantic import BaseModel, Field

from ott.aws import client
from ott.config import EnvSettings, load_settings
from ott.recordstore import increment_item
from ott.registry.catalog import (
    CatalogIndex,
    CatalogSnapshot,
    ContractorEntry,
    HubEntry,
    PrefixEntry,
    TerritoryNode,
)
from ott.registry.models import Area, HubIsolation


@dataclass
class Selection:
    """Entries read together by their keys; what does not exist is simply absent."""

    contractors: dict[int, ContractorEntry] = field(default_factory=dict)
    territories: dict[int, TerritoryNode] = field(default_factory=dict)
    prefixes: list[PrefixEntry] = field(default_factory=list)


@dataclass(frozen=True)
class KnownInfoReport:
    report_id: str
    received_at: str
    expires_at: int
    source_ip: str
    uid: str | None
    known_info: dict[str, Any]
    whereami: dict[str, Any]


class RegistryStore(Protocol):
    def index(self) -> CatalogIndex: ...
    def select(
        self, contractor_ids: Iterable[int] = (), territory_ids: Iterable[int] = (), prefix_keys: Iterable[str] = ()
    ) -> Selection: ...
    def territories(self) -> list[TerritoryNode]: ...
    def contractors(self) -> list[ContractorEntry]: ...
    def areas(self) -> list[Area]: ...
    def hubs(self) -> list[HubEntry]: ...
    def hub_isolations(self) -> list[HubIsolation]: ...
    def prefixes(self) -> list[PrefixEntry]: ...
    def save_report(self, report: KnownInfoReport) -> None: ...
    def increment(self, counter: str, expires_at: int) -> int: ...
    def replace_catalog(self, snapshot: CatalogSnapshot) -> None: ...


KINDS: dict[str, type[BaseModel]] = {
    "CONTRACTOR": ContractorEntry,
    "TERRITORY": TerritoryNode,
    "AREA": Area,
    "HUB": HubEntry,
    "ISOLATION": HubIsolation,
    "PREFIX": PrefixEntry,
    "INDEX": CatalogIndex,
}
INDEX_KEY = {"pk": {"S": "INDEX"}, "sk": {"S": "current"}}
BATCH_GET_LIMIT = 100
BATCH_WRITE_LIMIT = 25
ModelT = TypeVar("ModelT", bound=BaseModel)


def id_key(number: int) -> str:
    return f"{number:010d}"


def snapshot_items(snapshot: CatalogSnapshot) -> Iterator[tuple[str, str, BaseModel]]:
    """Every item of a snapshot as (kind, key, content)."""
    yield "INDEX", "current", snapshot.index
    for contractor in snapshot.contractors:
        yield "CONTRACTOR", id_key(contractor.contractor_id), contractor
    for territory in snapshot.territories:
        yield "TERRITORY", id_key(territory.territory_id), territory
    for area in snapshot.areas:
        yield "AREA", id_key(area.area_id), area
    for hub in snapshot.hubs:
        yield "HUB", hub.name, hub
    for isolation in snapshot.hub_isolations:
        yield "ISOLATION", f"{isolation.from_hub}\t{isolation.to_hub}", isolation
    for prefix in snapshot.prefixes:
        yield "PREFIX", prefix.key, prefix


class DynamoRegistryStore:
    def __init__(self, client: Any, table: str, reports_table: str) -> None:
        self._client = client
        self._table = table
        self._reports_table = reports_table

    def index(self) -> CatalogIndex:
        item = self._client.get_item(TableName=self._table, Key=INDEX_KEY).get("Item")
        if item is None:
            return CatalogIndex(services=[], prefix_lengths={4: [], 6: []})
        return CatalogIndex.model_validate_json(item["doc"]["S"])

    def select(
        self, contractor_ids: Iterable[int] = (), territory_ids: Iterable[int] = (), prefix_keys: Iterable[str] = ()
    ) -> Selection:
        keys = [("CONTRACTOR", id_key(i)) for i in set(contractor_ids)]
        keys += [("TERRITORY", id_key(i)) for i in set(territory_ids)]
        keys += [("PREFIX", key) for key in set(prefix_keys)]
        selection = Selection()
        for entry in self._batch_get(keys):
            if isinstance(entry, ContractorEntry):
                selection.contractors[entry.contractor_id] = entry
            elif isinstance(entry, TerritoryNode):
                selection.territories[entry.territory_id] = entry
            elif isinstance(entry, PrefixEntry):
                selection.prefixes.append(entry)
        return selection

    def territories(self) -> list[TerritoryNode]:
        return self._query("TERRITORY", TerritoryNode)

    def contractors(self) -> list[ContractorEntry]:
        return self._query("CONTRACTOR", ContractorEntry)

    def areas(self) -> list[Area]:
        return self._query("AREA", Area)

    def hubs(self) -> list[HubEntry]:
        return self._query("HUB", HubEntry)

    def hub_isolations(self) -> list[HubIsolation]:
        return self._query("ISOLATION", HubIsolation)

    def prefixes(self) -> list[PrefixEntry]:
        return self._query("PREFIX", PrefixEntry)

    def save_report(self, report: KnownInfoReport) -> None:
        self._client.put_item(
            TableName=self._reports_table,
            Item={
                "reportId": {"S": report.report_id},
                "receivedAt": {"S": report.received_at},
                "expiresAt": {"N": str(report.expires_at)},
                "sourceIp": {"S": report.source_ip},
                **({"uid": {"S": report.uid}} if report.uid else {}),
                "knownInfo": {"S": json.dumps(report.known_info, ensure_ascii=False)},
                "whereami": {"S": json.dumps(report.whereami, ensure_ascii=False)},
            },
            ConditionExpression="attribute_not_exists(reportId)",
        )

    def increment(self, counter: str, expires_at: int) -> int:
        """Rate-limit counters live among the reports, keyed `COUNTER#<name>`, and expire by the same TTL."""
        key = {"reportId": {"S": f"COUNTER#{counter}"}}
        return increment_item(self._client, self._reports_table, key, "expiresAt", expires_at)

    def replace_catalog(self, snapshot: CatalogSnapshot) -> None:
        """Write every item, the index last, then delete what the new data no longer has."""
        items = list(snapshot_items(snapshot))
        wanted = {(kind, key) for kind, key, _ in items}
        stale = [key for kind in KINDS for key in self._keys(kind) if key not in wanted]
        ordered = sorted(items, key=lambda item: item[0] == "INDEX")
        puts = [
            {"PutRequest": {"Item": {"pk": {"S": k}, "sk": {"S": s}, "doc": {"S": m.model_dump_json(by_alias=True)}}}}
            for k, s, m in ordered
        ]
        deletes = [{"DeleteRequest": {"Key": {"pk": {"S": k}, "sk": {"S": s}}}} for k, s in stale]
        for requests in (puts, deletes):
            for start in range(0, len(requests), BATCH_WRITE_LIMIT):
                self._batch_write(requests[start : start + BATCH_WRITE_LIMIT])

    def _batch_write(self, requests: list[dict]) -> None:
        pending: dict = {self._table: requests}
        for attempt in count():
            pending = self._client.batch_write_item(RequestItems=pending).get("UnprocessedItems") or {}
            if not pending:
                return
            back_off(attempt)

    def _keys(self, kind: str) -> list[tuple[str, str]]:
        return [(kind, item["sk"]["S"]) for item in self._pages(kind, projection="sk")]

    def _query(self, kind: str, model: type[ModelT]) -> list[ModelT]:
        return [model.model_validate_json(item["doc"]["S"]) for item in self._pages(kind)]

    def _pages(self, kind: str, projection: str | None = None) -> Iterator[dict]:
        request: dict[str, Any] = {
            "TableName": self._table,
            "KeyConditionExpression": "pk = :kind",
            "ExpressionAttributeValues": {":kind": {"S": kind}},
        }
        if projection:
            request["ProjectionExpression"] = projection
        while True:
            page = self._client.query(**request)
            yield from page.get("Items", [])
            if "LastEvaluatedKey" not in page:
                return
            request["ExclusiveStartKey"] = page["LastEvaluatedKey"]

    def _batch_get(self, keys: list[tuple[str, str]]) -> Iterator[BaseModel]:
        for start in range(0, len(keys), BATCH_GET_LIMIT):
            chunk = [{"pk": {"S": kind}, "sk": {"S": key}} for kind, key in keys[start : start + BATCH_GET_LIMIT]]
            pending: dict = {self._table: {"Keys": chunk}}
            for attempt in count():
                reply = self._client.batch_get_item(RequestItems=pending)
                for item in reply.get("Responses", {}).get(self._table, []):
                    yield KINDS[item["pk"]["S"]].model_validate_json(item["doc"]["S"])
                pending = reply.get("UnprocessedKeys") or {}
                if not pending:
                    break
                back_off(attempt)


def back_off(attempt: int) -> None:
    """DynamoDB hands back unprocessed keys under throttling: wait before asking again."""
    time.sleep(min(0.05 * 2**attempt, 1.0))


class RegistrySettings(EnvSettings):
    table: str = Field(alias="REGISTRY_TABLE")
    reports_table: str = Field("", alias="REGISTRY_REPORTS_TABLE")


def registry_store() -> DynamoRegistryStore:
    settings = load_settings(RegistrySettings)
    return DynamoRegistryStore(client("dynamodb"), settings.table, settings.reports_table)
