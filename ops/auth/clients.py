"""Register an OAuth client of the auth service; its secret is printed once and stored only as a hash. A public
client (`--public`: a browser application such as the operator's console) has no secret and must use PKCE.

python -m ops.auth.clients CLIENT_ID --name NAME --grant GRANT [--grant ...] [--redirect-uri URI ...]
    [--scope SCOPE ...] [--access-ttl SECONDS] [--require-pkce | --public] [--resource-server]
    [--operator NAME] (--stack STACK | --local | --table NAME --audit-table NAME)

Recorded in the auth trail of the audit table (who registered which client with what).
"""

import sys

from ops.command import command, command_parser
from ops.target import add_operator, add_target, database, output, staff_change
from ott.auth.admin import register_client
from ott.auth.policy import DEFAULT_SCOPES, GRANTS, SCOPES
from ott.auth.store import auth_records
from ott.errors import InvalidInput
from ott.recordstore import ConcurrentChange


@command
def main(argv: list[str] | None = None) -> int:
    parser = command_parser(__doc__)
    parser.add_argument("client_id")
    parser.add_argument("--name", required=True)
    # A resource server (--resource-server) may have no grant: it only introspects tokens.
    parser.add_argument("--grant", action="append", default=[], choices=GRANTS)
    parser.add_argument("--redirect-uri", action="append", default=[])
    parser.add_argument(
        "--scope",
        action="append",
        choices=SCOPES,
        help=f"default: {' '.join(DEFAULT_SCOPES)}; staff scopes only by name",
    )
    parser.add_argument("--access-ttl", type=int, default=3600)
    pkce = parser.add_mutually_exclusive_group()
    pkce.add_argument("--require-pkce", action="store_true", help="refuse authorization requests without S256 PKCE")
    pkce.add_argument("--public", action="store_true", help="no secret (a browser application); PKCE required")
    parser.add_argument(
        "--resource-server", action="store_true", help="may introspect tokens (RFC 7662): a stream component"
    )
    add_target(parser)
    add_operator(parser)
    args = parser.parse_args(argv)
    if not args.grant and not args.resource_server:
        parser.error("give at least one --grant (only a --resource-server may have none)")
    store = auth_records(database(args), output(args, "AuthTableName"))
    try:
        secret = register_client(
            store,
            args.client_id,
            args.name,
            args.grant,
            args.redirect_uri,
            args.scope or DEFAULT_SCOPES,
            args.access_ttl,
            requires_pkce=args.require_pkce,
            resource_server=args.resource_server,
            public=args.public,
            change=staff_change(args),
        )
    except InvalidInput as error:
        print(error.description, file=sys.stderr)
        return 2
    except ConcurrentChange:
        print(f"client {args.client_id} exists already", file=sys.stderr)
        return 2
    if secret is None:
        print(f"client_id:     {args.client_id} (public: no secret; PKCE required)")
        return 0
    print(f"client_id:     {args.client_id}\nclient_secret: {secret}")
    print("(the secret is not stored and cannot be shown again)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
