"""Incremental, versioned reloads of the registry (issue 11): only what changed is written, and a reader
during a load sees the old registry or the new one, never a mix."""

import json

import pytest
import yaml

from local.metering import counting_calls
from ops.registry.load import read_catalog
from ott.aws import client
from ott.registry.catalog import compile_catalog, parse_catalog
from ott.registry.layout import entities
from ott.registry.params import TerritoriesParams
from ott.registry.service import list_territories
from ott.registry.store import INDEX_KEY, LOAD_LEASE_SECONDS, ConcurrentLoad, DynamoRegistryStore
from ott.storage.dynamo import dynamo_database
from ott.storage.values import item_to_wire
from tests.conftest import DEMO_REGISTRY, TEMPLATE


def demo_document() -> dict:
    return yaml.safe_load(DEMO_REGISTRY.read_text(encoding="utf-8"))


def store() -> DynamoRegistryStore:
    return DynamoRegistryStore(dynamo_database(), TEMPLATE.physical_name("RegistryTable"), "")


def renamed(document: dict, territory_id: int, name: str) -> dict:
    changed = json.loads(json.dumps(document))
    next(t for t in changed["territories"] if t["territoryId"] == territory_id)["name"] = name
    return changed


def names(reader: DynamoRegistryStore, **params) -> list[str]:
    return [t.name for t in list_territories(reader, TerritoriesParams(**params)).territories]


@pytest.fixture
def loaded(aws):
    store().replace_catalog(read_catalog(DEMO_REGISTRY))
    return demo_document()


def test_a_reload_with_one_changed_name_writes_a_handful_of_items(loaded):
    document = renamed(loaded, 5, "Королёв-Наукоград")
    with counting_calls(client("dynamodb")) as calls:
        written = store().replace_catalog(compile_catalog(parse_catalog(document)))
    # the territory, its child and name entries (old ones kept for readers, new ones), manifest chunks, pointer
    assert written <= 12
    assert calls["BatchWriteItem"] == 1 and "Scan" not in calls
    assert names(store(), q="королёв-") == ["Королёв-Наукоград"]
    assert names(store(), q="королев", parents=1) == ["Королёв-Наукоград"]
    assert store().replace_catalog(compile_catalog(parse_catalog(document))) <= 6  # old entries purged, nothing else


def test_a_reader_during_a_load_sees_the_old_registry_until_the_pointer_moves(loaded, monkeypatch):
    reader = store()
    old = names(store(), territory=4) + names(store(), q="кор") + names(store(), q="подмос")
    seen: dict[str, list[str]] = {}
    publish = DynamoRegistryStore._publish

    def look_then_publish(self, index, load, audited):
        reader.index()  # a request starting now, with the new items already written
        seen["during"] = names(reader, territory=4) + names(reader, q="кор") + names(reader, q="подмос")
        publish(self, index, load, audited)

    monkeypatch.setattr(DynamoRegistryStore, "_publish", look_then_publish)
    document = renamed(renamed(loaded, 5, "Корабельный"), 4, "Подмосковье")
    store().replace_catalog(compile_catalog(parse_catalog(document)))
    assert old == ["Королёв", "Королёв"]
    assert seen["during"] == old
    assert names(store(), territory=4) == ["Корабельный"]
    assert names(store(), q="подмос") == ["Подмосковье"]
    assert names(store(), q="королёв") == []
    assert names(store(), q="корабел", parents=1)[0] == "Корабельный"


def test_a_load_that_never_published_is_never_seen(loaded, monkeypatch):
    def crash(self, index, load, audited):
        raise RuntimeError("the operator's laptop went to sleep")

    with monkeypatch.context() as patched:
        patched.setattr(DynamoRegistryStore, "_publish", crash)
        with pytest.raises(RuntimeError):
            store().replace_catalog(compile_catalog(parse_catalog(renamed(loaded, 5, "Сломанный"))))
    assert names(store(), q="королёв") == ["Королёв"]
    assert names(store(), q="слом") == []
    store().replace_catalog(compile_catalog(parse_catalog(renamed(loaded, 3, "Москва-Сити"))))
    assert names(store(), q="королёв") == ["Королёв"]  # the failed load's item stays unseen
    assert names(store(), q="слом") == []
    assert names(store(), q="москва-") == ["Москва-Сити"]


def test_a_second_load_while_one_is_writing_is_refused_and_the_first_is_published(loaded, monkeypatch):
    publish = DynamoRegistryStore._publish
    refused: list[ConcurrentLoad] = []

    def second_load_meanwhile(self, index, load, audited):
        try:
            store().replace_catalog(compile_catalog(parse_catalog(renamed(loaded, 3, "Вторая загрузка"))))
        except ConcurrentLoad as error:
            refused.append(error)
        publish(self, index, load, audited)

    monkeypatch.setattr(DynamoRegistryStore, "_publish", second_load_meanwhile)
    store().replace_catalog(compile_catalog(parse_catalog(renamed(loaded, 5, "Первая загрузка"))))
    assert len(refused) == 1 and "still writing" in str(refused[0])
    assert names(store(), q="первая") == ["Первая загрузка"]
    assert names(store(), q="вторая") == []


def age_the_claim(seconds: int) -> None:
    client("dynamodb").update_item(
        TableName=TEMPLATE.physical_name("RegistryTable"),
        Key=item_to_wire(INDEX_KEY),
        UpdateExpression="SET pendingSince = pendingSince - :age",
        ExpressionAttributeValues={":age": {"N": str(seconds)}},
    )


def test_a_load_that_died_is_taken_over_once_its_claim_is_stale(loaded):
    store()._begin_load()  # a load that claimed the registry, then its process died
    with pytest.raises(ConcurrentLoad):
        store().replace_catalog(compile_catalog(parse_catalog(renamed(loaded, 3, "Слишком рано"))))
    age_the_claim(LOAD_LEASE_SECONDS)
    store().replace_catalog(compile_catalog(parse_catalog(renamed(loaded, 3, "Москва-Сити"))))
    assert names(store(), q="москва-") == ["Москва-Сити"]
    assert names(store(), q="слишком") == []


def test_a_load_whose_claim_was_taken_over_stops_writing_and_is_not_published(loaded, monkeypatch):
    monkeypatch.setattr("ott.registry.store.RENEW_EVERY_BATCHES", 1)
    monkeypatch.setattr("ott.registry.store.BATCH_WRITE_LIMIT", 2)
    write = DynamoRegistryStore._batch_write
    batches: list[int] = []

    def stalled_then_overtaken(self, requests):
        write(self, requests)
        batches.append(len(requests))
        if len(batches) == 1:  # this load stalls past its lease; another load claims the registry
            age_the_claim(LOAD_LEASE_SECONDS)
            other = store()
            monkeypatch.setattr(DynamoRegistryStore, "_batch_write", write)
            other._begin_load()
            monkeypatch.setattr(DynamoRegistryStore, "_batch_write", stalled_then_overtaken)

    monkeypatch.setattr(DynamoRegistryStore, "_batch_write", stalled_then_overtaken)
    document = loaded
    for territory_id in (3, 5, 6, 7):
        document = renamed(document, territory_id, f"Переименовано {territory_id}")
    with pytest.raises(ConcurrentLoad, match="took over"):
        store().replace_catalog(compile_catalog(parse_catalog(document)))
    assert len(batches) == 1  # nothing written after the claim was lost
    assert names(store(), q="переименовано") == []


def test_a_table_written_before_versions_is_taken_over_without_readers_seeing_a_gap(aws, dynamodb, monkeypatch):
    """Tables the loader wrote before issue 11 hold entities only (`pk`, `sk`, `doc`) and no manifest."""
    snapshot = read_catalog(DEMO_REGISTRY)
    table = TEMPLATE.physical_name("RegistryTable")
    legacy = [("INDEX", "current", snapshot.index)] + [(str(k), key, m) for k, key, m in entities(snapshot)]
    for kind, key, model in legacy:
        doc = model.model_dump_json(by_alias=True, exclude={"lineage"} if kind == "PREFIX" else None)
        dynamodb.put_item(TableName=table, Item={"pk": {"S": kind}, "sk": {"S": key}, "doc": {"S": doc}})
    reader = store()
    publish = DynamoRegistryStore._publish
    seen = {}

    def look_then_publish(self, index, load, audited):
        reader.index()
        seen["during"] = (
            {c.contractor_id for c in reader.contractors()},
            len(reader.select(territory_ids=range(20)).territories),
        )
        publish(self, index, load, audited)

    monkeypatch.setattr(DynamoRegistryStore, "_publish", look_then_publish)
    document = demo_document()
    document["contractors"][-1]["name"] = "Переименован"
    gone = document["prefixes"].pop()["CIDR"]
    store().replace_catalog(compile_catalog(parse_catalog(document)))
    assert seen["during"] == ({1, 2}, len(snapshot.territories))
    assert names(store(), territory=4)  # the listings exist now
    assert gone not in {p.cidr for p in store().select(prefix_keys=[p.key for p in snapshot.prefixes]).prefixes}
    assert store().select(contractor_ids=[2]).contractors[2].name == "Переименован"
