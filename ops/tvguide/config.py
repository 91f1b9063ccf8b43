"""Load the programme guide's configuration (zones, per-channel overrides, rubrics) from a YAML or JSON file;
the format is docs/tvguide.md. The whole file is validated first and every problem listed; nothing is
written when anything is wrong. The file replaces the configuration the guide had (also zones created since),
recorded in the audit trail (what changed, by whom: `--by`, default your login name), as the console's editor
does (`ott.tvguide.operations.replace_configuration`).

    python -m ops.tvguide.config FILE [--by NAME] (--stack STACK | --local | --table NAME --audit-table NAME)
    python -m ops.tvguide.config FILE --check
"""

import argparse
import sys
from datetime import UTC, datetime
from pathlib import Path

from ops.documents import DocumentError, read_document
from ops.target import add_operator, add_target, audit_log, database, operator, output
from ops.tvguide.zones import export_requests
from ott.tvguide.config import ConfigurationInvalid, GuideConfig, checked_configuration
from ott.tvguide.operations import replace_configuration
from ott.tvguide.store import ConfigurationChanged, DynamoGuideStore


def read(path: Path) -> object:
    try:
        return read_document(path)
    except DocumentError as error:
        raise ConfigurationInvalid(error.problems) from None


def read_config(path: Path) -> GuideConfig:
    return checked_configuration(read(path))


def load(path: Path, args: argparse.Namespace) -> GuideConfig:
    store = DynamoGuideStore(database(args), output(args, "GuideTableName"), audit=audit_log(args))
    now = datetime.now(UTC)
    config, _ = replace_configuration(
        store, operator(args), read(path), None, now, path.name, exports=export_requests(args)
    )
    return config


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("file", type=Path)
    add_target(parser, check=True)
    add_operator(parser)
    args = parser.parse_args(argv)
    try:
        config = read_config(args.file) if args.check else load(args.file, args)
    except ConfigurationInvalid as error:
        print("\n".join(error.problems), file=sys.stderr)
        return 2
    except ConfigurationChanged as error:
        print(error, file=sys.stderr)
        return 1
    print(
        f"{'valid' if args.check else 'loaded'}: {len(config.zones)} zones, {len(config.channels)} channel "
        f"overrides, {len(config.rubrics)} rubrics"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
