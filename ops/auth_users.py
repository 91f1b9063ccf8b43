"""Create a personal account (login = e-mail). The password is read from the terminal, never from arguments.

python -m ops.auth_users USERNAME [--cid CID] [--contractor ID] [--territory ID] [--staff-scope SCOPE ...]
    (--stack STACK | --local | --table NAME)
"""

import argparse
import getpass
import sys

from ops.target import add_target, aws_client, output
from ott.auth.admin import create_user
from ott.auth.policy import STAFF_SCOPES
from ott.auth.store import auth_records
from ott.errors import InvalidInput
from ott.recordstore import ConcurrentChange


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("username")
    parser.add_argument("--cid", type=int)
    parser.add_argument("--contractor", type=int, help="the registry's contractor whose subscriber this is")
    parser.add_argument("--territory", type=int, help="the registry's territory the subscriber lives in")
    parser.add_argument("--staff-scope", action="append", default=[], choices=sorted(STAFF_SCOPES))
    add_target(parser)
    args = parser.parse_args(argv)
    password = getpass.getpass("password: ")
    store = auth_records(aws_client(args, "dynamodb"), output(args, "AuthTableName"))
    try:
        account_id = create_user(
            store,
            args.username,
            password,
            cid=args.cid,
            contractor_id=args.contractor,
            territory_id=args.territory,
            staff_scopes=args.staff_scope,
        )
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
