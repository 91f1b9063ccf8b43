"""Operator commands act on the stack `make run` serves from this checkout with `--local` (PORT picks it)."""

import os
import subprocess
import sys

import requests

from tests.conftest import ROOT


def run_ops(stack, *argv: str) -> subprocess.CompletedProcess:
    port = stack.url.rsplit(":", 1)[1]
    env = {**os.environ, "PORT": port}
    env.pop("AWS_ENDPOINT_URL", None)
    return subprocess.run(  # noqa: S603 - our own command
        [sys.executable, "-m", *argv], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60, check=False
    )


def test_a_client_registered_with_local_can_use_the_local_stack(stack):
    made = run_ops(
        stack, "ops.auth.clients", "ops-local-tv", "--name", "Ops TV", "--grant", "vendor:anonymous", "--local"
    )
    assert made.returncode == 0, made.stderr
    secret = made.stdout.split("client_secret:")[1].split()[0]
    token = requests.post(
        f"{stack.url}/auth/2/token",
        data={"grant_type": "vendor:anonymous", "client_id": "ops-local-tv", "client_secret": secret},
        timeout=10,
    )
    assert token.status_code == 200, token.text
    assert token.json()["access_token"]


def test_local_without_a_stack_on_that_port_says_so(stack):
    port = stack.url.rsplit(":", 1)[1]
    env = {**os.environ, "PORT": str(int(port) + 1)}
    done = subprocess.run(
        [sys.executable, "-m", "ops.registry.load", "local/demo/registry.yaml", "--local"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode != 0
    assert "make run" in done.stderr
