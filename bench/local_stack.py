"""The local stack in `make bench`: how long `make run` takes to answer whereami and to print its banner (every
service loaded; wall and the process's CPU seconds), how long `ops.tvguide.load --local` takes for the Turkish
sample guide, and the median and 90th percentile of guide requests once it is in. The bars hold on an idle
two-core machine; under load compare the CPU seconds, which load inflates far less than wall time.

    python -m bench.local_stack
"""

import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import IO

import requests

from local.announce import wait_for_banner
from local.stack import free_port

ROOT = Path(__file__).resolve().parent.parent
TURKISH_GUIDE = ROOT.parent / "shared" / "data" / "xmltv" / "tvplus.com.tr_2024-12.xml"
TURKISH_ZONE = "Europe/Istanbul"
START_BAR_SECONDS = 10
BANNER_BAR_SECONDS = 15  # issue 27: `make run` whole in seconds
IMPORT_BAR_SECONDS = 20
MEDIAN_BAR_MS = 100
REQUESTS = 50
READY_WITHIN = 600  # seconds: only a stack that hangs takes this long


def cpu_seconds(pid: int) -> float:
    """User and system time of a running process (Linux)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def start_stack(port: int, console: IO[str]) -> tuple[subprocess.Popen, float]:
    """`python -m local` as `make run` starts it, its console into `console`; returns once whereami answers,
    with the seconds that took."""
    env = {**os.environ, "PORT": str(port)}
    env.pop("AWS_ENDPOINT_URL", None)
    started = time.monotonic()
    process = subprocess.Popen(
        [sys.executable, "-m", "local"], cwd=ROOT, env=env, stdout=console, stderr=subprocess.STDOUT
    )
    while True:
        if process.poll() is not None:
            raise RuntimeError(f"the local stack exited:\n{Path(console.name).read_text()}")
        try:
            if requests.get(f"http://127.0.0.1:{port}/registry/2/whereami.json", timeout=30).ok:
                return process, time.monotonic() - started
        except requests.ConnectionError:
            time.sleep(0.05)


def timed_get(url: str, params: dict[str, str]) -> float:
    started = time.perf_counter()
    reply = requests.get(url, params=params, timeout=60)
    reply.raise_for_status()
    return (time.perf_counter() - started) * 1000


def latencies(base: str, method: str, params: dict[str, str]) -> list[float]:
    timed_get(f"{base}/tvguide/2/{method}", params)  # the function's first request imports it
    return [timed_get(f"{base}/tvguide/2/{method}", params) for _ in range(REQUESTS)]


def report_local_stack() -> int:
    print(
        "\nLocal stack (make run): seconds until whereami answers and until the banner, the Turkish guide's"
        " import, guide requests"
    )
    if not TURKISH_GUIDE.exists():
        print(f"  skipped: {TURKISH_GUIDE} is missing")
        return 0
    port = free_port()
    console = tempfile.NamedTemporaryFile("w", suffix=".log")  # noqa: SIM115 - closed below
    launched = time.monotonic()
    process, answered = start_stack(port, console)
    failures = 0
    try:
        cpu = cpu_seconds(process.pid)
        failures += answered > START_BAR_SECONDS
        print(f"  whereami answers after {answered:.1f} s ({cpu:.1f} s CPU; bar {START_BAR_SECONDS} s)")
        wait_for_banner(process, Path(console.name), within=READY_WITHIN)
        ready_cpu = cpu_seconds(process.pid)
        loaded = time.monotonic() - launched
        failures += loaded > BANNER_BAR_SECONDS
        print(
            f"  banner (every service loaded) after {loaded:.1f} s ({ready_cpu:.1f} s CPU in all;"
            f" bar {BANNER_BAR_SECONDS} s)"
        )
        env = {**os.environ, "PORT": str(port)}
        started = time.monotonic()
        subprocess.run(
            [
                sys.executable,
                "-m",
                "ops.tvguide.load",
                str(TURKISH_GUIDE),
                "--zone",
                TURKISH_ZONE,
                "--create-zone",
                "--local",
            ],
            cwd=ROOT,
            env=env,
            check=True,
            capture_output=True,
        )
        imported = time.monotonic() - started
        failures += imported > IMPORT_BAR_SECONDS
        import_cpu = cpu_seconds(process.pid) - ready_cpu
        print(f"  Turkish guide imported in {imported:.1f} s ({import_cpu:.1f} s CPU; bar {IMPORT_BAR_SECONDS} s)")
        base = f"http://127.0.0.1:{port}"
        channels = requests.get(f"{base}/tvguide/2/channels.json", params={"geo": TURKISH_ZONE}, timeout=60).json()
        first = str(channels["channels"][0]["channelId"])
        cases = {
            "channels (Istanbul)": ("channels.json", {"geo": TURKISH_ZONE}),
            "schedule (Istanbul)": ("schedule.json", {"channel": first, "dates": "2024-12-16", "geo": TURKISH_ZONE}),
            "channels (demo)": ("channels.json", {"fields": "title,currentTelecast"}),
            "schedule (demo)": ("schedule.json", {"channel": "101"}),
        }
        for name, (method, params) in cases.items():
            before = cpu_seconds(process.pid)
            times = sorted(latencies(base, method, params))
            cpu_ms = (cpu_seconds(process.pid) - before) * 1000 / (REQUESTS + 1)
            median, p90 = statistics.median(times), times[int(len(times) * 0.9) - 1]
            failures += median > MEDIAN_BAR_MS
            print(
                f"  {name:<20} median {median:6.1f} ms  p90 {p90:6.1f} ms  {cpu_ms:5.1f} ms CPU a request "
                f"(bar: median {MEDIAN_BAR_MS} ms)"
            )
    finally:
        process.send_signal(signal.SIGINT)
        process.wait(timeout=30)
        console.close()
    return failures


if __name__ == "__main__":
    sys.exit(1 if report_local_stack() else 0)
