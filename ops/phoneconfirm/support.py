"""Technical support confirms a number that no channel could deliver to (stage 4 of phone confirmation),
after checking it by other means. The account's confirmed phone is recorded as by a valid code.

    python -m ops.phoneconfirm.support REQUEST_ID (--stack STACK | --local)
"""

import argparse
import sys

from ops.target import add_target, database, output
from ott.phoneconfirm.service import RequestError, confirm_by_support
from ott.phoneconfirm.store import phone_records


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("request_id")
    add_target(parser, table=False)
    args = parser.parse_args(argv)
    tables = output(args, "PhoneTableName"), output(args, "AuthTableName")
    store = phone_records(database(args), *tables)
    try:
        request = confirm_by_support(store, args.request_id)
    except RequestError as error:
        print(error.code, file=sys.stderr)
        return 2
    print(f"confirmed {request.phone} for account {request.account_id}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
