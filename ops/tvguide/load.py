"""Import an XMLTV guide into a programme zone through the same path as in AWS: the file is uploaded to the
guide inbox bucket under `<zone>/<name>`, S3 announces it to the import queue, the import function imports it;
this command waits for its report and prints it. A file that is not XMLTV is refused before anything is
uploaded (exit 2); `--check` maps the file here and writes nothing. The zone must exist (`python -m
ops.tvguide.zones list`): an import into another is refused, naming the zones there are, unless `--create-zone`
creates it first, labelled with `--geo` (default: its name), in the IANA time zone `--timezone` (default: its name
when that is one, else UTC). While the import runs, its progress is printed; a report the command stopped waiting
for is fetched later with `python -m ops.tvguide.zones report KEY`.

    python -m ops.tvguide.load FILE --zone ZONE [--operator NAME] (--stack STACK | --local) [--check]
        [--wait SECONDS] [--create-zone [--geo LABEL,...] [--timezone IANA]]

Recorded in the guide's audit trail as the console's upload form is (`upload_guide`: who sent which file where),
before the file is uploaded: the import runs later, from S3's event, without a person. A zone created first is
recorded too (`create_zone`), in the configuration's transaction.
"""

import argparse
import json
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ops.command import command, command_parser
from ops.target import add_operator, add_target, audit_log, aws_client, database, operator, output
from ops.tvguide.zones import export_requests
from ott.audit import AuditEntry
from ott.audit import entry as audit_entry
from ott.errors import InvalidInput
from ott.staff import Area
from ott.tvguide.importer import (
    ImportRefused,
    check_xmltv,
    map_guide,
    report_document,
    unknown_zone,
)
from ott.tvguide.inbox import checked_zone
from ott.tvguide.operations import ZoneExists, create_zone, inbox_key
from ott.tvguide.store import DynamoGuideStore
from ott.tvguide.xmltv import NotXmltv
from ott.tvguide.zones import Zone, new_zone

POLL_SECONDS = 0.5


def wait_for_report(store: DynamoGuideStore, key: str, seconds: float) -> dict[str, Any] | None:
    """The import's report once it is done, its progress printed as it changes; None after `seconds`."""
    deadline, shown = time.monotonic() + seconds, None
    while time.monotonic() < deadline:
        result = store.import_result(key)
        if result is not None and result["status"] != "running":
            return result
        if result is not None and result != shown:
            print(f"running: {result['channels']} channels, {result['telecasts']} telecasts so far", flush=True)
            shown = result
        time.sleep(POLL_SECONDS)
    return None


def import_zone(store: DynamoGuideStore, args: argparse.Namespace) -> Zone:
    """The zone the import goes to: created first with --create-zone when missing; ImportRefused when missing
    otherwise, InvalidInput for a name, label or time zone out of bounds."""
    checked_zone(args.zone)
    config, _ = store.configuration()
    zone = config.zone(args.zone)
    if zone is not None:
        return zone
    if not args.create_zone:
        raise unknown_zone(args.zone, config)
    geo = [label.strip() for label in args.geo.split(",")] if args.geo else None
    if args.check:
        try:
            return new_zone(args.zone, geo, args.timezone)
        except ValueError as error:
            raise InvalidInput(f"not a zone: {error}") from None
    staff, now = operator(args), datetime.now(UTC)

    def audited(zone: Zone) -> AuditEntry:
        after = {"geo": zone.geo, "timezone": zone.timezone, "territories": zone.territories}
        return audit_entry(Area.GUIDE, "create_zone", f"zone {zone.name}", staff, now, after=after)

    try:
        zone = create_zone(store, args.zone, geo, args.timezone, audited=audited, exports=export_requests(args))
    except ZoneExists:  # created meanwhile by someone else
        return import_zone(store, args)
    print(f"created zone {zone.name!r}: labels {', '.join(zone.geo)}, time zone {zone.timezone}")
    return zone


def print_report(result: dict[str, Any]) -> None:
    print(
        f"{result['status']} into zone {result['zone']!r}: {result['channels']} channels, "
        f"{result['telecasts']} telecasts, {result['shows']} shows"
    )
    skipped = result["skipped"]
    print(f"skipped: {sum(skipped.values())}" + "".join(f"\n  {reason}: {n}" for reason, n in skipped.items()))
    for example in result["examples"]:
        print(
            f"  line {example['line']} {example['reason']} {example['channel'] or ''} {example['start'] or ''}: "
            f"{example['detail']}"
        )
    for name in ("untitled", "unusable_urls", "unknown_ratings", "unmapped_categories", "show_id_collisions", "cut"):
        if result[name]:
            print(f"{name}: {json.dumps(result[name], ensure_ascii=False)}")


@command
def main(argv: list[str] | None = None) -> int:
    parser = command_parser(__doc__)
    parser.add_argument("file", type=Path)
    parser.add_argument("--zone", required=True, help="programme zone, e.g. Europe/Moscow or World/Anywhere")
    parser.add_argument("--check", action="store_true", help="validate and report only; write nothing")
    parser.add_argument("--wait", type=float, default=900, help="seconds to wait for the import's report")
    parser.add_argument("--create-zone", action="store_true", help="create the zone first when it does not exist")
    parser.add_argument("--geo", help="the new zone's labels, comma-separated (default: its name)")
    parser.add_argument("--timezone", help="the new zone's IANA time zone (default: its name when IANA, else UTC)")
    add_target(parser, table=False)
    add_operator(parser)
    args = parser.parse_args(argv)
    try:
        check_xmltv(lambda: args.file.open("rb"))
    except (NotXmltv, OSError) as error:
        print(f"{args.file}: not imported: {error}", file=sys.stderr)
        return 2
    audit = None if args.check else audit_log(args)
    store = DynamoGuideStore(database(args), output(args, "GuideTableName"), audit=audit)
    try:
        zone = import_zone(store, args)
    except (ImportRefused, InvalidInput) as error:
        print(f"{args.file}: not imported: {error}", file=sys.stderr)
        return 2
    if args.check:
        catalogue = store.catalogue()
        with args.file.open("rb") as source:
            ids = catalogue.config.channel_ids()
            report = map_guide(store, source, zone, ids, write=False, held=catalogue.channels)
        print_report({**report_document(report, args.zone), "status": "valid"})
        return 0
    now = datetime.now(UTC)
    key = inbox_key(args.zone, args.file.name, now)
    if audit is not None:  # as the console's form: recorded before the file can start an import
        audit.write(audit_entry(Area.GUIDE, "upload_guide", key, operator(args), now, detail=args.file.name))
    with args.file.open("rb") as guide:
        aws_client(args, "s3").upload_fileobj(guide, output(args, "GuideInboxBucketName"), key)
    result = wait_for_report(store, key, args.wait)
    if result is None:
        print(
            f"uploaded as {key}; no report after {args.wait:.0f} s: see it later with"
            f" `python -m ops.tvguide.zones report {key}` (and the import function's log)",
            file=sys.stderr,
        )
        return 1
    if result["status"] == "failed":
        print(f"failed: {result['error']}; the guide is as before, and the import is tried again", file=sys.stderr)
        return 1
    if result["status"] != "imported":
        print(f"refused: {result['error']}", file=sys.stderr)
        return 2
    print_report(result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
