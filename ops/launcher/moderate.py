"""The launcher's pre-moderation: list the posters awaiting it, approve one, or reject one with a comment. A
decision is recorded with who made it and when, in the audit trail too; the public sees an approved poster from
then on, until its content changes. The console's moderators do the same through its routes.

    python -m ops.launcher.moderate pending (--stack STACK | --local | --table NAME)
    python -m ops.launcher.moderate approve POSTER_ID [--comment TEXT] [--operator NAME] (--stack STACK | --local
        | --table NAME --audit-table NAME)
    python -m ops.launcher.moderate reject POSTER_ID --comment TEXT [--operator NAME] (--stack STACK | --local
        | --table NAME --audit-table NAME)
"""

import sys
from datetime import UTC, datetime

from ops.command import command, command_parser
from ops.target import add_operator, add_target, audit_log, database, operator, output
from ott.errors import DomainError
from ott.launcher.models import Moderation, ModerationDecision, ModerationState
from ott.launcher.service import SnapshotNotSaved, decide_poster, moderation_queue
from ott.launcher.store import DynamoLauncherStore


def described(moderation: Moderation | None) -> str:
    """PENDING, or who decided when (and why, for a rejection)."""
    if moderation is None or moderation.state == ModerationState.PENDING:
        return "PENDING"
    if moderation.state == ModerationState.APPROVED and moderation.approved_at:
        return f"approved by {moderation.approved_by} at {moderation.approved_at.isoformat()}"
    at = moderation.rejected_at.isoformat() if moderation.rejected_at else ""
    return f"rejected by {moderation.rejected_by} at {at}: {moderation.comment}"


@command
def main(argv: list[str] | None = None) -> int:
    parser = command_parser(__doc__)
    actions = parser.add_subparsers(dest="action", required=True)
    pending = actions.add_parser("pending", help="posters marked for pre-moderation and their state")
    add_target(pending)
    for name, help_text in (("approve", "approve a poster awaiting moderation"), ("reject", "reject a poster")):
        action = actions.add_parser(name, help=help_text)
        action.add_argument("poster_id", type=int)
        action.add_argument("--comment", required=name == "reject", help="what the moderator says of the poster")
        add_operator(action)
        add_target(action)
    args = parser.parse_args(argv)
    staff, now = operator(args), datetime.now(UTC)
    audit = None if args.action == "pending" else audit_log(args)
    store = DynamoLauncherStore(database(args), output(args, "LauncherTableName"), audit=audit)
    if args.action == "pending":
        for poster in moderation_queue(store, staff, now).posters:
            print(f"{poster.id}\t{poster.type}\t{poster.title or ''}\t{described(poster.moderation)}")
        return 0
    verdict = ModerationDecision(poster_id=args.poster_id, approved=args.action == "approve", comment=args.comment)
    try:
        moderated = decide_poster(store, staff, verdict, now)
        snapshot_problem = None
    except SnapshotNotSaved as error:  # the decision is recorded all the same: say so first
        moderated, snapshot_problem = error.done, str(error)
    except DomainError as error:
        print(error.description, file=sys.stderr)
        return 2
    print(f"poster {moderated.poster_id}: {moderated.moderation.state} by {staff.name}")
    if snapshot_problem:
        print(f"{snapshot_problem} (the next hourly snapshot takes it)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
