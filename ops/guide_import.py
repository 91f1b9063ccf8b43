"""Import an XMLTV guide into a programme zone through the same path as in AWS: the file is uploaded to the
guide inbox bucket under `<zone>/<name>`, S3 announces it to the import queue, the import function imports it;
this command waits for its report and prints it. A file that is not XMLTV is refused before anything is
uploaded (exit 2); `--check` maps the file here and writes nothing. A zone that does not exist yet is created
with the label ZONE, in the time zone ZONE when it is an IANA name (otherwise UTC).

    python -m ops.guide_import FILE --zone ZONE (--stack STACK | --local) [--check] [--wait SECONDS]
"""

import argparse
import json
import secrets
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ops.target import add_target, aws_client, database, output
from ott.tvguide.importer import check_xmltv, import_guide, report_document
from ott.tvguide.inbox import zone_key
from ott.tvguide.store import DynamoGuideStore
from ott.tvguide.xmltv import NotXmltv
from ott.tvguide.zones import Zone

POLL_SECONDS = 0.5


def upload_key(zone: str, path: Path) -> str:
    """A key of its own per upload, so the report waited for is this upload's."""
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    return zone_key(zone, f"{stamp}-{secrets.token_hex(4)}-{path.name}")


def wait_for_report(store: DynamoGuideStore, key: str, seconds: float) -> dict[str, Any] | None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        result = store.import_result(key)
        if result is not None:
            return result
        time.sleep(POLL_SECONDS)
    return None


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
    for name in ("untitled", "unusable_urls", "unknown_ratings", "unmapped_categories", "show_id_collisions"):
        if result[name]:
            print(f"{name}: {json.dumps(result[name], ensure_ascii=False)}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("file", type=Path)
    parser.add_argument("--zone", required=True, help="programme zone, e.g. Europe/Moscow or World/Anywhere")
    parser.add_argument("--check", action="store_true", help="validate and report only; write nothing")
    parser.add_argument("--wait", type=float, default=900, help="seconds to wait for the import's report")
    add_target(parser, table=False)
    args = parser.parse_args(argv)
    try:
        Zone(name=args.zone)
    except ValueError:
        print(f"not a zone name: {args.zone!r} (1 to 64 characters)", file=sys.stderr)
        return 2
    try:
        check_xmltv(lambda: args.file.open("rb"))
    except (NotXmltv, OSError) as error:
        print(f"{args.file}: not imported: {error}", file=sys.stderr)
        return 2
    store = DynamoGuideStore(database(args), output(args, "GuideTableName"))
    if args.check:
        report = import_guide(store, lambda: args.file.open("rb"), args.zone, write=False)
        print_report({**report_document(report, args.zone), "status": "valid"})
        return 0
    key = upload_key(args.zone, args.file)
    with args.file.open("rb") as guide:
        aws_client(args, "s3").upload_fileobj(guide, output(args, "GuideInboxBucketName"), key)
    result = wait_for_report(store, key, args.wait)
    if result is None:
        print(f"uploaded as {key}; no report after {args.wait:.0f} s (see the import function's log)", file=sys.stderr)
        return 1
    if result["status"] != "imported":
        print(f"refused: {result['error']}", file=sys.stderr)
        return 2
    print_report(result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
