"""Operators' commands of the niche-content queue.

    python -m ops.nichecontent.queue add FILE (--stack STACK | --local | --table NAME | --check)
    python -m ops.nichecontent.queue retry ID [--by NAME] (--stack STACK | --local | --table NAME --audit-table NAME)
    python -m ops.nichecontent.queue show ID (--stack STACK | --local | --table NAME)
    python -m ops.nichecontent.queue failed (--stack STACK | --local | --table NAME)

`add` queues the items of a YAML or JSON file (docs/nichecontent.md): the whole file is validated
first, and nothing is written when any entry is invalid or names an id queued already from another source;
items queued already from the same source are left as they are. `retry` puts a failed item back to awaiting
(its automatic retries renewed), recorded in the audit trail as the console's retries are. `show` prints an item
and every transition it made. `failed` lists the failed items the queue retries no more (longest failed first):
they wait for an operator's `retry`.
"""

import argparse
import sys
from datetime import UTC, datetime
from pathlib import Path

from ops.documents import DocumentError, read_document
from ops.target import add_operator, add_target, audit_log, database, operator, output
from ott.errors import DomainError
from ott.nichecontent.intake import IntakeError, NewItem, parse_add_file
from ott.nichecontent.models import NicheItem
from ott.nichecontent.service import add_items, retry, stored_item
from ott.nichecontent.store import DynamoNicheStore
from ott.nichecontent.transitions import RetryPolicy


def read_items(path: Path) -> list[NewItem]:
    try:
        document = read_document(path)
    except DocumentError as error:
        raise IntakeError(error.problems) from None
    return parse_add_file(document)


def describe(item: NicheItem) -> str:
    lines = [
        f"id:         {item.id}",
        f"source_url: {item.source_url}",
        f"status:     {item.status.label} ({int(item.status)}) since {item.status_since.isoformat()}",
        f"failures:   {item.failures}" + (f", next retry {item.retry_at.isoformat()}" if item.retry_at else ""),
    ]
    if item.link:
        lines.append(f"link:       {item.link}")
    lines.append("history:")
    for entry in item.history:
        by = f" by {entry.actor}" if entry.actor else ""
        link = f" {entry.link}" if entry.link else ""
        lines.append(f"  {entry.at.isoformat()}  {entry.status.label:<12} {entry.cause.value}{by}{link}")
    return "\n".join(lines)


def store_of(args: argparse.Namespace, *, audited: bool = False) -> DynamoNicheStore:
    """`audited`: the store of a change staff make, recorded in the target's audit trail."""
    return DynamoNicheStore(database(args), output(args, "NicheContentTableName"), audit_log(args) if audited else None)


def run(args: argparse.Namespace) -> str:
    now = datetime.now(UTC)
    if args.command == "add":
        items = read_items(args.file)
        if args.check:
            return f"valid: {len(items)} items"
        added, present = add_items(store_of(args), items, now)
        return f"added {added} items awaiting encoding; {present} queued already"
    if args.command == "retry":
        return describe(retry(store_of(args, audited=True), RetryPolicy(), operator(args), args.id, now))
    if args.command == "failed":
        lines = [
            f"{s.item.status_since.isoformat()}  {s.item.id}  failures={s.item.failures}  {s.item.source_url}"
            for s in store_of(args).given_up()
        ]
        return "\n".join([*lines, f"{len(lines)} failed items wait for an operator's retry"])
    return describe(stored_item(store_of(args), args.id).item)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    add = commands.add_parser("add", help="queue the items of a file")
    add.add_argument("file", type=Path)
    add_target(add, check=True)
    for name, help_text in (("retry", "a failed item back to awaiting"), ("show", "an item and its history")):
        command = commands.add_parser(name, help=help_text)
        command.add_argument("id")
        add_target(command)
        if name == "retry":
            add_operator(command)
    add_target(commands.add_parser("failed", help="failed items the queue retries no more"))
    args = parser.parse_args(argv)
    try:
        print(run(args))
    except IntakeError as error:
        print(error, file=sys.stderr)
        return 2
    except DomainError as error:
        print(f"{error.code}: {error.description}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
