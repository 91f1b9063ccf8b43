"""Cold-init ratio: the median time to import and initialise a function's handler in a fresh process,
divided by the median time of `import boto3; boto3.client("dynamodb")` measured in the same run, under the
functions' runtime (this interpreter, Python 3.13) and, when OLD_PYTHON names one, beside it under the old one
(a Python 3.11 with the layer's requirements): both import this checkout's code."""

import os
import statistics
import subprocess
import sys
from pathlib import Path

from local.template import REGION, Template

ROOT = Path(__file__).resolve().parent.parent
RUNS = 5
BAR = 1.2
BASELINE = 'import boto3; boto3.client("dynamodb")'
TIMER = "import time; t = time.perf_counter(); {code}; print(time.perf_counter() - t)"


def lambda_environment(function_name: str, variables: dict[str, str]) -> dict[str, str]:
    """What Lambda sets, so that Powertools and the X-Ray SDK take their Lambda paths; the layer's code on the path
    as Lambda puts /opt/python there (so that another interpreter imports this checkout's code too)."""
    return {
        "PATH": os.environ.get("PATH", ""),
        "PYTHONPATH": os.pathsep.join([str(ROOT / "layers" / "shared"), str(ROOT)]),
        "LAMBDA_TASK_ROOT": str(ROOT),
        "AWS_LAMBDA_FUNCTION_NAME": function_name,
        "AWS_LAMBDA_FUNCTION_MEMORY_SIZE": "512",
        "AWS_REGION": REGION,
        "AWS_DEFAULT_REGION": REGION,
        "AWS_ACCESS_KEY_ID": "bench",
        "AWS_SECRET_ACCESS_KEY": "bench",
        "_X_AMZN_TRACE_ID": "Root=1-00000000-000000000000000000000000;Parent=0000000000000000;Sampled=0",
        **variables,
    }


def seconds(python: str, code: str, env: dict[str, str]) -> float:
    result = subprocess.run([python, "-c", TIMER.format(code=code)], env=env, cwd=ROOT, capture_output=True, text=True)
    if result.returncode:
        raise RuntimeError(f"{python} -c {code!r} failed:\n{result.stderr}")
    return float(result.stdout.strip().splitlines()[-1])


def version_of(python: str) -> str:
    code = "import sys; print(f'{sys.version_info[0]}.{sys.version_info[1]}')"
    return subprocess.run([python, "-c", code], capture_output=True, text=True, check=True).stdout.strip()


def cold_init_ratios(python: str, only: set[str] | None = None, runs: int = RUNS) -> tuple[float, dict[str, float]]:
    """The baseline's median seconds under `python`, and each function's median over it."""
    functions = [f for f in Template().functions() if not only or f.logical_id in only]
    baseline_times: list[float] = []
    function_times: dict[str, list[float]] = {f.logical_id: [] for f in functions}
    for _ in range(runs):  # interleaved, so drift of the machine hits both sides alike
        baseline_times.append(seconds(python, BASELINE, lambda_environment("baseline", {})))
        for function in functions:
            code = f"import {function.module} as handler; handler.{function.attribute}"
            env = lambda_environment(function.logical_id, function.environment)
            function_times[function.logical_id].append(seconds(python, code, env))
    baseline = statistics.median(baseline_times)
    return baseline, {name: statistics.median(times) / baseline for name, times in function_times.items()}


def report_cold_starts() -> int:
    only = {name for name in os.environ.get("COLDSTART_ONLY", "").split(",") if name} or None
    baseline, ratios = cold_init_ratios(sys.executable, only)
    old_python = os.environ.get("OLD_PYTHON", "")
    old_version = version_of(old_python) if old_python else ""
    old_baseline, old_ratios = cold_init_ratios(old_python, only) if old_python else (0.0, {})
    version = version_of(sys.executable)
    print(f"Cold init (median of {RUNS} fresh processes over the median of {BASELINE})")
    print(
        f"baseline: {baseline * 1000:.0f} ms under {version}"
        + (
            f", {old_baseline * 1000:.0f} ms under {old_version}"
            if old_python
            else " (OLD_PYTHON unset: the old runtime is not measured)"
        )
    )
    print(f"{'function':40} {version:>6} {old_version:>6}  bar <= {BAR} under {version}")
    failures = 0
    for name, ratio in ratios.items():
        failures += ratio > BAR
        old = f"{old_ratios[name]:6.2f}" if old_ratios else ""
        print(f"{name:40} {ratio:6.2f} {old:>6}  {'ok' if ratio <= BAR else 'MISSED'}")
    for label, values in ((version, ratios), (old_version, old_ratios)):
        if values:
            print(f"{label}: median {statistics.median(values.values()):.2f}, worst {max(values.values()):.2f}")
    return failures
