"""The registry data file: validation of the whole file before anything is written."""

import copy

import pytest

from ott.registry.catalog import CatalogError, compile_catalog, parse_catalog
from tests.registry.catalog import CATALOG


def problems_of(document) -> list[str]:
    with pytest.raises(CatalogError) as caught:
        compile_catalog(parse_catalog(document))
    return caught.value.problems


def test_every_broken_reference_is_reported_at_once():
    document = copy.deepcopy(CATALOG)
    document["contractors"][0]["territories"] = [404]
    document["prefixes"][0]["contractor"] = 77
    document["hubIsolations"][0]["toHub"] = "nowhere"
    document["services"][0]["provider"] = 55
    problems = problems_of(document)
    assert len(problems) == 4
    assert any("contractors[0].territories: unknown territory 404" in p for p in problems)
    assert any("prefixes[0].contractor: unknown contractor 77" in p for p in problems)
    assert any("unknown hub nowhere" in p for p in problems)
    assert any("services[0].provider" in p for p in problems)


def test_duplicates_are_refused():
    document = copy.deepcopy(CATALOG)
    document["territories"].append({"territoryId": 3, "name": "Москва ещё раз", "parentId": 2})
    document["prefixes"].append({"CIDR": "198.51.100.0/24", "contractor": 1})
    assert len(problems_of(document)) == 2


def test_a_cycle_in_the_territory_tree_is_refused():
    document = copy.deepcopy(CATALOG)
    document["territories"][0]["parentId"] = 5  # Россия below Королёв
    assert any("own ancestor" in p for p in problems_of(document))


@pytest.mark.parametrize(
    "prefix",
    [
        {"CIDR": "198.51.100.1/24", "contractor": 1},  # host bits set
        {"CIDR": "300.1.1.0/24", "contractor": 1},
        {"CIDR": "198.18.0.0/15", "NAT": "bad", "contractor": 1},
    ],
)
def test_malformed_prefixes_are_refused(prefix):
    document = copy.deepcopy(CATALOG)
    document["prefixes"].append(prefix)
    assert problems_of(document)


def test_nat_is_only_for_private_prefixes():
    document = copy.deepcopy(CATALOG)
    document["prefixes"].append({"CIDR": "93.184.216.0/24", "NAT": "10.9.9.9", "contractor": 1})
    assert any("only private prefixes" in p for p in problems_of(document))


def test_unknown_fields_and_enum_values_are_refused():
    document = copy.deepcopy(CATALOG)
    document["contractors"][0]["supportedOfficeIdioms"] = ["FAX"]
    document["areas"][0]["colour"] = "red"
    assert len(problems_of(document)) == 2


def test_a_valid_catalog_compiles_with_leafness_and_prefix_lengths():
    snapshot = compile_catalog(parse_catalog(CATALOG))
    leaves = {t.territory_id for t in snapshot.territories if t.is_leaf}
    assert leaves == {3, 5, 7, 11}
    assert snapshot.index.prefix_lengths == {4: [24, 16, 8], 6: [48, 32]}


@pytest.mark.parametrize("name", ["h" * 1100, "hub\tone.example", "hub one.example", "-hub.example", ""])
def test_a_hub_name_that_is_no_hostname_is_refused_before_anything_is_written(name):
    # A hub's name is its hostname and keys its items: a sort key over 1024 bytes would fail halfway through
    # a load, and a tab would make two hub isolations one key.
    document = copy.deepcopy(CATALOG)
    document["hubs"][0]["name"] = name
    assert any(p.startswith("hubs[0].name: String should") for p in problems_of(document))
