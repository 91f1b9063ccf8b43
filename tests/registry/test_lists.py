"""territories, contractors, areas, hubs, hubIsolations, prefixes and knownInfo (spec doc 3, 4.C)."""

import json
from datetime import UTC, datetime

import pytest

from ott.callers import Device
from ott.errors import InvalidInput
from ott.registry.models import KnownInfo, ServiceType
from ott.registry.params import AreaParams, ContractorsParams, PrefixesParams, TerritoriesParams
from ott.registry.service import (
    list_areas,
    list_contractors,
    list_hub_isolations,
    list_hubs,
    list_prefixes,
    list_territories,
    submit_known_info,
)
from ott.registry.store import KnownInfoReport
from tests.fixtures.databases import Clock
from tests.fixtures.stores import name


def reports(database) -> list[KnownInfoReport]:
    """The knownInfo reports as stored (the address counters beside them left out)."""
    return [
        KnownInfoReport(
            report_id=item["reportId"],
            received_at=item["receivedAt"],
            expires_at=item["expiresAt"],
            source_ip=item["sourceIp"],
            uid=item.get("uid"),
            known_info=json.loads(item["knownInfo"]),
            whereami=json.loads(item["whereami"]),
        )
        for item in database.items(name("RegistryReportsTable"))
        if not item["reportId"].startswith("COUNTER#")
    ]


def territory_ids(store, **params):
    return [t.territory_id for t in list_territories(store, TerritoriesParams(**params)).territories]


def contractor_ids(store, **params):
    return [c.contractor_id for c in list_contractors(store, ContractorsParams(**params)).contractors]


def test_without_filters_territories_are_the_worlds_top_level(store):
    assert territory_ids(store) == [10, 1]  # sorted by name: Казахстан, Россия


def test_territory_lists_its_children(store):
    assert territory_ids(store, territory=2) == [3, 4]


@pytest.mark.parametrize("query", ["королев", "КОРОЛЁВ", "Королё", "Королев"])
def test_name_prefix_search_ignores_case_and_treats_yo_as_ye(store, query):
    assert territory_ids(store, q=query) == [5]


def test_name_search_is_a_prefix_match_within_the_given_territory(store):
    assert territory_ids(store, q="моск") == [3, 4]
    assert territory_ids(store, q="моск", territory=4) == []
    assert territory_ids(store, q="ролёв") == []


def test_territories_by_id(store):
    assert territory_ids(store, id=[7, 3, 999]) == [3, 7]


def test_territories_owned_by_a_contractor_include_those_below_its_own(store):
    assert territory_ids(store, q="м", contractor=1) == [3, 4]
    assert territory_ids(store, q="м", contractor=2) == []


def test_parents_nests_that_many_ancestors(store):
    (korolev,) = list_territories(store, TerritoriesParams(id=[5], parents=2)).territories
    assert korolev.parent.territory_id == 4
    assert korolev.parent.parent.territory_id == 2
    assert korolev.parent.parent.parent is None
    (plain,) = list_territories(store, TerritoriesParams(id=[5])).territories
    assert plain.parent is None
    assert plain.is_leaf is True and plain.parent_id == 4 and plain.timezone == 10800


def test_contractors_filters(store):
    assert contractor_ids(store) == [1, 2, 3]
    assert contractor_ids(store, id=[3, 1]) == [1, 3]
    assert contractor_ids(store, area=2) == [2]
    assert contractor_ids(store, territory=5) == [1]  # serves 2, an ancestor of 5


@pytest.mark.parametrize(("query", "expected"), [("телеком", [1]), ("СЕВЕР", [2]), ("елка", [3]), ("ёлка", [3])])
def test_contractors_q_matches_part_of_the_name_or_brand(store, query, expected):
    assert contractor_ids(store, q=query) == expected


def test_contractors_offering_every_listed_service(store):
    assert contractor_ids(store, services=[ServiceType.AUTH]) == [1]
    assert contractor_ids(store, services=[ServiceType.REGISTRY, ServiceType.FILMS]) == [2]
    assert contractor_ids(store, services=[ServiceType.WEATHER]) == []


def test_areas_given_detected_from_the_network_or_all(store):
    client = Device("198.51.100.1")
    assert [a.area_id for a in list_areas(store, AreaParams(area=1), client).areas] == [1]
    assert [a.area_id for a in list_areas(store, AreaParams(), client).areas] == [2]
    unknown = Device("192.0.2.1")
    assert [a.area_id for a in list_areas(store, AreaParams(), unknown).areas] == [1, 2]


def test_hubs_of_an_area_carry_their_area_list(store):
    assert [h.name for h in list_hubs(store, AreaParams()).hubs] == ["h1", "h2", "h3"]
    hubs = list_hubs(store, AreaParams(area=2)).hubs
    assert [h.name for h in hubs] == ["h2", "h3"]
    assert [a.area_id for a in hubs[1].areas.areas] == [1, 2]
    assert hubs[1].node_address.port == 4111


def test_hub_isolations_touching_an_area(store):
    assert len(list_hub_isolations(store, AreaParams()).hub_isolations) == 2
    assert [(i.from_hub, i.to_hub) for i in list_hub_isolations(store, AreaParams(area=1)).hub_isolations] == [
        ("h1", "h2"),
        ("h2", "h3"),
    ]


def test_prefixes_need_a_filter(store):
    with pytest.raises(InvalidInput):
        list_prefixes(store, PrefixesParams())


def test_prefixes_by_contractor_and_territory(store):
    both = list_prefixes(store, PrefixesParams(contractor=[1, 2], territory=[7])).prefixes
    assert [(p.cidr, p.contractor.contractor_id, p.peers_access) for p in both] == [("198.51.100.0/24", 2, True)]
    of_one = list_prefixes(store, PrefixesParams(contractor=[1])).prefixes
    unbound = next(p for p in of_one if p.cidr == "198.51.0.0/16")
    assert [t.territory_id for t in unbound.territories] == [2]  # the contractor's territories
    nat = next(p for p in of_one if p.cidr == "10.0.0.0/8")
    assert nat.nat == "203.0.113.7"


def test_known_info_is_kept_with_the_source_address_and_what_the_registry_saw(store, database):
    client = Device("198.51.100.9")
    info = KnownInfo(contractor_name="Новый оператор", parent_territory_id=6, uid="device-1")
    receipt = submit_known_info(store, info, client, "https://api.example", datetime(2026, 11, 21, tzinfo=UTC))
    (report,) = reports(database)
    assert report.report_id == receipt.id
    assert report.source_ip == "198.51.100.9"
    assert report.uid == "device-1"
    assert report.known_info == {"contractorName": "Новый оператор", "parentTerritoryId": 6, "uid": "device-1"}
    assert report.whereami["contractor"]["contractorId"] == 2
    assert report.whereami["ipAddress"] == "198.51.100.9"


def test_known_info_needs_an_existing_parent_territory(store, database):
    client = Device("198.51.100.9")
    with pytest.raises(InvalidInput, match="parentTerritoryId"):
        submit_known_info(store, KnownInfo(parent_territory_id=404), client, "", datetime.now(UTC))
    assert reports(database) == []


def test_known_info_is_limited_per_address_and_per_ipv6_64(store, database):
    from ott.errors import TooManyRequests
    from ott.registry.service import KNOWN_INFO_PER_ADDRESS_PER_HOUR

    now = datetime(2026, 11, 21, 10, 59, tzinfo=UTC)
    database.clock = Clock(int(now.timestamp()))  # the counters' window expires by the database's clock
    for host in range(KNOWN_INFO_PER_ADDRESS_PER_HOUR):
        submit_known_info(store, KnownInfo(uid="d"), Device(f"2001:db8:1:2::{host + 1:x}"), "", now)
    with pytest.raises(TooManyRequests) as limited:
        submit_known_info(store, KnownInfo(uid="d"), Device("2001:db8:1:2::ffff"), "", now)
    assert limited.value.retry_after == 60  # the rest of the clock hour
    submit_known_info(store, KnownInfo(uid="d"), Device("2001:db8:1:3::1"), "", now)  # another subscriber
    assert len(reports(database)) == KNOWN_INFO_PER_ADDRESS_PER_HOUR + 1
