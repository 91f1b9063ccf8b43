"""The platform as `sam build` made it, served by `sam local start-api` in Docker (`make sam-local`, started once for
the folder) against the local stack's emulator and demo data. Where Docker cannot run, every test here is skipped
with the reason (pytest prints skip reasons: -rs in pyproject.toml)."""

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import boto3
import pytest

from local.lambda_image.__main__ import label_of, runtimes_of_template, tag
from local.stack import free_port
from local.template import REGION, Template
from tests.conftest import ROOT, SUMMARY

# A first run builds the Lambda image (about 3 minutes) and `sam build`s; later ones start in about two minutes.
STARTING_AT_MOST = 900
SAM = ROOT / ".venv-sam" / "bin" / "sam"
BUILD_DIR = ROOT / ".aws-sam" / "samlocal-build"  # not `sam build`'s own: `make test` runs that beside the tests


def why_docker_cannot_run() -> str | None:
    if shutil.which("docker") is None:
        return "no docker command (.ci/run installs docker.io)"
    info = subprocess.run(["docker", "info"], capture_output=True, text=True, check=False)  # noqa: S607
    if info.returncode != 0:
        return f"the Docker daemon does not answer: {info.stderr.strip().splitlines()[-1:]}"
    if not SAM.exists():
        return "no SAM CLI in .venv-sam (make .venv-sam/bin/sam)"
    images_missing = [tag(*pair) for pair in runtimes_of_template() if label_of(tag(*pair)) is None]
    if images_missing and shutil.which("debootstrap") is None:
        return f"no {', '.join(images_missing)} and no debootstrap to build it (.ci/run installs it)"
    return None


@dataclass
class SamLocalApi:
    url: str
    emulator: str
    session: dict[str, Any]
    log: Path
    config: pytest.Config

    def report(self, line: str) -> None:
        report(self.config, line)

    def invoke(self, function: str, event: dict[str, Any], tmp: Path) -> tuple[dict[str, Any], float]:
        """`sam local invoke` of one function against the same emulator: its reply and the seconds it took."""
        path = tmp / f"{function}-event.json"
        path.write_text(json.dumps(event), encoding="utf-8")
        started = time.monotonic()
        done = subprocess.run(  # noqa: S603
            [*self.session["sam"], "local", "invoke", function, "--event", str(path), *self.session["arguments"]],
            cwd=ROOT,
            env={**os.environ, **self.session["environment"]},
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        took = time.monotonic() - started
        assert done.returncode == 0, done.stderr[-3000:]
        reply = [line for line in done.stdout.splitlines() if line.startswith("{")]
        assert reply, f"no reply on stdout: {done.stdout[-2000:]} {done.stderr[-2000:]}"
        return json.loads(reply[-1]), took

    def dynamodb(self) -> Any:
        return boto3.client(
            "dynamodb",
            endpoint_url=self.emulator,
            region_name=REGION,
            aws_access_key_id="local",
            aws_secret_access_key="local",
        )


def read_line(process: subprocess.Popen, log: Path, prefix: str, deadline: float) -> str:
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"make sam-local stopped ({process.returncode}):\n{log.read_text()[-5000:]}")
        for line in log.read_text(encoding="utf-8", errors="replace").splitlines():
            if line.startswith(prefix):
                return line.removeprefix(prefix).strip()
        time.sleep(1)
    raise AssertionError(f"no {prefix!r} within {STARTING_AT_MOST} s:\n{log.read_text()[-5000:]}")


def report(config: pytest.Config, line: str) -> None:
    """A line at the end of the run (tests/conftest.py prints it), from an xdist worker too."""
    output = getattr(config, "workeroutput", None)
    if output is not None:
        output.setdefault("summary", []).append(line)
    else:
        SUMMARY.append(line)


@pytest.fixture(scope="session")
def sam_api(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[SamLocalApi]:
    reason = why_docker_cannot_run()
    if reason is not None:
        pytest.skip(f"sam local needs Docker: {reason}")
    log = tmp_path_factory.mktemp("samlocal") / "sam-local.log"
    env = {**os.environ, "PORT": str(free_port()), "SAM_LOCAL_BUILD_DIR": str(BUILD_DIR), "SAM_SKIP_PULL_IMAGE": "1"}
    env.pop("AWS_ENDPOINT_URL", None)
    started, ready = time.monotonic(), 0.0
    with log.open("w") as sink:
        process = subprocess.Popen(
            [sys.executable, "-m", "local.sam_local"], cwd=ROOT, env=env, stdout=sink, stderr=subprocess.STDOUT
        )
    try:
        deadline = time.monotonic() + STARTING_AT_MOST
        url = read_line(process, log, "sam-local: ", deadline).split()[0]
        session = json.loads(read_line(process, log, "session: ", deadline))
        ready = time.monotonic() - started
        yield SamLocalApi(url, session["emulator"], session, log, request.config)
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=90)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        report(request.config, f"tests/samlocal: {time.monotonic() - started:.0f} s (sam local ready in {ready:.0f} s)")


@pytest.fixture(scope="session")
def template() -> Template:
    return Template()
