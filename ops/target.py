"""Which table an operator command writes to: one named directly, or the one a deployed stack outputs."""

import argparse

import boto3


def add_target(parser: argparse.ArgumentParser, *, check: bool = False) -> None:
    target = parser.add_mutually_exclusive_group(required=True)
    target.add_argument("--table", help="table name")
    target.add_argument("--stack", help="deployed stack whose outputs name the table")
    if check:
        target.add_argument("--check", action="store_true", help="validate only; write nothing")


def table_name(args: argparse.Namespace, output_key: str) -> str:
    if args.table:
        return args.table
    stack = boto3.client("cloudformation").describe_stacks(StackName=args.stack)["Stacks"][0]
    return next(o["OutputValue"] for o in stack.get("Outputs", []) if o["OutputKey"] == output_key)
