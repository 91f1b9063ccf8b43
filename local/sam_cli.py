"""SAM CLI, run by `make sam-local` from SAM CLI's virtualenv (`.venv-sam/bin/python local/sam_cli.py local …`), with
the variables of `SAM_LOCAL_CONTAINER_ENV` (a JSON object) in every function's container besides the template's.

`sam local` gives a container only the variables the template declares (`--env-vars` overrides those and adds none),
and the template has no business declaring `AWS_ENDPOINT_URL`: in AWS the functions call AWS itself. Locally they
must call the emulator, so this adds it (SAM CLI 1.170's `EnvironmentVariables.resolve`, pinned in the Makefile)."""

import json
import os
import sys

from samcli.cli.main import cli
from samcli.local.lambdafn.env_vars import EnvironmentVariables

EXTRA: dict[str, str] = json.loads(os.environ.get("SAM_LOCAL_CONTAINER_ENV") or "{}")
_resolve = EnvironmentVariables.resolve


def resolve_with_extra(self: EnvironmentVariables) -> dict[str, str]:
    return {**_resolve(self), **EXTRA}


EnvironmentVariables.resolve = resolve_with_extra

if __name__ == "__main__":
    sys.exit(cli(prog_name="sam"))
