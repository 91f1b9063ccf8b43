"""Cold-init ratio: the median time to import and initialise a function's handler in a fresh process,
divided by the median time of `import boto3; boto3.client("dynamodb")` measured in the same run."""

import os
import statistics
import subprocess
import sys
from pathlib import Path

from local.template import REGION, Template

ROOT = Path(__file__).resolve().parent.parent
RUNS = 9
BAR = 1.3
BASELINE = 'import boto3; boto3.client("dynamodb")'
TIMER = "import time; t = time.perf_counter(); {code}; print(time.perf_counter() - t)"


def lambda_environment(function_name: str, variables: dict[str, str]) -> dict[str, str]:
    """What Lambda sets, so that Powertools and the X-Ray SDK take their Lambda paths."""
    return {
        "PATH": os.environ.get("PATH", ""),
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


def seconds(code: str, env: dict[str, str]) -> float:
    result = subprocess.run(
        [sys.executable, "-c", TIMER.format(code=code)], env=env, cwd=ROOT, capture_output=True, text=True, check=True
    )
    return float(result.stdout.strip().splitlines()[-1])


def report_cold_starts() -> int:
    functions = Template().functions()
    baseline_times: list[float] = []
    function_times: dict[str, list[float]] = {f.logical_id: [] for f in functions}
    for _ in range(RUNS):  # interleaved, so drift of the machine hits both sides alike
        baseline_times.append(seconds(BASELINE, lambda_environment("baseline", {})))
        for function in functions:
            code = f"import {function.module} as handler; handler.{function.attribute}"
            env = lambda_environment(function.logical_id, function.environment)
            function_times[function.logical_id].append(seconds(code, env))
    baseline = statistics.median(baseline_times)
    print(f"Cold init (median of {RUNS} fresh processes); baseline {BASELINE}: {baseline * 1000:.0f} ms")
    print(f"{'function':40} {'ms':>7} {'ratio':>6}  bar <= {BAR}")
    failures = 0
    for name, times in function_times.items():
        ratio = statistics.median(times) / baseline
        failures += ratio > BAR
        print(f"{name:40} {statistics.median(times) * 1000:7.0f} {ratio:6.2f}  {'ok' if ratio <= BAR else 'MISSED'}")
    return failures
