"""Where an operator command acts: a deployed stack (its outputs name the resources), the local stack that
`make run` serves from this checkout (`--local`; `PORT` picks among several), or a table named directly.

    add_target(parser, check=True)          # --stack NAME | --local | --table NAME | --check
    dynamodb = aws_client(args, "dynamodb") # pointed at the emulator for --local
    store = auth_records(database(args), output(args, "AuthTableName"))  # a store over that client
    audit = audit_log(args)                 # where a command that changes something records it

A command that changes what staff change (the console's areas) records it in the target's audit trail, as the
console's routes do; with `--table`, `--audit-table` names the audit table.
"""

import argparse
import getpass
import os
import sys
import time
from functools import cache
from typing import Any

import boto3

from local.announce import announcement, local_stack_file
from ott.audit import AuditLog, AuditSettings
from ott.callers import Operator
from ott.config import reset_settings
from ott.storage.dynamo import DynamoDatabase

# Seconds `--local` waits for a stack that is still starting (`make run` is whole in seconds; this is for a machine
# far busier than that), and between two looks at it.
STARTING_AT_MOST = 300
LOOK_EVERY = 0.2


class NoLocalStack(SystemExit):
    """`--local` with no `make run` of this checkout on that PORT (or one still starting after STARTING_AT_MOST):
    the command ends with this one line, no traceback."""


def add_target(parser: argparse.ArgumentParser, *, check: bool = False, table: bool = True) -> None:
    target = parser.add_mutually_exclusive_group(required=True)
    target.add_argument("--stack", help="deployed stack whose outputs name the resources")
    target.add_argument("--local", action="store_true", help="the stack `make run` serves from this checkout")
    if table:
        target.add_argument("--table", help="table name")
    if check:
        target.add_argument("--check", action="store_true", help="validate only; write nothing")
    if table:
        parser.add_argument("--audit-table", help="with --table: the audit table its changes are recorded in")


@cache
def local_endpoint() -> str:
    """The emulator of the stack `make run` serves on PORT, once its start is over (waiting for it, with a line
    saying so, while it is still loading); the settings the stack announces (`local.announce.LOCAL_SETTINGS`)
    apply to this command too."""
    port = local_stack_file().stem
    deadline = time.monotonic() + STARTING_AT_MOST
    said = False
    while True:
        announced = announcement(port)
        if announced is None:
            raise NoLocalStack(f"no local stack of this checkout on PORT {port}: start it with `make run`")
        if announced.get("ready", True):
            break
        if time.monotonic() > deadline:
            raise NoLocalStack(
                f"the local stack on PORT {port} is still starting after {STARTING_AT_MOST} s: run this again once"
                " `make run` has printed its banner"
            )
        if not said:
            print(f"the local stack on PORT {port} is still starting: waiting for it", file=sys.stderr, flush=True)
            said = True
        time.sleep(LOOK_EVERY)
    os.environ.update(announced.get("settings", {}))
    reset_settings()
    return str(announced["endpoint"])


def aws_client(args: argparse.Namespace, service: str) -> Any:
    if getattr(args, "local", False):
        from local.template import REGION

        return boto3.client(
            service,
            endpoint_url=local_endpoint(),
            region_name=REGION,
            aws_access_key_id="local",
            aws_secret_access_key="local",  # noqa: S106 - the emulator takes any
        )
    return boto3.client(service)


def database(args: argparse.Namespace) -> DynamoDatabase:
    """The storage layer over the target's DynamoDB (the emulator for --local)."""
    return DynamoDatabase(aws_client(args, "dynamodb"))


def output(args: argparse.Namespace, key: str) -> str:
    """A stack output: from the deployed stack, or as the local stack names the same resource."""
    if getattr(args, "table", None):
        return str(args.table)
    if getattr(args, "local", False):
        from local.template import Template

        template = Template()
        return template.resolve(template.document["Outputs"][key]["Value"])
    return stack_outputs(args.stack)[key]


def add_operator(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--by", default=None, help="who you are in the audit trail (default: your login name)")


def operator(args: argparse.Namespace) -> Operator:
    """The person running the command, as the audit trail names them."""
    return Operator(getattr(args, "by", None) or getpass.getuser())


def audit_log(args: argparse.Namespace) -> AuditLog:
    """The target's audit trail, entries kept as long as the stack's `AuditRetentionDays` says."""
    if getattr(args, "table", None):
        if not args.audit_table:
            raise SystemExit("with --table, name the audit table too (--audit-table NAME)")
        return AuditLog(database(args), args.audit_table, AuditSettings.model_fields["retention_days"].default)
    if getattr(args, "local", False):
        from local.template import Template

        retention = int(Template().document["Parameters"]["AuditRetentionDays"]["Default"])
        return AuditLog(database(args), output(args, "AuditTableName"), retention)
    return AuditLog(database(args), output(args, "AuditTableName"), int(output(args, "AuditRetentionDays")))


@cache
def stack_outputs(stack: str) -> dict[str, str]:
    description = boto3.client("cloudformation").describe_stacks(StackName=stack)["Stacks"][0]
    return {o["OutputKey"]: o["OutputValue"] for o in description.get("Outputs", [])}
