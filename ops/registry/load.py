"""Load registry data (contractors, territories, areas, hubs, isolations, prefixes, services) from a
YAML or JSON file into the registry table. The whole file is validated first; nothing is written
when any entry is invalid. The load replaces what the table held before, writing only what changed; readers
see the old registry until the new one is complete.

    python -m ops.registry.load FILE [--operator NAME]
        (--stack STACK | --local | --table NAME --audit-table NAME | --check)

A load is recorded in the audit trail (who, the file, the registry before and after), as a load from the console is:
both call `ott.registry.loading.load_registry`.
"""

import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ops.command import command, command_parser
from ops.documents import DocumentError, read_document
from ops.target import add_operator, add_target, audit_log, database, operator, output
from ott.registry.catalog import CatalogError, CatalogSnapshot, compile_catalog, parse_catalog
from ott.registry.loading import load_registry
from ott.registry.store import ConcurrentLoad, DynamoRegistryStore
from ott.storage.dynamo import DynamoDatabase


def read_catalog(path: Path) -> CatalogSnapshot:
    try:
        document = read_document(path)
    except DocumentError as error:
        raise CatalogError(error.problems) from None
    return compile_catalog(parse_catalog(document))


def load(path: Path, table: str, dynamodb: Any) -> CatalogSnapshot:
    """Write what changed since the last load; readers switch to the new registry when it is complete."""
    snapshot = read_catalog(path)
    write(snapshot, table, dynamodb)
    return snapshot


def write(snapshot: CatalogSnapshot, table: str, dynamodb: Any) -> int:
    """Write what changed since the last load; readers switch to the new registry when it is complete. Demo and
    test data only: an operator's load is `main`'s, recorded in the audit trail."""
    return DynamoRegistryStore(DynamoDatabase(dynamodb), table, reports_table="").replace_catalog(snapshot)


@command
def main(argv: list[str] | None = None) -> int:
    parser = command_parser(__doc__)
    parser.add_argument("file", type=Path)
    add_target(parser, check=True)
    add_operator(parser)
    args = parser.parse_args(argv)
    try:
        snapshot = read_catalog(args.file)
        written = None
        if not args.check:
            store = DynamoRegistryStore(
                database(args), output(args, "RegistryTableName"), reports_table="", audit=audit_log(args)
            )
            written = load_registry(store, operator(args), snapshot, args.file.name, datetime.now(UTC)).written
    except CatalogError as error:
        print(error, file=sys.stderr)
        return 2
    except ConcurrentLoad as error:
        print(error, file=sys.stderr)
        return 1
    print(
        f"{'valid' if args.check else 'loaded'}: {len(snapshot.contractors)} contractors, "
        f"{len(snapshot.territories)} territories, {len(snapshot.areas)} areas, {len(snapshot.hubs)} hubs, "
        f"{len(snapshot.hub_isolations)} hub isolations, {len(snapshot.prefixes)} prefixes, "
        f"{len(snapshot.index.services)} services"
        + (f"; {written} item(s) written (what changed since the last load)" if written is not None else "")
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
