"""The capacity model: the traffic model (`bench.capacity.traffic`) applied to what each request was measured to
cost (`bench.capacity.measure`), for a number of devices: requests and units a second at the evening peak with a
synchronised reboot on top, the hottest partition and item of every table against DynamoDB's limits, Lambda
concurrency against the template's reservations, and the month's bill, with and without the edge cache."""

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from bench.capacity import prices, traffic
from bench.capacity.measure import KindMeasurement, Sample
from local.template import Template
from ott.storage.cache import hot_item_seconds

# DynamoDB's throughput per partition (an item never spans partitions: it is the most one item takes).
PARTITION_READ_UNITS = 3000
PARTITION_WRITE_UNITS = 1000
# Above this share of a limit at the peak, a key is redesigned (the bar).
HOT = 0.5
# Lambda: a function gets one vCPU at 1,769 MB and a share in proportion below; a DynamoDB call from Lambda in
# the same region takes a few milliseconds (stated: the emulator's latency says nothing about DynamoDB's).
FULL_VCPU_MB = 1769
DYNAMODB_CALL_MS = 5.0
# CloudWatch keeps logs compressed; JSON log lines compress about this well.
LOG_COMPRESSION = 0.15
# X-Ray's default sampling: the first request each second and 5% of the others.
XRAY_SAMPLED = 0.05
# The access log line API Gateway writes per request: the template's format with values of typical length.
ACCESS_LOG_VALUES = {
    "requestId": "c6af9ac6-7b61-11e6-9a41-93e8deadbeef",
    "identity.sourceIp": "203.0.113.10",
    "requestTime": "25/Nov/2026:18:00:00 +0000",
    "httpMethod": "GET",
    "resourcePath": "/tvguide/2/schedule.json",
    "status": "200",
    "responseLength": "6514",
    "responseLatency": "23",
    "integration.status": "200",
    "authorizer.error": "",
    "xrayTraceId": "1-67445c80-0123456789abcdef01234567",
}


@dataclass
class Heat:
    """Units a second a key takes at the peak, and who takes them (request kinds, shared/audience/own)."""

    read_units: float = 0.0
    write_units: float = 0.0
    sources: set[str] = field(default_factory=set)

    @property
    def load(self) -> float:
        """The larger of its read and write shares of a partition's limits."""
        return max(self.read_units / PARTITION_READ_UNITS, self.write_units / PARTITION_WRITE_UNITS)


@dataclass(frozen=True)
class KindRates:
    kind: str
    service: str
    function: str
    peak: float  # requests a second at the evening peak with the reboot on top
    mean: float  # requests a second on the day's average
    cacheable: bool
    origin_share: float  # of the requests, those the API answers itself (1 without the edge cache)


@dataclass
class Result:
    devices: int
    edge: bool
    kinds: list[KindRates]
    measured: Mapping[str, KindMeasurement]
    functions: dict[str, dict[str, float]]  # logical id -> peak rate, duration ms, concurrency, reserved, memory
    partitions: dict[str, tuple[str, Heat]]  # table -> hottest (partition, heat)
    items: dict[str, tuple[str, Heat]]  # table -> hottest (partition/item, heat)
    hot_keys: list[tuple[str, str, Heat]]  # every key above HOT of a limit: table, key, heat
    services: dict[str, dict[str, float]]  # service -> requests/s at the edge and at the API, units/s
    costs: dict[str, float]  # line -> USD a month


def authorizer_kind(with_token: bool) -> str:
    return "authorizer (token)" if with_token else "authorizer (no token)"


def kind_rates(devices: int, measured: Mapping[str, KindMeasurement], edge: bool) -> list[KindRates]:
    rates = []
    for kind, demand in traffic.DEMAND.items():
        mean = making(devices, kind) * demand.per_device_day / traffic.SECONDS_A_DAY
        storm = traffic.REBOOT_SHARE * making(devices, kind) / traffic.REBOOT_SECONDS if demand.at_start_up else 0.0
        rates.append(rated(kind, measured[kind], mean, traffic.PEAK_FACTOR * mean + storm, edge))
    for kind, rate in traffic.MACHINE_RATES.items():
        rates.append(rated(kind, measured[kind], rate, rate, edge))
    return rates


def making(devices: int, kind: str) -> float:
    """The devices that make requests of `kind` (the Xtream players: a share of them)."""
    demand = traffic.DEMAND.get(kind)
    return devices * (demand.share if demand is not None else 1.0)


def rated(kind: str, measured: KindMeasurement, mean: float, peak: float, edge: bool) -> KindRates:
    cacheable = measured.cacheable and measured.route is not None
    origin = 1 - traffic.EDGE_HIT_RATIO if edge and cacheable else 1.0
    service = measured.folder.split("/")[0]
    return KindRates(kind, service, measured.function, peak, mean, cacheable, origin)


def invocations(
    rates: list[KindRates], measured: Mapping[str, KindMeasurement], template: Template
) -> list[tuple[KindRates, KindMeasurement, float, float]]:
    """(rates, what one request costs, origin requests a second at the peak, on average) of every function
    invocation: each request the API answers itself, and the authorizer API Gateway runs before it."""
    authorizers = {name: spec.function for name, spec in template.authorizers().items()}
    found = []
    for rate in rates:
        own = measured[rate.kind]
        peak, mean = rate.peak * rate.origin_share, rate.mean * rate.origin_share
        found.append((rate, own, peak, mean))
        if own.authorizer is not None:
            demand = traffic.DEMAND.get(rate.kind)
            with_token = own.authorizer == "Bearer" or (demand is not None and demand.with_token)
            check = measured[authorizer_kind(with_token)]
            function = authorizers[own.authorizer]
            as_authorizer = KindRates(check.kind, "auth", function, rate.peak, rate.mean, False, rate.origin_share)
            found.append((as_authorizer, check, peak, mean))
    return found


def hot_share(requests: float, concurrency: float) -> float:
    """The share of `requests` a second that read a hot item from DynamoDB (`ott.storage.cache`): each warm
    container of the function (about its concurrency) reads it once every HOT_ITEM_SECONDS."""
    bound = hot_item_seconds()
    if requests <= 0 or bound <= 0:
        return 1.0
    return min(1.0, max(1.0, math.ceil(concurrency)) / bound / requests)


def key_heat(
    calls: Iterable[tuple[KindRates, KindMeasurement, float, float]],
    devices: int,
    by_item: bool,
    functions: Mapping[str, Mapping[str, float]],
) -> dict[tuple[str, str], Heat]:
    """Units a second at the peak on every partition (or item) any request touches. A key every sample of a
    kind touched takes that kind's whole rate; one only the samples of one audience touched, the largest
    audience's share of it; one a single sample touched, one device's (or event's) share. A hot item
    (`ott.storage.cache`) is read at most once every HOT_ITEM_SECONDS by each container of the function."""
    heat: dict[tuple[str, str], Heat] = defaultdict(Heat)
    bound = hot_item_seconds()
    for rate, measured, peak, _ in calls:
        containers = max(1.0, math.ceil(functions[rate.function]["concurrency"]))
        refreshes = containers / bound if bound else math.inf
        per_sample = [units_by_key(sample, by_item) for sample in measured.samples]
        audiences = {audience: [s for s in measured.samples if s.audience == audience] for audience in ("A", "B")}
        keys = {key for sample in per_sample for key in sample}
        for key in keys:
            touched = [
                (sample, units[key]) for sample, units in zip(measured.samples, per_sample, strict=True) if key in units
            ]
            by_audience = {name: sum(1 for sample, _ in touched if sample.audience == name) for name in audiences}
            if len(touched) == 1:
                share, source = 1 / making(devices, rate.kind), "own"
            elif all(by_audience.values()):
                share, source = len(touched) / len(measured.samples), "shared"
            else:
                audience = next(name for name, count in by_audience.items() if count)
                share = traffic.LARGEST_AUDIENCE * by_audience[audience] / len(audiences[audience])
                source = "audience"
            cold, hot, writes = (sum(units[part] for _, units in touched) / len(touched) for part in range(3))
            entry = heat[key]
            entry.read_units += peak * share * cold + min(peak * share, refreshes) * hot
            entry.write_units += peak * share * writes
            entry.sources.add(f"{rate.kind} ({source}{', cached' if hot else ''})")
    return heat


def units_by_key(sample: Sample, by_item: bool) -> dict[tuple[str, str], tuple[float, float, float]]:
    """Per key: read units of items read from DynamoDB every time, of hot items, and write units."""
    found: dict[tuple[str, str], tuple[float, float, float]] = {}
    for touch in sample.touches:
        key = (touch.table, f"{touch.partition} / {touch.item}" if by_item else touch.partition)
        cold, hot, writes = found.get(key, (0.0, 0.0, 0.0))
        if sample.is_hot(touch):
            hot += touch.read_units
        else:
            cold += touch.read_units
        found[key] = (cold, hot, writes + touch.write_units)
    return found


def hottest(heat: Mapping[tuple[str, str], Heat]) -> dict[str, tuple[str, Heat]]:
    found: dict[str, tuple[str, Heat]] = {}
    for (table, key), entry in heat.items():
        if table not in found or entry.load > found[table][1].load:
            found[table] = (key, entry)
    return dict(sorted(found.items()))


def function_table(
    calls: Iterable[tuple[KindRates, KindMeasurement, float, float]], template: Template
) -> dict[str, dict[str, float]]:
    """Per function: origin invocations a second at the peak and on average, mean duration, concurrency at the
    peak, its reservation (0: none) and memory."""
    found: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for rate, measured, peak, mean in calls:
        memory = memory_of(template, rate.function)
        duration = measured.median(lambda s: s.cpu_ms) * FULL_VCPU_MB / memory
        duration += measured.median(lambda s: sum(s.calls.values())) * DYNAMODB_CALL_MS
        entry = found[rate.function]
        entry["peak"] += peak
        entry["mean"] += mean
        entry["concurrency"] += peak * duration / 1000
        entry["mean_concurrency"] += mean * duration / 1000
        entry["gb_seconds_mean"] += mean * duration / 1000 * memory / 1024
        entry["memory"] = memory
        entry["reserved"] = reserved_of(template, rate.function)
    for entry in found.values():
        entry["duration_ms"] = 1000 * entry["concurrency"] / entry["peak"] if entry["peak"] else 0.0
    return {name: dict(entry) for name, entry in sorted(found.items())}


def memory_of(template: Template, function: str) -> int:
    return int(template.resources[function]["Properties"].get("MemorySize", 128))


def reserved_of(template: Template, function: str) -> int:
    """The function's reserved concurrency with the parameters' defaults (0: none reserved)."""
    value: Any = template.resources[function]["Properties"].get("ReservedConcurrentExecutions", 0)
    if isinstance(value, dict) and "Fn::If" in value:
        value = value["Fn::If"][1]
    if isinstance(value, dict) and "Ref" in value:
        value = template.parameters[value["Ref"]]
    return int(value)


def access_log_bytes(template: Template) -> int:
    api = next(iter(template.of_type("AWS::Serverless::Api").values()))
    line = api["Properties"]["AccessLogSetting"]["Format"]
    for name, value in ACCESS_LOG_VALUES.items():
        line = line.replace(f"$context.{name}", value)
    return len(line.encode()) + 1


def monthly_costs(
    calls: list[tuple[KindRates, KindMeasurement, float, float]], rates: list[KindRates], template: Template, edge: bool
) -> dict[str, float]:
    seconds = traffic.DAYS_A_MONTH * traffic.SECONDS_A_DAY
    functions = function_table(calls, template)
    invoked = sum(entry["mean"] for entry in functions.values()) * seconds
    gb_seconds = sum(entry["gb_seconds_mean"] for entry in functions.values()) * seconds
    api_requests = sum(rate.mean * rate.origin_share for rate in rates if rate.kind in routed(calls)) * seconds
    edge_requests = sum(rate.mean for rate in rates if rate.kind in routed(calls)) * seconds
    reads = sum(mean * m.read_units(mean_hot_share(rate, functions)) for rate, m, _, mean in calls) * seconds
    writes = sum(mean * m.write_units for _, m, _, mean in calls) * seconds
    replied_gb = (
        sum(rate.mean * m.median(lambda s: s.compressed_bytes) for rate, m, _, _ in calls if rate.kind in routed(calls))
        * seconds
        / 1024**3
    )
    log_gb = sum(mean * m.median(lambda s: s.log_bytes) for _, m, _, mean in calls) * seconds / 1024**3
    log_gb += api_requests * access_log_bytes(template) / 1024**3
    retention_months = int(template.parameters.get("LogRetentionDays", "90")) / traffic.DAYS_A_MONTH
    costs = {
        "Lambda": invoked / 1e6 * prices.LAMBDA_REQUESTS.usd + gb_seconds * prices.LAMBDA_GB_SECONDS.usd,
        "API Gateway": prices.tiered(api_requests, prices.API_TIERS, unit=1e6),
        "DynamoDB": reads / 1e6 * prices.DYNAMODB_READS.usd + writes / 1e6 * prices.DYNAMODB_WRITES.usd,
    }
    if edge:
        costs["CloudFront"] = edge_requests / 1e4 * prices.CLOUDFRONT_REQUESTS.usd + prices.tiered(
            replied_gb, prices.CLOUDFRONT_TIERS
        )
    else:
        costs["Data out (API Gateway)"] = prices.tiered(replied_gb, prices.DIRECT_TIERS)
    # The guide's exports players download after the redirect (edge or not: the download is S3's).
    downloads = sum(rate.mean for rate in rates if rate.kind in traffic.EXPORT_DOWNLOADS) * seconds
    costs["S3 (guide exports)"] = downloads / 1000 * prices.S3_GETS.usd + prices.tiered(
        downloads * traffic.EXPORT_BYTES / 1024**3, prices.DIRECT_TIERS
    )
    costs["Logs"] = (
        log_gb * prices.LOG_INGESTION.usd + log_gb * LOG_COMPRESSION * retention_months * prices.LOG_STORAGE.usd
    )
    costs["X-Ray"] = api_requests * XRAY_SAMPLED / 1e6 * prices.XRAY_TRACES.usd
    costs["Total"] = sum(costs.values())
    return costs


def mean_hot_share(rate: KindRates, functions: Mapping[str, Mapping[str, float]]) -> float:
    function = functions[rate.function]
    return hot_share(function["mean"], function["mean_concurrency"])


def peak_hot_share(rate: KindRates, functions: Mapping[str, Mapping[str, float]]) -> float:
    function = functions[rate.function]
    return hot_share(function["peak"], function["concurrency"])


def routed(calls: Iterable[tuple[KindRates, KindMeasurement, float, float]]) -> set[str]:
    """The kinds that are API requests (not queue messages nor authorizer runs)."""
    return {rate.kind for rate, measured, _, _ in calls if measured.route is not None}


def run(devices: int, measured: Mapping[str, KindMeasurement], template: Template, edge: bool) -> Result:
    rates = kind_rates(devices, measured, edge)
    calls = invocations(rates, measured, template)
    functions = function_table(calls, template)
    partitions = key_heat(calls, devices, False, functions)
    items = key_heat(calls, devices, True, functions)
    hot = [(table, key, heat) for (table, key), heat in {**partitions, **items}.items() if heat.load > HOT]
    services: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for rate, m, peak, _ in calls:
        entry = services[rate.service]
        if m.route is not None:
            entry["edge"] += rate.peak
            entry["api"] += peak
        elif not rate.kind.startswith("authorizer"):
            entry["messages"] += peak
        entry["read_units"] += peak * m.read_units(peak_hot_share(rate, functions))
        entry["write_units"] += peak * m.write_units
    return Result(
        devices=devices,
        edge=edge,
        kinds=rates,
        measured=measured,
        functions=functions,
        partitions=hottest(partitions),
        items=hottest(items),
        hot_keys=sorted(hot, key=lambda entry: -entry[2].load),
        services={name: dict(entry) for name, entry in sorted(services.items())},
        costs=monthly_costs(calls, rates, template, edge),
    )


def ceil_to(value: float, step: int) -> int:
    return int(math.ceil(value / step) * step)
