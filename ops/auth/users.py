"""Create a personal account (login = e-mail). The password is read from the terminal, never from arguments.
With `--update`, change an existing account's home and staff scopes instead (only what is given changes; its
sign-ins carry a new home from their next refresh on, and a staff scope taken away is gone from their next request).
Both are recorded in the auth trail of the audit table: who made or changed which account, its home and staff
scopes before and after.

python -m ops.auth.users USERNAME [--cid CID] [--contractor ID] [--territory ID] [--staff-scope SCOPE ...]
    [--operator NAME] (--stack STACK | --local | --table NAME --audit-table NAME)
python -m ops.auth.users USERNAME --update [--contractor ID] [--territory ID | --no-home]
    [--staff-scope SCOPE ... | --no-staff-scope] [--operator NAME] (--stack STACK | --local | --table NAME
    --audit-table NAME)
"""

import getpass
import sys

from ops.command import command, command_parser
from ops.target import add_operator, add_target, database, output, staff_change
from ott.auth.admin import UNCHANGED, create_user, update_user
from ott.auth.policy import STAFF_SCOPES
from ott.auth.store import auth_records
from ott.errors import InvalidInput
from ott.recordstore import ConcurrentChange


@command
def main(argv: list[str] | None = None) -> int:
    parser = command_parser(__doc__)
    parser.add_argument("username")
    parser.add_argument("--cid", type=int)
    parser.add_argument("--contractor", type=int, help="the registry's contractor whose subscriber this is")
    parser.add_argument("--territory", type=int, help="the registry's territory the subscriber lives in")
    parser.add_argument("--staff-scope", action="append", default=[], choices=sorted(STAFF_SCOPES))
    parser.add_argument("--update", action="store_true", help="change an existing account instead of creating one")
    parser.add_argument("--no-staff-scope", action="store_true", help="with --update: take every staff scope away")
    parser.add_argument("--no-home", action="store_true", help="with --update: no contractor or territory")
    add_target(parser)
    add_operator(parser)
    args = parser.parse_args(argv)
    if not args.update and (args.no_staff_scope or args.no_home):
        parser.error("--no-staff-scope and --no-home need --update")
    if (args.no_staff_scope and args.staff_scope) or (args.no_home and (args.contractor or args.territory)):
        parser.error("--no-staff-scope or --no-home contradicts a value given")
    store = auth_records(database(args), output(args, "AuthTableName"))
    if args.update:
        try:
            account = update_user(
                store,
                args.username,
                contractor_id=None if args.no_home else UNCHANGED if args.contractor is None else args.contractor,
                territory_id=None if args.no_home else UNCHANGED if args.territory is None else args.territory,
                staff_scopes=[] if args.no_staff_scope else args.staff_scope or None,
                change=staff_change(args),
            )
        except InvalidInput as error:
            print(error.description, file=sys.stderr)
            return 2
        except ConcurrentChange:
            print(f"{args.username} changed meanwhile; run the command again", file=sys.stderr)
            return 2
        home = f"contractor {account.contractor_id}, territory {account.territory_id}"
        print(f"account_id: {account.account_id}; {home}; staff scopes: {' '.join(account.staff_scopes) or 'none'}")
        return 0
    password = getpass.getpass("password: ")
    try:
        account_id = create_user(
            store,
            args.username,
            password,
            cid=args.cid,
            contractor_id=args.contractor,
            territory_id=args.territory,
            staff_scopes=args.staff_scope,
            change=staff_change(args),
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
