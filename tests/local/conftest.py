"""The local stack started as `make run` starts it, in a child process, and reached over HTTP."""

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from local.announce import wait_for_banner
from local.stack import free_port
from tests.conftest import ROOT

# Seconds a stack may take to start: it is ready when it prints its banner, however busy the machine; only a stack
# that hangs takes this long.
STARTING_AT_MOST = 900


@dataclass
class RunningStack:
    url: str
    process: subprocess.Popen
    output: Path

    def stop(self, signal_number: int = signal.SIGINT, timeout: float = 20) -> int:
        self.process.send_signal(signal_number)  # SIGINT is what Ctrl-C sends
        try:
            return self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            raise


def start_stack(log: Path, **environment: str) -> RunningStack:
    port = free_port()
    env = {**os.environ, **environment, "PORT": str(port)}
    env.pop("AWS_ENDPOINT_URL", None)
    with log.open("w") as sink:
        process = subprocess.Popen(
            [sys.executable, "-m", "local"], cwd=ROOT, env=env, stdout=sink, stderr=subprocess.STDOUT
        )
    wait_for_banner(process, log, within=STARTING_AT_MOST)
    return RunningStack(f"http://127.0.0.1:{port}", process, log)


@pytest.fixture(scope="session")
def stack(tmp_path_factory) -> Iterator[RunningStack]:
    running = start_stack(tmp_path_factory.mktemp("stack") / "output.log")
    yield running
    running.stop()
