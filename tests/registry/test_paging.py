"""The registry's lists at scale (issue 11): name and parent indexes, a contractor's territories, paging, bounds."""

import pytest

from ott.errors import InvalidInput
from ott.registry.catalog import compile_catalog, parse_catalog
from ott.registry.layout import Listing, catalog_items, listing_pk
from ott.registry.params import MAX_MATCHES, MAX_PAGE, PrefixesParams, TerritoriesParams
from ott.registry.service import list_prefixes, list_territories
from ott.registry.store import DynamoRegistryStore
from tests.fixtures.databases import memory_database
from tests.fixtures.stores import loaded_registry
from tests.registry.catalog import CATALOG


def territories(store, **params):
    return list_territories(store, TerritoriesParams(**params))


def ids(reply):
    return [t.territory_id for t in reply.territories]


@pytest.mark.parametrize("query", ["КОРОЛЕВ", "королёв", "Корол"])
def test_the_name_index_folds_case_and_yo(store, database, query):
    assert ids(territories(store, q=query)) == [5]
    assert database.calls["Query"] == 1  # one read of the name index, never the whole territory list


def test_children_come_from_their_parents_listing_in_name_order_with_the_total(store, database):
    reply = territories(store, territory=1)
    assert ids(reply) == [6, 2] and reply.total == 2  # Северо-Западный…, Центральный…
    assert database.calls["Query"] == 1  # the listing


def test_a_contractor_alone_lists_the_territories_it_serves(store):
    assert ids(territories(store, contractor=1)) == [2]
    assert ids(territories(store, contractor=2)) == [6]
    assert ids(territories(store, contractor=1, territory=2)) == [3, 4]  # served through their parent
    assert ids(territories(store, contractor=2, territory=1)) == [6]  # only the child it serves


def test_pages_of_territories_carry_the_total(store):
    first = territories(store, territory=2, limit=1)
    second = territories(store, territory=2, limit=1, offset=1)
    assert (ids(first), ids(second), first.total, second.total) == ([3], [4], 2, 2)
    assert ids(territories(store, territory=2, offset=5, limit=1)) == []
    assert ids(territories(store, q="м", limit=1, offset=1)) == [4]


def big_world(children: int) -> DynamoRegistryStore:
    document = {
        "territories": [{"territoryId": 1, "name": "Мир", "parentId": 0}]
        + [{"territoryId": 2 + i, "name": f"Город {i:05d}", "parentId": 1} for i in range(children)],
        "contractors": [{"contractorId": 1, "name": "Оператор", "territories": [1]}],
        "prefixes": [{"CIDR": f"10.{i // 256}.{i % 256}.0/24", "contractor": 1} for i in range(children)],
    }
    return loaded_registry(memory_database(), compile_catalog(parse_catalog(document)))


def test_a_list_beyond_the_bound_asks_to_narrow_or_page():
    store = big_world(MAX_PAGE + 1)
    with pytest.raises(InvalidInput, match="narrow the query or ask for pages"):
        territories(store, territory=1)
    with pytest.raises(InvalidInput, match="narrow the query or ask for pages"):
        territories(store, q="город")
    with pytest.raises(InvalidInput, match="narrow the query or ask for pages"):
        list_prefixes(store, PrefixesParams(contractor=[1]))
    page = territories(store, territory=1, offset=MAX_PAGE, limit=10)
    assert page.total == MAX_PAGE + 1
    assert [t.name for t in page.territories] == [f"Город {MAX_PAGE:05d}"]
    prefixes = list_prefixes(store, PrefixesParams(contractor=[1], limit=2, offset=1))
    assert prefixes.total == MAX_PAGE + 1
    assert [p.cidr for p in prefixes.prefixes] == ["10.0.1.0/24", "10.0.2.0/24"]  # address order


def test_prefixes_of_a_territory_come_from_its_listing(store):
    reply = list_prefixes(store, PrefixesParams(territory=[5]))
    assert sorted(p.cidr for p in reply.prefixes) == ["10.1.0.0/24", "2001:db8:1::/48"]
    assert reply.total == 2


def test_parents_are_nested_from_the_stored_lineage(store):
    (korolev,) = territories(store, q="королев", parents=1).territories
    assert korolev.parent.territory_id == 4 and korolev.parent.parent is None


@pytest.mark.slow
def test_a_name_prefix_matching_more_than_a_filter_may_examine_asks_to_narrow():
    store = big_world(MAX_MATCHES + 1)
    with pytest.raises(InvalidInput, match=f"more than {MAX_MATCHES} territory names match: narrow the query"):
        territories(store, q="г", limit=10)
    assert territories(store, q="город 0000", limit=5).total == 10


def test_the_layout_has_a_listing_per_parent_contractor_territory_and_area_and_a_folded_name_index():
    snapshot = compile_catalog(parse_catalog(CATALOG))
    items = catalog_items(snapshot)
    assert items[("NAME#к", "королев\t0000000005")] == "[4, 2, 1]"  # ё folded, ancestors for the filters
    assert items[(listing_pk(Listing.CHILDREN, 0), "#")] == "2"  # Россия, Казахстан
    assert items[(listing_pk(Listing.CHILDREN, 2), "=москва\t0000000003")] == "3"
    assert items[(listing_pk(Listing.CONTRACTOR_PREFIXES, 2), "#")] == "2"
    assert items[(listing_pk(Listing.TERRITORY_PREFIXES, 2), "#")] == "1"  # 198.51.0.0/16 lends contractor 1's
    assert items[(listing_pk(Listing.AREA_HUBS, 2), "#")] == "2"
