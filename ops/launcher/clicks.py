"""Send poster click events to the launcher's click queue, in the tracking service's format (the contract:
docs/launcher.md). Every event is validated first; nothing is sent when any is invalid.

    python -m ops.launcher.clicks FILE (--stack STACK | --local)
        FILE: JSON lines, or a YAML/JSON list, of events
    python -m ops.launcher.clicks --poster ID --snapshot HASH [--count N] [--device ID | --account ID]
        [--time MOMENT] (--stack STACK | --local)
        N events of one poster, each with its own event id (device `ops-clicks` by default, time now)
"""

import argparse
import json
import sys
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ops.documents import DocumentError, read_document
from ops.target import add_target, aws_client, output
from ott.launcher.clicks import ClickEvent
from ott.wire import problems_of

SQS_BATCH = 10


def read_events(path: Path) -> list[Any]:
    if path.suffix == ".jsonl":
        return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    document = read_document(path)
    if not isinstance(document, list):
        raise DocumentError([f"{path}: must be a list of events"])
    return document


def generated(args: argparse.Namespace) -> list[dict[str, Any]]:
    viewer = {"account_id": args.account} if args.account is not None else {"device_id": args.device}
    return [
        {
            "event_id": f"ops-{uuid.uuid4()}",
            "poster_id": args.poster,
            "snapshot_hash": args.snapshot,
            "time": args.time or datetime.now(UTC).isoformat(),
            **viewer,
        }
        for _ in range(args.count)
    ]


def validated(raw: list[Any]) -> tuple[list[str], list[str]]:
    """The events as message bodies, and every problem found (by position)."""
    bodies, problems = [], []
    for i, event in enumerate(raw):
        try:
            ClickEvent.model_validate(event)
            bodies.append(json.dumps(event, ensure_ascii=False, default=str))
        except ValidationError as error:
            problems += problems_of(error, i)
    return bodies, problems


def send(sqs: Any, queue_url: str, bodies: list[str]) -> int:
    for start in range(0, len(bodies), SQS_BATCH):
        entries = [{"Id": str(i), "MessageBody": body} for i, body in enumerate(bodies[start : start + SQS_BATCH])]
        failed = sqs.send_message_batch(QueueUrl=queue_url, Entries=entries).get("Failed", [])
        if failed:
            raise RuntimeError(f"the queue refused {len(failed)} event(s): {failed[0].get('Message')}")
    return len(bodies)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("file", type=Path, nargs="?")
    parser.add_argument("--poster", type=int)
    parser.add_argument("--snapshot", help="the snapshot hash (ETag without quotes) of the reply that showed it")
    parser.add_argument("--count", type=int, default=1)
    parser.add_argument("--device", default="ops-clicks")
    parser.add_argument("--account", type=int)
    parser.add_argument("--time", help="ISO 8601 or seconds since the epoch (default: now)")
    add_target(parser, table=False)
    args = parser.parse_args(argv)
    if (args.file is None) == (args.poster is None):
        parser.error("give a FILE of events or --poster with --snapshot")
    if args.poster is not None and not args.snapshot:
        parser.error("--poster needs --snapshot")
    try:
        raw = read_events(args.file) if args.file else generated(args)
    except DocumentError as error:
        print(error, file=sys.stderr)
        return 2
    except ValueError as error:  # a line of JSON lines
        print(f"not readable: {error}", file=sys.stderr)
        return 2
    bodies, problems = validated(raw)
    if problems:
        print(f"{len(problems)} problem(s); nothing sent:\n" + "\n".join(problems), file=sys.stderr)
        return 2
    sent = send(aws_client(args, "sqs"), output(args, "LauncherClickQueueUrl"), bodies)
    print(f"sent: {sent} click event(s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
