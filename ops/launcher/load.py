"""Load the launcher block (the posters of the set-top boxes' home screen) from a YAML or JSON file. The whole
file is validated first, every problem listed at once; nothing is written when any entry is invalid. The load
replaces the block in force (approvals of unchanged posters stay) and stores a snapshot of it.

    python -m ops.launcher.load FILE [--operator NAME]
        (--stack STACK | --local | --table NAME --audit-table NAME) [--check]

`--check` validates against the target's programme guide and writes nothing.

Telecast and channel posters take what the file leaves out (title, description, duration, images) from the
programme guide. When the guide cannot be reached (not deployed, or not configured in this environment: with
`--stack` the guide's settings come from the environment), the load goes on without it and says so: such
posters then need their own titles.
"""

import argparse
import os
import sys
from datetime import UTC, datetime
from pathlib import Path

from ops.command import command, command_parser
from ops.documents import DocumentError, read_document
from ops.target import add_operator, add_target, audit_log, database, local_endpoint, operator, output
from ott.launcher.block import BlockError, LauncherBlock
from ott.launcher.guide import SummariesLookup, programme_guide
from ott.launcher.service import SnapshotNotSaved, check_block, load_block
from ott.launcher.store import DynamoLauncherStore


def read_block(path: Path) -> object:
    try:
        return read_document(path)
    except DocumentError as error:
        raise BlockError(error.problems) from None


def load(path: Path, args: argparse.Namespace, guide: SummariesLookup, now: datetime) -> LauncherBlock:
    store = DynamoLauncherStore(database(args), output(args, "LauncherTableName"), audit=audit_log(args))
    return load_block(store, read_block(path), guide, operator(args), now).block


def guide_of(args: argparse.Namespace) -> SummariesLookup:
    """The programme guide of the target: for `--local` the local stack's, reached like its functions reach it."""
    if args.local:
        from local.template import REGION, Template
        from ott.aws import reset_clients
        from ott.config import reset_settings

        os.environ.update(Template().environment())
        os.environ.update(
            {"AWS_ENDPOINT_URL": local_endpoint(), "AWS_DEFAULT_REGION": REGION, "AWS_ACCESS_KEY_ID": "local"}
        )
        os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "local")
        reset_clients()
        reset_settings()
    return programme_guide()


@command
def main(argv: list[str] | None = None) -> int:
    parser = command_parser(__doc__)
    parser.add_argument("file", type=Path)
    add_target(parser)
    add_operator(parser)
    parser.add_argument(
        "--check", action="store_true", help="validate only (against the target's guide); write nothing"
    )
    args = parser.parse_args(argv)
    guide = guide_of(args)
    snapshot_problem = None
    try:
        if args.check:
            block = check_block(read_block(args.file), guide)
        else:
            block = load(args.file, args, guide, datetime.now(UTC))
    except SnapshotNotSaved as error:  # the block is loaded all the same: say so first
        block, snapshot_problem = error.done.block, str(error)
    except BlockError as error:
        print(error, file=sys.stderr)
        if guide.unavailable:
            print(f"(the programme guide was unavailable: {guide.unavailable})", file=sys.stderr)
        return 2
    waiting = sum(1 for poster in block.posters if poster.pre_moderation)
    print(f"{'valid' if args.check else 'loaded'}: {len(block.posters)} posters, {waiting} marked for pre-moderation")
    if guide.unavailable:
        print(f"programme guide unavailable ({guide.unavailable}): posters keep what the file gives them")
    if snapshot_problem:
        print(f"{snapshot_problem} (the next hourly snapshot takes it)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
