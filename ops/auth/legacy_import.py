"""Import v1 tokens so that they keep working; each one becomes a refresh token when first sent as one.

Input: JSON lines, one token each: {"token": "...", "account_id": 1, "client_id": "...",
"anonymous": false, "expires_at": null}. Only the tokens' hashes are stored.

    python -m ops.auth.legacy_import FILE [--operator NAME] (--stack STACK | --local | --table NAME --audit-table NAME)

The import is recorded in the auth trail of the audit table, with its first token.
"""

import json
import sys
from pathlib import Path

from ops.command import command, command_parser
from ops.target import add_operator, add_target, database, output, staff_change
from ott.auth.admin import LegacyToken, import_legacy
from ott.auth.store import auth_records
from ott.recordstore import ConcurrentChange
from ott.text import unsafe_text


def read_tokens(path: Path) -> list[LegacyToken]:
    tokens = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if line.strip():
            try:
                fields = json.loads(line)
                if problems := unsafe_text(fields):
                    raise ValueError("; ".join(problems))
                tokens.append(LegacyToken(**fields))
            except (ValueError, TypeError) as error:
                raise ValueError(f"line {number}: {error}") from None
    return tokens


@command
def main(argv: list[str] | None = None) -> int:
    parser = command_parser(__doc__)
    parser.add_argument("file", type=Path)
    add_target(parser)
    add_operator(parser)
    args = parser.parse_args(argv)
    try:
        tokens = read_tokens(args.file)  # the whole file is read and checked before anything is written
        store = auth_records(database(args), output(args, "AuthTableName"))
        count = import_legacy(store, tokens, change=staff_change(args), source=args.file.name)
    except ValueError as error:
        print(error, file=sys.stderr)
        return 2
    except ConcurrentChange:
        print("a token was imported before; the tokens before it are in", file=sys.stderr)
        return 2
    print(f"imported {count} tokens")
    return 0


if __name__ == "__main__":
    sys.exit(main())
