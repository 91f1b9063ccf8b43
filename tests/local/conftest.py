"""The local stack started as `make run` starts it, in a child process, and reached over HTTP."""

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import requests

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


def start_stack(log: Path, loaded: bool = True, **environment: str) -> RunningStack:
    """`make run` in a child process, its console in `log`. It returns once every service is loaded (the banner),
    or with `loaded=False` as soon as the stack answers: the registry and the demo accounts are in, the other
    services are loading (a request to one of them waits for it)."""
    port = free_port()
    env = {**os.environ, **environment, "PORT": str(port)}
    env.pop("AWS_ENDPOINT_URL", None)
    with log.open("w") as sink:
        process = subprocess.Popen(
            [sys.executable, "-m", "local"], cwd=ROOT, env=env, stdout=sink, stderr=subprocess.STDOUT
        )
    stack = RunningStack(f"http://127.0.0.1:{port}", process, log)
    if loaded:
        wait_for_banner(process, log, within=STARTING_AT_MOST)
    else:
        wait_for_answer(stack)
    return stack


def wait_for_answer(stack: RunningStack) -> None:
    deadline = time.monotonic() + STARTING_AT_MOST
    while time.monotonic() < deadline and stack.process.poll() is None:
        try:
            requests.get(f"{stack.url}/", timeout=STARTING_AT_MOST)  # the gateway's own 404: it answers
            return
        except requests.ConnectionError:
            time.sleep(0.1)
    stack.process.kill()
    raise RuntimeError(f"the local stack never answered:\n{stack.output.read_text()}")


@pytest.fixture(scope="session")
def stack(tmp_path_factory) -> Iterator[RunningStack]:
    running = start_stack(tmp_path_factory.mktemp("stack") / "output.log")
    yield running
    running.stop()
