"""Create a personal account (login = e-mail). The password is read from the terminal, never from arguments.

python -m ops.auth_users USERNAME [--cid CID] (--stack STACK | --local | --table NAME)
"""

import argparse
import getpass
import sys

from ops.target import add_target, aws_client, output
from ott.auth.admin import create_user
from ott.auth.store import auth_records
from ott.errors import InvalidInput
from ott.recordstore import ConcurrentChange


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("username")
    parser.add_argument("--cid", type=int)
    add_target(parser)
    args = parser.parse_args(argv)
    password = getpass.getpass("password: ")
    store = auth_records(aws_client(args, "dynamodb"), output(args, "AuthTableName"))
    try:
        account_id = create_user(store, args.username, password, cid=args.cid)
    except InvalidInput as error:
        print(error.description, file=sys.stderr)
        return 2
    except ConcurrentChange:
        print(f"{args.username} exists already", file=sys.stderr)
        return 2
    print(f"account_id: {account_id}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
