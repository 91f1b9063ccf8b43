"""Set an account's limit of concurrent streams (its Xtream logins' screens, issue 29), recorded in the audit trail
in the change's own transaction; `--default` gives it the platform's default again (XTREAM_MAX_CONNECTIONS).

python -m ops.auth.xtream_limit ACCOUNT_ID (--max N | --default) [--operator NAME]
    (--stack STACK | --local | --table NAME --audit-table NAME)
"""

from ops.command import command, command_parser
from ops.target import add_operator, add_target, database, output, staff_change
from ott.auth.store import auth_records
from ott.auth.xtream_logins import set_max_connections


@command
def main(argv: list[str] | None = None) -> int:
    parser = command_parser(__doc__)
    parser.add_argument("account_id", type=int)
    limit = parser.add_mutually_exclusive_group(required=True)
    limit.add_argument("--max", type=int, choices=range(1, 101), metavar="1..100", help="concurrent streams")
    limit.add_argument("--default", action="store_true", help="the platform's default limit")
    add_operator(parser)
    add_target(parser)
    args = parser.parse_args(argv)
    store = auth_records(database(args), output(args, "AuthTableName"))
    # A missing account or screens that kept changing: `command` ends with its one line and 2.
    set_max_connections(store, staff_change(args), args.account_id, args.max)
    print(f"account {args.account_id}: {args.max or 'the default number of'} concurrent streams")
    return 0
