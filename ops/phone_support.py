"""Technical support confirms a number that no channel could deliver to (stage 4 of phone confirmation),
after checking it by other means. The account's confirmed phone is recorded as by a valid code.

    python -m ops.phone_support REQUEST_ID (--stack STACK | --phone-table NAME --auth-table NAME)
"""

import argparse
import sys

import boto3

from ott.phoneconfirm.service import RequestError, confirm_by_support
from ott.phoneconfirm.store import phone_records


def stack_outputs(stack: str) -> dict[str, str]:
    description = boto3.client("cloudformation").describe_stacks(StackName=stack)["Stacks"][0]
    return {o["OutputKey"]: o["OutputValue"] for o in description.get("Outputs", [])}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("request_id")
    parser.add_argument("--stack")
    parser.add_argument("--phone-table")
    parser.add_argument("--auth-table")
    args = parser.parse_args(argv)
    if args.stack:
        outputs = stack_outputs(args.stack)
        phone_table, auth_table = outputs["PhoneTableName"], outputs["AuthTableName"]
    elif args.phone_table and args.auth_table:
        phone_table, auth_table = args.phone_table, args.auth_table
    else:
        parser.error("give --stack, or --phone-table and --auth-table")
    store = phone_records(boto3.client("dynamodb"), phone_table, auth_table)
    try:
        request = confirm_by_support(store, args.request_id)
    except RequestError as error:
        print(error.code, file=sys.stderr)
        return 2
    print(f"confirmed {request.phone} for account {request.account_id}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
