"""The programme guide's zones and imports (docs/tvguide.md, "Zones"): list the zones with their labels, time
zone, channel count and last import; create a zone; list the imports of the last week with their reports; print
one import's report (its progress while it runs), for an import `ops.tvguide.load` stopped waiting for; delete a
zone and what only it holds (refused while an import into it runs); take a source's facts (`<zone>/<file name>`) off
the channels and shows that hold them.

    python -m ops.tvguide.zones list (--stack STACK | --local | --table NAME)
    python -m ops.tvguide.zones create ZONE [--geo LABEL,...] [--timezone IANA] [--territory ID ...] (--stack … )
    python -m ops.tvguide.zones delete ZONE (--stack … )
    python -m ops.tvguide.zones history [--zone ZONE] (--stack … )
    python -m ops.tvguide.zones report KEY (--stack … )
    python -m ops.tvguide.zones remove-source ZONE/FILE (--stack … )
"""

import argparse
import json
import sys
import time
from datetime import UTC, datetime
from functools import partial

from ops.target import add_target, aws_client, database, output
from ott.errors import DomainError, InvalidInput
from ott.tvguide.export_queue import request_exports
from ott.tvguide.operations import (
    ExportRequests,
    create_zone,
    delete_zone,
    import_history,
    remove_source,
    zones_overview,
)
from ott.tvguide.store import DynamoGuideStore


def when(epoch: int | None) -> str:
    return f"{datetime.fromtimestamp(epoch, UTC):%Y-%m-%d %H:%M:%SZ}" if epoch else "-"


def summary(report: dict) -> str:
    counts = f"{report.get('channels', 0)} channels, {report.get('telecasts', 0)} telecasts"
    detail = report.get("error") or counts
    return f"{when(report.get('started'))} {report['status']} {report['key']}: {detail}"


def export_requests(args: argparse.Namespace) -> ExportRequests:
    """The command's export requests (GET /tvguide/2/xmltv.xml sends players to the exports): to the stack's queue;
    with `--table` no queue is known, and the command says which exports it left as they were."""
    if getattr(args, "table", None):
        return lambda zones: print(
            f"exports of {', '.join(sorted(zones))} not refreshed: name the stack (--stack or --local)", file=sys.stderr
        )
    return partial(request_exports, aws_client(args, "sqs"), output(args, "GuideExportQueueUrl"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    add_target(commands.add_parser("list", help="the zones"))
    create = commands.add_parser("create", help="create a zone")
    create.add_argument("zone")
    create.add_argument("--geo", help="labels, comma-separated (default: the zone's name)")
    create.add_argument("--timezone", help="IANA time zone (default: the zone's name when IANA, else UTC)")
    create.add_argument("--territory", type=int, action="append", help="a registry territory the zone serves")
    add_target(create)
    delete = commands.add_parser("delete", help="delete a zone and what only it holds")
    delete.add_argument("zone")
    add_target(delete)
    history = commands.add_parser("history", help="the imports of the last week, the newest first")
    history.add_argument("--zone")
    add_target(history)
    report = commands.add_parser("report", help="one import's report")
    report.add_argument("key")
    add_target(report)
    remove = commands.add_parser("remove-source", help="take a source's facts off its channels and shows")
    remove.add_argument("source", help="<zone>/<file name>, as the file was uploaded")
    add_target(remove)
    args = parser.parse_args(argv)
    store = DynamoGuideStore(database(args), output(args, "GuideTableName"))
    if args.command == "list":
        for overview in zones_overview(store):
            last = summary(overview.last_import) if overview.last_import else "no import this week"
            labels = ", ".join(overview.geo)
            print(f"{overview.name}: labels {labels}; {overview.timezone}; {overview.channels} channels; {last}")
    elif args.command == "create":
        geo = [label.strip() for label in args.geo.split(",")] if args.geo else None
        try:
            zone = create_zone(store, args.zone, geo, args.timezone, args.territory, exports=export_requests(args))
        except InvalidInput as error:
            print(f"not created: {error}", file=sys.stderr)
            return 2
        print(f"created zone {zone.name!r}: labels {', '.join(zone.geo)}, time zone {zone.timezone}")
    elif args.command == "delete":
        try:
            deleted = delete_zone(store, args.zone, int(time.time()), exports=export_requests(args))
        except DomainError as error:
            print(f"not deleted: {error}", file=sys.stderr)
            return 1 if error.status == 404 else 2
        print(
            f"deleted zone {deleted.name!r}: {deleted.channel_days} channel-days, {deleted.channels} channels "
            f"and {deleted.shows} shows no other zone holds; its import reports stay"
        )
    elif args.command == "remove-source":
        remove_source(store, args.source, exports=export_requests(args))
        print(f"removed the facts of source {args.source!r} from its channels and shows; its channel-days stay")
    elif args.command == "history":
        for entry in import_history(store, args.zone):
            print(summary(entry))
    else:
        found = store.import_result(args.key)
        if found is None:
            print(f"no report {args.key!r} (reports are kept a week)", file=sys.stderr)
            return 1
        print(json.dumps(found, ensure_ascii=False, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
