"""whereami: longest-prefix detection, NAT, overrides and the services offered (spec doc 3, 4.C)."""

import pytest

from ott.callers import Account, Device
from ott.errors import InvalidInput
from ott.registry.location import locate
from ott.registry.models import ApiType
from ott.registry.params import WhereAmIParams
from ott.registry.service import where_am_i

BASE = "https://api.example/v1"


def ask(store, ip, client_id=None, **overrides):
    return where_am_i(store, Device(ip), BASE, WhereAmIParams(client=client_id, **overrides))


def test_the_longest_matching_prefix_wins(store):
    answer = ask(store, "198.51.100.20")
    assert answer.contractor.contractor_id == 2
    assert [t.territory_id for t in answer.territories] == [7]


def test_a_shorter_prefix_covers_the_rest_and_lends_the_contractors_territories(store):
    answer = ask(store, "198.51.7.1")
    assert answer.contractor.contractor_id == 1
    assert [t.territory_id for t in answer.territories] == [2]


def test_ipv6_prefixes_match_by_longest_prefix_too(store):
    assert ask(store, "2001:db8:1::5").contractor.contractor_id == 1
    assert ask(store, "2001:db8:2::5").contractor.contractor_id == 2


def test_an_ipv4_mapped_ipv6_address_is_matched_as_ipv4(store):
    answer = ask(store, "::ffff:198.51.100.20")
    assert answer.contractor.contractor_id == 2
    assert answer.ip_address == "198.51.100.20"


def test_private_addresses_are_reported_through_their_nat_translation(store):
    same_size = ask(store, "10.1.0.42")
    assert same_size.ip_address == "203.0.113.42"
    assert [t.territory_id for t in same_size.territories] == [5]
    single_address = ask(store, "10.200.3.4")
    assert single_address.ip_address == "203.0.113.7"
    assert [t.territory_id for t in single_address.territories] == [3]


def test_territories_carry_their_whole_parent_chain(store):
    territory = ask(store, "10.1.0.1").territories[0]
    chain = []
    while territory is not None:
        chain.append(territory.territory_id)
        territory = territory.parent
    assert chain == [5, 4, 2, 1]


def test_an_unknown_network_gets_no_contractor_and_only_unrestricted_services(store):
    answer = ask(store, "192.0.2.1")
    assert answer.contractor is None
    assert answer.territories == []
    assert [s.type.value for s in answer.services] == ["registry"]
    assert answer.ip_address == "192.0.2.1"


def test_parameters_override_detection(store):
    answer = ask(store, "198.51.100.20", contractor=3, territory=11)
    assert answer.contractor.contractor_id == 3
    assert [t.territory_id for t in answer.territories] == [11]


def test_a_contractor_override_alone_takes_that_contractors_territories(store):
    answer = ask(store, "198.51.100.20", contractor=1)
    assert answer.contractor.contractor_id == 1
    assert [t.territory_id for t in answer.territories] == [2]


def test_a_territory_override_keeps_the_detected_contractor(store):
    answer = ask(store, "198.51.100.20", territory=3)
    assert answer.contractor.contractor_id == 2
    assert [t.territory_id for t in answer.territories] == [3]


@pytest.mark.parametrize(
    ("override", "message"), [({"contractor": 99}, "contractor"), ({"territory": 99}, "territory")]
)
def test_unknown_overrides_are_refused(store, override, message):
    with pytest.raises(InvalidInput, match=message):
        ask(store, "198.51.100.20", **override)


def test_a_malformed_address_is_refused(store):
    with pytest.raises(InvalidInput):
        ask(store, "not-an-ip")


def test_services_follow_contractor_territory_and_client_rules(store):
    spb = {s.type.value for s in ask(store, "198.51.100.20").services}
    assert spb == {"registry", "tv_guide", "films"}
    moscow = {s.type.value for s in ask(store, "198.51.7.1").services}
    assert moscow == {"registry", "auth"}
    stb = {s.type.value for s in ask(store, "198.51.7.1", client_id="second-stb-maker").services}
    assert stb == {"registry", "auth", "iptv"}


def test_a_bearer_token_names_the_client_and_the_client_parameter_is_only_a_claim(store):
    signed_in = Account(42, "second-stb-maker", frozenset(), "198.51.7.1")
    claim = WhereAmIParams(client="first-tv-maker")
    assert "iptv" in {s.type.value for s in where_am_i(store, signed_in, BASE, claim).services}
    assert "iptv" not in {s.type.value for s in ask(store, "198.51.7.1", client_id="first-tv-maker").services}


def test_a_service_offered_on_a_territory_is_offered_on_its_descendants(store):
    # tv_guide is offered on territory 6; 7 (Санкт-Петербург) lies below it.
    answer = ask(store, "198.51.7.1", contractor=1, territory=7)
    assert "tv_guide" in {s.type.value for s in answer.services}


def test_api_versions_keep_their_failover_order_and_locations_are_resolved(store):
    services = {s.type.value: s for s in ask(store, "198.51.7.1").services}
    assert [v.location for v in services["auth"].api_versions] == [
        "https://auth-a.example/auth/2/",
        "https://auth-b.example/auth/2/",
    ]
    assert services["registry"].api_versions[0].location == f"{BASE}/registry/2/"
    assert services["auth"].contractor.name == "ООО «Демо Телеком»"


def test_the_deprecated_apis_list_mirrors_films_and_iptv_services(store):
    apis = ask(store, "198.51.100.20").apis
    assert [(a.api_type, a.name) for a in apis] == [(ApiType.FILMS, "Films")]


def test_whereami_reads_the_store_at_most_three_times(store, database):
    ask(store, "198.51.100.20")
    assert sum(database.calls.values()) <= 3
    database.calls.clear()
    ask(store, "198.51.100.20", contractor=1, territory=3)
    assert sum(database.calls.values()) <= 2


@pytest.mark.parametrize("ip", ["198.51.100.20", "198.51.7.1", "2001:db8:2::5", "::ffff:198.51.100.20", "192.0.2.99"])
def test_locate_gives_other_services_what_whereami_detects(store, ip):
    answer, location = ask(store, ip), locate(store, ip)
    assert location.contractor_id == (answer.contractor.contractor_id if answer.contractor else None)
    assert location.territory_ids == [t.territory_id for t in answer.territories]
    assert location.lineage_ids == {node.territory_id for t in answer.territories for node in lineage(t)}


def lineage(territory):
    while territory is not None:
        yield territory
        territory = territory.parent


def test_locate_names_the_territories_with_their_ancestors_in_three_reads(store, database):
    location = locate(store, "198.51.100.20")
    assert (location.territory_ids, location.lineage_ids) == ([7], {7, 6, 1})
    assert sum(database.calls.values()) <= 3
