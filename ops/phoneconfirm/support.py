"""Technical support confirms a number that no channel could deliver to (stage 4 of phone confirmation),
after checking it by other means. The account's confirmed phone is recorded as by a valid code.

    python -m ops.phoneconfirm.support REQUEST_ID [--operator NAME] (--stack STACK | --local)

Recorded in the phone-confirmation trail of the audit table, with the confirmation.
"""

import sys

from ops.command import command, command_parser
from ops.target import add_operator, add_target, database, output, staff_change
from ott.phoneconfirm.service import RequestError, confirm_by_support
from ott.phoneconfirm.store import phone_records


@command
def main(argv: list[str] | None = None) -> int:
    parser = command_parser(__doc__)
    parser.add_argument("request_id")
    add_target(parser, table=False)
    add_operator(parser)
    args = parser.parse_args(argv)
    tables = output(args, "PhoneTableName"), output(args, "AuthTableName")
    store = phone_records(database(args), *tables)
    try:
        request = confirm_by_support(store, args.request_id, staff_change(args))
    except RequestError as error:
        print(error.code, file=sys.stderr)
        return 2
    print(f"confirmed {request.phone} for account {request.account_id}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
