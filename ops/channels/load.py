"""The channel configuration of the stream-authorization component (docs/channels.md).

    python -m ops.channels.load FILE [--by NAME] (--stack NAME | --local | --table NAME --audit-table NAME | --check)
    python -m ops.channels.load --rollback [VERSION] [--by NAME] (--stack NAME | --local
        | --table NAME --audit-table NAME)
    python -m ops.channels.load --versions (--stack NAME | --local | --table NAME)
    python -m ops.channels.load --export [VERSION] (--stack NAME | --local | --table NAME) > channels.yaml
    python -m ops.channels.load --from-m3u PLAYLIST [--output FILE] [--title TITLE] [--protected-root PATH]

A load validates the whole file first and writes nothing when anything is wrong, listing every problem;
what the spec repairs is repaired and listed as warnings. Loads and rollbacks are recorded in the audit trail
(the console's channel engineers do the same through its routes). Every load is a new version; the 20 before the
newest are kept, and --rollback makes one of them current again (by default the one before the current).
--export writes a kept version (the current one by default) as a configuration file to edit and load again.
--from-m3u turns a playlist into a configuration file to review and load.
"""

import argparse
import json
import sys
from datetime import UTC, datetime
from pathlib import Path

import yaml

from ops.documents import DocumentError, read_document
from ops.target import add_operator, add_target, audit_log, database, operator, output
from ott.callers import Staff
from ott.channels.m3u import DEFAULT_PROTECTED_ROOT, DEFAULT_TITLE, NotAPlaylist, convert_m3u
from ott.channels.service import VersionError, publish, rollback, stored_configuration
from ott.channels.store import ChannelStore, DynamoChannelStore, VersionInfo
from ott.channels.validation import ConfigurationError, ValidConfiguration, validate_configuration


def read_configuration(path: Path) -> ValidConfiguration:
    """The file's configuration, repaired, or ConfigurationError listing every problem."""
    try:
        document = read_document(path)
    except DocumentError as error:
        raise ConfigurationError(error.problems) from None
    return validate_configuration(document)


def load(path: Path, store: ChannelStore, staff: Staff) -> tuple[VersionInfo, list[str]]:
    """Validate the file and make it the current version; the warnings of what was repaired."""
    valid = read_configuration(path)
    return publish(store, valid, path.name, staff, datetime.now(UTC)), valid.warnings


def describe(info: VersionInfo) -> str:
    by = f" by {info.loaded_by}" if info.loaded_by else ""
    return (
        f"version {info.version} ({info.loaded_at}{by}, {info.source}): {info.channels} channels, "
        f"{info.categories} categories, {info.size:,} bytes"
    )


def as_yaml(document: dict) -> str:
    """A configuration file's text: fields in the spec's order, text as it is (Cyrillic not escaped)."""
    return str(yaml.safe_dump(document, allow_unicode=True, sort_keys=False, width=1000))


def from_m3u(args: argparse.Namespace) -> int:
    try:
        text = args.from_m3u.read_text(encoding="utf-8", errors="replace")
    except OSError as error:
        print(f"{args.from_m3u}: {error}", file=sys.stderr)
        return 2
    try:
        conversion = convert_m3u(text, title=args.title, protected_root=args.protected_root)
    except NotAPlaylist as error:
        print(f"{args.from_m3u}: {error}", file=sys.stderr)
        return 2
    document = as_yaml(json.loads(json.dumps(conversion.document)))  # enums as their names
    header = f"# Converted from {args.from_m3u.name}; review before loading (docs/channels.md).\n"
    if args.output:
        args.output.write_text(header + document, encoding="utf-8")
    else:
        sys.stdout.write(header + document)
    for note in conversion.notes:
        print(f"note: {note}", file=sys.stderr)
    channels = len(conversion.document["channels"])
    print(f"converted: {channels} channels, {len(conversion.notes)} notes to review", file=sys.stderr)
    return 0


def m3u_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--from-m3u", type=Path, required=True, metavar="PLAYLIST")
    parser.add_argument("--output", type=Path, help="configuration file to write (default: standard output)")
    parser.add_argument("--title", default=DEFAULT_TITLE, help="the configuration's title")
    parser.add_argument("--protected-root", default=DEFAULT_PROTECTED_ROOT, help="root of the HLS protected paths")
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if "--from-m3u" in argv:
        return from_m3u(m3u_parser().parse_args(argv))
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    action = parser.add_mutually_exclusive_group(required=True)
    action.add_argument("file", type=Path, nargs="?", help="configuration file (YAML, or JSON by its .json suffix)")
    action.add_argument(
        "--rollback", nargs="?", const=0, type=int, metavar="VERSION", help="make a kept version current"
    )
    action.add_argument("--versions", action="store_true", help="list the kept versions")
    action.add_argument(
        "--export", nargs="?", const=0, type=int, metavar="VERSION", help="write a kept version as a file"
    )
    add_target(parser, check=True)
    add_operator(parser)
    args = parser.parse_args(argv)
    if args.check and args.file is None:
        parser.error("--check validates a FILE")
    try:
        if args.check:
            valid = read_configuration(args.file)
            warnings, done = valid.warnings, f"valid: {len(valid.channel_list.channels)} channels"
        else:
            changing = args.file is not None or args.rollback is not None
            audit = audit_log(args) if changing else None
            store = DynamoChannelStore(database(args), output(args, "ChannelsTableName"), audit)
            warnings, done = [], ""
            if args.versions:
                current, kept = store.current(), sorted(store.versions(), key=lambda info: info.version)
                for info in kept:
                    mark = "*" if current is not None and info.version == current.version else " "
                    print(f"{mark} {describe(info)}")
                if not kept:
                    print("no version is stored yet")
                return 0
            if args.export is not None:
                info, channel_list = stored_configuration(store, args.export or None)
                sys.stdout.write(
                    f"# {describe(info)}\n" + as_yaml(channel_list.model_dump(mode="json", exclude_none=True))
                )
                return 0
            if args.rollback is not None:
                done = "current: " + describe(rollback(store, operator(args), args.rollback or None, datetime.now(UTC)))
            else:
                info, warnings = load(args.file, store, operator(args))
                done = "loaded " + describe(info)
    except (ConfigurationError, VersionError) as error:
        print(error, file=sys.stderr)
        return 2
    for warning in warnings:
        print(f"warning: {warning}", file=sys.stderr)
    print(done)
    return 0


if __name__ == "__main__":
    sys.exit(main())
