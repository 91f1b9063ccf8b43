"""Our HTTP edge (`ott.http.handler.api_handler`) against Powertools' event handler (`APIGatewayRestResolver`)
on one real function, registry whereami (bench/whereami_powertools.py is it on Powertools). First the two must
give the same replies; then the cold start of each: the import, then the first invocation, in fresh processes
with Lambda's environment as `bench.coldstart` measures, wall and CPU time (CPU time is what a busy machine
distorts least). The domain answers a fixed WhereAmI in both, so that only the edges differ.

    .venv/bin/python -m bench.edge_choice

The numbers and the decision: docs/decisions.md, "Service shape"."""

import importlib
import json
import os
import statistics
import subprocess
import sys
from types import ModuleType
from typing import Any

from bench import QUIET, quiet
from bench.coldstart import BASELINE, ROOT, lambda_environment, seconds
from local.template import Template

RUNS = 9
VARIANTS = {"ott.http (ours)": "functions.registry.whereami.app", "Powertools": "bench.whereami_powertools"}
FIXED_ANSWER = {
    "contractor": {"contractorId": 1, "name": "Демо Телеком", "brandName": "Демо ТВ"},
    "territories": [{"territoryId": 3, "name": "Москва", "parentId": 2, "isLeaf": True}],
    "apis": [],
    "services": [
        {
            "type": "registry",
            "name": "Реестр",
            "id": 1,
            "apiVersions": [{"majorVersion": 2, "minorVersion": 0, "location": "https://api.example/registry/2/"}],
        },
    ],
    "ipAddress": "127.0.0.1",
}
COLD = """
import time
wall, cpu = time.perf_counter(), time.process_time()
import {module} as handler
imported = time.perf_counter() - wall, time.process_time() - cpu
from bench.edge_choice import with_fixed_domain, events
from local.invoke import context
with_fixed_domain(handler)
event, context = events()[0][1], context("registry/whereami")
wall, cpu = time.perf_counter(), time.process_time()
handler.lambda_handler(event, context)
first = time.perf_counter() - wall, time.process_time() - cpu
print(*imported, *first)
"""


def with_fixed_domain(handler: ModuleType) -> None:
    """The handler's domain answers FIXED_ANSWER (refuses contractor 404, fails on 500) and builds no store."""
    from ott.errors import InvalidInput
    from ott.registry.models import WhereAmI

    def where_am_i(store: object, caller: object, base_url: str, params: Any) -> WhereAmI:
        if params.contractor == 404:
            raise InvalidInput("unknown contractor 404")
        if params.contractor == 500:
            raise RuntimeError("the domain failed")
        return WhereAmI.model_validate(FIXED_ANSWER)

    handler.where_am_i = where_am_i  # type: ignore[attr-defined]
    handler.registry_store = lambda: None  # type: ignore[attr-defined]


def events() -> list[tuple[str, dict[str, Any]]]:
    from local.invoke import sample_event

    sample = sample_event("registry/whereami")

    def varied(path: str = "/registry/2/whereami.json", **query: str) -> dict[str, Any]:
        parameters = {**(sample["queryStringParameters"] or {}), **query}
        multi = {name: [value] for name, value in parameters.items()}
        return {**sample, "path": path, "queryStringParameters": parameters, "multiValueQueryStringParameters": multi}

    signed_in = {**sample, "requestContext": {**sample["requestContext"], "authorizer": {"accountId": "7"}}}
    return [
        ("sample", sample),
        ("xml", varied("/registry/2/whereami.xml")),
        ("bad territory (xml)", varied("/registry/2/whereami.xml", territory="abc")),
        ("two bad parameters", varied(territory="-1", client="Not A Client")),
        ("refused by the domain", varied(contractor="404")),
        ("failed in the domain (xml)", varied("/registry/2/whereami.xml", contractor="500")),
        ("with a token", signed_in),
    ]


def same_replies(env: dict[str, str]) -> list[str]:
    """Where the two edges answer differently (status, Content-Type, body); the Date header may tick."""
    os.environ.update({**env, **QUIET})
    from local.invoke import context

    handlers = [importlib.import_module(module) for module in VARIANTS.values()]
    for handler in handlers:
        with_fixed_domain(handler)
    differences = []
    for name, event in events():
        replies = [handler.lambda_handler(event, context("registry/whereami")) for handler in handlers]
        shapes = [(r["statusCode"], headers_of(r).get("Content-Type"), r["body"]) for r in replies]
        if shapes[0] != shapes[1]:
            differences.append(f"{name}: {shapes[0]} != {shapes[1]}")
    return differences


def headers_of(reply: dict[str, Any]) -> dict[str, str]:
    """Powertools answers a REST API with multi-value headers."""
    multi = {name: values[-1] for name, values in (reply.get("multiValueHeaders") or {}).items()}
    return {**multi, **(reply.get("headers") or {})}


def cold_start(module: str, env: dict[str, str]) -> list[float]:
    """Import wall, import CPU, first invocation wall, first invocation CPU (seconds), in a fresh process."""
    result = subprocess.run(
        [sys.executable, "-c", COLD.format(module=module)],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    return [float(number) for number in result.stdout.strip().splitlines()[-1].split()]


def main() -> int:
    function = next(f for f in Template().functions() if f.module == VARIANTS["ott.http (ours)"])
    env = lambda_environment(function.logical_id, function.environment)
    with quiet() as table:
        differences = same_replies(env)
    print("same replies:", "yes" if not differences else "NO", file=table)
    for difference in differences:
        print("  ", difference)
    baseline: list[float] = []
    measured: dict[str, list[list[float]]] = {name: [] for name in VARIANTS}
    for _ in range(RUNS):  # interleaved, so drift of the machine hits every side alike
        baseline.append(seconds(sys.executable, BASELINE, lambda_environment("baseline", {})))
        for name, module in VARIANTS.items():
            measured[name].append(cold_start(module, env))
    base = statistics.median(baseline)
    print(f"median of {RUNS} fresh processes, ms; baseline {BASELINE}: {base * 1000:.0f} ms")
    print(f"{'edge':18} {'import':>7} {'cpu':>5} {'first call':>10} {'cpu':>5} {'total':>6} {'ratio':>6}")
    for name, runs in measured.items():
        columns = [statistics.median(run[i] for run in runs) * 1000 for i in range(4)]
        total = statistics.median((run[0] + run[2]) * 1000 for run in runs)
        print(
            f"{name:18} {columns[0]:7.0f} {columns[1]:5.0f} {columns[2]:10.0f} {columns[3]:5.0f} {total:6.0f}", end=""
        )
        print(f" {total / (base * 1000):6.2f}")
    print(json.dumps({name: [[round(x * 1000, 1) for x in run] for run in runs] for name, runs in measured.items()}))
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main())
