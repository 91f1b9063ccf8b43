"""The registry at scale (issue 11): registries of about 1k, 10k and 60k territories (countries, subdivisions
and cities of ../shared/data/iptv-org-database) with 1k, 1k and 100k prefixes, loaded into moto; per request
the DynamoDB calls, the bytes read and the reply's size, then what a reload with one changed name writes.

Bars: calls and bytes read at 60k within 10% of those at 1k for the listed requests; no request reads more
than 1 MB; no reply over 6 MB (Lambda's response limit)."""

import csv
import ipaddress
import json
import os
import time
from collections import Counter
from pathlib import Path
from typing import Any

from bench import QUIET, quiet
from local.invoke import handler_in
from local.template import REGION, Template

DATA = Path(__file__).resolve().parents[3] / "shared" / "data" / "iptv-org-database"
SIZES = [(1_000, 1_000), (10_000, 1_000), (60_000, 100_000)]
if "BENCH_SIZES" in os.environ:  # e.g. BENCH_SIZES=1000:1000,60000:100000 (territories:prefixes,...)
    SIZES = [(int(t), int(p)) for t, p in (size.split(":") for size in os.environ["BENCH_SIZES"].split(","))]
CONTRACTORS = 20
PROBE_COUNTRY, PROBE_SUBDIVISION = "DE", "DE-BY"
READ_BAR = 1_000_000
REPLY_BAR = 6 * 1024 * 1024
FLAT = 0.10


def registry(territory_count: int, prefix_count: int) -> tuple[dict, dict[str, int]]:
    """A registry document of about `territory_count` territories and its probes (ids used by the requests)."""

    def rows(name: str) -> list[dict[str, str]]:
        with open(DATA / name, encoding="utf-8") as table:
            return list(csv.DictReader(table))

    countries, subdivisions, cities = rows("countries.csv"), rows("subdivisions.csv"), rows("cities.csv")
    # The probe's subdivisions and cities first, so that every size has them.
    subdivisions.sort(key=lambda r: r["country"] != PROBE_COUNTRY)
    cities.sort(key=lambda r: r["subdivision"] != PROBE_SUBDIVISION)
    ids: dict[str, int] = {}
    territories: list[dict] = []

    def add(code: str, name: str, parent: str | None) -> None:
        if len(territories) < territory_count and code not in ids:
            ids[code] = len(territories) + 1
            territories.append({"territoryId": ids[code], "name": name, "parentId": ids.get(parent or "", 0)})

    for row in countries:
        add(row["code"], row["name"], None)
    for row in subdivisions[:40]:
        add(row["code"], row["name"], row["country"])
    for row in cities[:300]:
        add(f"city:{row['code']}:{row['name']}", row["name"], row["subdivision"] or row["country"])
    for row in subdivisions:
        add(row["code"], row["name"], row["country"])
    for row in cities:
        add(f"city:{row['code']}:{row['name']}", row["name"], row["subdivision"] or row["country"])
    top = [t["territoryId"] for t in territories if t["parentId"] == 0]
    contractors = [
        {"contractorId": c + 1, "name": f"Оператор {c + 1}", "territories": top[c::CONTRACTORS], "areas": []}
        for c in range(CONTRACTORS)
    ]
    probe_city = next(t["territoryId"] for t in territories if t["parentId"] == ids[PROBE_SUBDIVISION])
    prefixes = [
        {
            "CIDR": str(ipaddress.IPv4Network((0x0A000000 + (i << 8), 24))),
            "contractor": i % CONTRACTORS + 1,
            "territories": [probe_city if i < 200 else territories[i % len(territories)]["territoryId"]],
        }
        for i in range(prefix_count)
    ]
    services = [
        {
            "id": 1,
            "type": "registry",
            "name": "Registry",
            "provider": 1,
            "apiVersions": [{"majorVersion": 2, "minorVersion": 6, "location": "{base_url}/registry/2/"}],
        }
    ]
    document = {"services": services, "contractors": contractors, "territories": territories, "prefixes": prefixes}
    probes = {"country": ids[PROBE_COUNTRY], "subdivision": ids[PROBE_SUBDIVISION], "city": probe_city}
    return document, probes


def requests(probes: dict[str, int]) -> list[tuple[str, str, dict[str, str] | None, str]]:
    """(label, function, query, source address) of each request measured; all but knownInfo-like writes."""
    countries = ",".join(str(i) for i in range(1, 11))
    return [
        ("whereami", "registry/whereami", None, "10.0.0.7"),
        ("territories id=<10 ids>", "registry/territories", {"id": countries}, ""),
        ("territories q=Liechtenstein", "registry/territories", {"q": "Liechtenstein"}, ""),
        ("territories q=bad (paged)", "registry/territories", {"q": "bad", "limit": "20"}, ""),
        ("territories q=sa, 500, parents=32", "registry/territories", {"q": "sa", "limit": "500", "parents": "32"}, ""),
        (
            "territories parent, limit=50",
            "registry/territories",
            {"territory": str(probes["subdivision"]), "limit": "50", "parents": "2"},
            "",
        ),
        ("contractors id=1,2", "registry/contractors", {"id": "1,2"}, ""),
        ("prefixes contractor, limit=40", "registry/prefixes", {"contractor": "1", "limit": "40"}, ""),
        ("prefixes territory, limit=100", "registry/prefixes", {"territory": str(probes["city"]), "limit": "100"}, ""),
    ]


# Requests whose calls and bytes read must not grow with the registry.
FLAT_REQUESTS = {
    "whereami",
    "territories id=<10 ids>",
    "territories q=Liechtenstein",
    "territories parent, limit=50",
    "contractors id=1,2",
    "prefixes contractor, limit=40",
    "prefixes territory, limit=100",
}


def report_registry_scale() -> int:
    if not DATA.is_dir():
        print(f"\nregistry scale: {DATA} is missing, skipped")
        return 0
    template = Template()
    os.environ.update({"AWS_ACCESS_KEY_ID": "bench", "AWS_SECRET_ACCESS_KEY": "bench", "AWS_DEFAULT_REGION": REGION})
    os.environ.pop("AWS_ENDPOINT_URL", None)
    os.environ.update({**template.environment(), **QUIET})

    from moto import mock_aws

    from local.invoke import context, sample_event
    from local.moto_speedups import speed_up_dynamodb
    from local.resources import create_all
    from ott.aws import client, reset_clients
    from ott.config import reset_settings
    from ott.registry.catalog import compile_catalog, parse_catalog
    from ott.registry.store import DynamoRegistryStore
    from ott.storage.dynamo import DynamoDatabase

    print("\nRegistry at scale (iptv-org countries, subdivisions, cities in moto): calls, bytes read, reply bytes")
    print(f"{'request':34} {'territories':>11} {'prefixes':>8} {'calls':>5} {'read':>9} {'json':>8} {'xml':>8}")
    measured: dict[tuple[str, int], tuple[int, int]] = {}
    failures = 0
    for territory_count, prefix_count in SIZES:
        document, probes = registry(territory_count, prefix_count)
        speed_up_dynamodb()  # moto's answers and calls, sooner
        with mock_aws(), quiet() as table:
            reset_clients()
            reset_settings()
            create_all(template, client)
            dynamodb = client("dynamodb")
            store = DynamoRegistryStore(DynamoDatabase(dynamodb), template.physical_name("RegistryTable"), "")
            started = time.monotonic()
            with Metered(dynamodb) as (calls, _):
                written = store.replace_catalog(compile_catalog(parse_catalog(document)))
            print(
                f"{'full load':34} {len(document['territories']):11} {prefix_count:8} {sum(calls.values()):5} "
                f"{'':>9} {written:>8} items, {time.monotonic() - started:.0f} s",
                file=table,
            )
            for label, function, query, source_ip in requests(probes):
                handler = handler_in(function)
                replies = []
                for fmt in ("json", "xml"):
                    event = sample_event(function)
                    event["path"] = event["path"].rsplit(".", 1)[0] + f".{fmt}"
                    event["queryStringParameters"] = query
                    if source_ip:
                        event["requestContext"]["identity"]["sourceIp"] = source_ip
                    with Metered(dynamodb) as (calls, read):
                        reply = handler(event, context(function))
                    if reply["statusCode"] != 200:
                        raise RuntimeError(f"{label}: {reply['statusCode']} {reply['body'][:200]}")
                    replies.append(len(reply["body"].encode()))
                total_calls, total_read = sum(calls.values()), read[0]
                measured[(label, territory_count)] = (total_calls, total_read)
                missed = total_read > READ_BAR or max(replies) > REPLY_BAR or "Scan" in calls
                failures += missed
                print(
                    f"{label:34} {len(document['territories']):11} {prefix_count:8} {total_calls:5} {total_read:9} "
                    f"{replies[0]:8} {replies[1]:8} {'MISSED' if missed else ''}",
                    file=table,
                )
            changed = json.loads(json.dumps(document))
            changed["territories"][-1]["name"] += " (renamed)"
            started = time.monotonic()
            with Metered(dynamodb) as (calls, _):
                written = store.replace_catalog(compile_catalog(parse_catalog(changed)))
            print(
                f"{'reload, one name changed':34} {len(document['territories']):11} {prefix_count:8} "
                f"{sum(calls.values()):5} {'':>9} {written:>8} items, {time.monotonic() - started:.1f} s",
                file=table,
            )
            failures += written > 20
    small, large = SIZES[0][0], SIZES[-1][0]
    for label in sorted(FLAT_REQUESTS):
        (calls_small, read_small), (calls_large, read_large) = measured[(label, small)], measured[(label, large)]
        flat = calls_large <= calls_small * (1 + FLAT) and read_large <= read_small * (1 + FLAT)
        failures += not flat
        print(
            f"{label:34} at {large} vs {small}: calls {calls_large} / {calls_small}, read {read_large} / "
            f"{read_small}: {'ok' if flat else 'MISSED (grows with the registry)'}"
        )
    return failures


class Metered:
    """Count the calls `client` makes and the bytes its replies carry while the block runs."""

    def __init__(self, client: Any) -> None:
        self.client = client
        self.calls: Counter[str] = Counter()
        self.read = [0]

    def __enter__(self) -> tuple[Counter[str], list[int]]:
        self.client.meta.events.register("before-call", self._call)
        self.client.meta.events.register("after-call", self._read)
        return self.calls, self.read

    def __exit__(self, *_: object) -> None:
        self.client.meta.events.unregister("before-call", self._call)
        self.client.meta.events.unregister("after-call", self._read)

    def _call(self, model: Any, **_: Any) -> None:
        self.calls[model.name] += 1

    def _read(self, http_response: Any, model: Any, **_: Any) -> None:
        if model.name in ("GetItem", "BatchGetItem", "Query", "Scan"):
            self.read[0] += len(http_response.content)


if __name__ == "__main__":
    import sys

    sys.exit(1 if report_registry_scale() else 0)
