"""Load the programme guide's configuration (zones, per-channel overrides, rubrics) from a YAML or JSON file;
the format is docs/guide-data.md. The whole file is validated first and every problem listed; nothing is
written when anything is wrong. The file replaces the configuration the guide had (also zones created since).

    python -m ops.guide_config_load FILE (--stack STACK | --local | --table NAME) [--check]
"""

import argparse
import sys
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ops.documents import DocumentError, read_document
from ops.guide_zones import refresh_exports
from ops.target import add_target, aws_client, output
from ott.http.request import describe
from ott.storage.dynamo import DynamoDatabase
from ott.text import unsafe_text
from ott.tvguide.config import GuideConfig, duplicates
from ott.tvguide.store import DynamoGuideStore


class ConfigError(ValueError):
    def __init__(self, problems: list[str]) -> None:
        super().__init__("\n".join(problems))
        self.problems = problems


def read_config(path: Path) -> GuideConfig:
    try:
        document = read_document(path)
    except DocumentError as error:
        raise ConfigError(error.problems) from None
    if not isinstance(document, dict):
        raise ConfigError([f"{path}: the file must hold a mapping with zones, channels and rubrics"])
    problems = unsafe_text(document)
    try:
        config = GuideConfig.model_validate(document)
    except ValidationError as error:
        problems += describe(error).split("; ") + repeated_keys(document)
    if problems:
        raise ConfigError(problems)
    return config


def repeated_keys(document: dict[str, Any]) -> list[str]:
    """Keys given twice, read from the document itself: found even where other fields are malformed (the
    model checks them only once every field is valid)."""

    def values(section: str, key: str) -> list[Any]:
        entries = document.get(section)
        entries = entries if isinstance(entries, list) else []
        return [entry[key] for entry in entries if isinstance(entry, dict) and entry.get(key) is not None]

    keys = [("zones", "name"), ("channels", "alias"), ("channels", "channelId"), ("rubrics", "id")]
    return [problem for section, key in keys for problem in duplicates(f"{section} ({key})", values(section, key))]


def load(path: Path, table: str, dynamodb: Any) -> tuple[GuideConfig, list[str]]:
    """The configuration loaded, and the zones whose exports it changes: every zone it had or has now (overrides
    change channels' logos and sites; a zone left out is deleted, its export with it)."""
    config = read_config(path)
    store = DynamoGuideStore(DynamoDatabase(dynamodb), table)
    earlier, version = store.configuration()
    store.save_configuration(config, version)
    return config, sorted({zone.name for zone in [*earlier.zones, *config.zones]})


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("file", type=Path)
    add_target(parser, check=True)
    args = parser.parse_args(argv)
    try:
        if args.check:
            config = read_config(args.file)
        else:
            config, changed = load(args.file, output(args, "GuideTableName"), aws_client(args, "dynamodb"))
            refresh_exports(args, changed)
    except ConfigError as error:
        print(error, file=sys.stderr)
        return 2
    print(
        f"{'valid' if args.check else 'loaded'}: {len(config.zones)} zones, {len(config.channels)} channel "
        f"overrides, {len(config.rubrics)} rubrics"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
