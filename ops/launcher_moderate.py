"""The launcher's pre-moderation: list the posters awaiting approval, or approve one. An approval is recorded
with who gave it and when; the public sees the poster from then on, until its content changes.

    python -m ops.launcher_moderate pending (--stack STACK | --local | --table NAME)
    python -m ops.launcher_moderate approve POSTER_ID [--by NAME] (--stack STACK | --local | --table NAME)
"""

import argparse
import getpass
import sys
from datetime import UTC, datetime

from ops.target import add_target, database, output
from ott.errors import DomainError
from ott.launcher.selection import valid_approval
from ott.launcher.service import SnapshotNotSaved, approve_poster
from ott.launcher.store import DynamoLauncherStore
from ott.recordstore import ConcurrentChange


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    actions = parser.add_subparsers(dest="action", required=True)
    pending = actions.add_parser("pending", help="posters marked for pre-moderation and their state")
    approve = actions.add_parser("approve", help="approve a poster awaiting moderation")
    approve.add_argument("poster_id", type=int)
    approve.add_argument("--by", default=None, help="the moderator (default: your login name)")
    for action in (pending, approve):
        add_target(action)
    args = parser.parse_args(argv)
    store = DynamoLauncherStore(database(args), output(args, "LauncherTableName"))
    if args.action == "pending":
        current = store.current()
        for entry in current.block.posters if current else []:
            if entry.pre_moderation:
                approval = valid_approval(entry, current.approvals) if current else None
                state = (
                    f"approved by {approval.approved_by} at {approval.approved_at.isoformat()}"
                    if approval
                    else "PENDING"
                )
                print(f"{entry.id}\t{entry.type}\t{entry.title or ''}\t{state}")
        return 0
    moderator = args.by or getpass.getuser()
    try:
        approval = approve_poster(store, args.poster_id, moderator, datetime.now(UTC))
        snapshot_problem = None
    except SnapshotNotSaved as error:  # the approval is recorded all the same: say so first
        approval, snapshot_problem = error.done, str(error)
    except DomainError as error:
        print(error.description, file=sys.stderr)
        return 2
    except ConcurrentChange:
        print("the block changed meanwhile; look at it again and retry", file=sys.stderr)
        return 2
    print(f"poster {approval.poster_id} approved by {approval.approved_by} at {approval.approved_at.isoformat()}")
    if snapshot_problem:
        print(f"{snapshot_problem} (the next hourly snapshot takes it)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
