"""Who calls: one type per kind of caller. The HTTP edge builds them from the request (`ApiRequest.caller`,
`.account`, `.machine_client`) and a handler passes them to the domain, which never reads a request.

Staff are the people who run the platform: an account whose token carries a staff scope (the console), or an
operator running a command with the platform's AWS credentials (`Operator`). What they may do is a scope per
area (`ott.staff`), checked with `may`."""

from dataclasses import dataclass


@dataclass(frozen=True)
class Device:
    """An app without a valid bearer token, known by the address it calls from."""

    address: str
    languages: str = ""  # Accept-Language as sent
    # A token came and was wrong, expired or revoked: public routes let the app in as anonymous, and a
    # service that answers differently to an account says so (the launcher: 401).
    token_rejected: bool = False


@dataclass(frozen=True)
class Account:
    """An app with a valid bearer token: the account it is signed in to (anonymous accounts too), the client
    it signed in with, what the token grants, and whose subscriber the account is, when auth knows."""

    account_id: int
    client_id: str
    scopes: frozenset[str]
    address: str
    languages: str = ""  # Accept-Language as sent
    anonymous: bool = False
    contractor_id: int | None = None
    territory_id: int | None = None
    username: str | None = None  # a personal account's login: what the audit trail names staff by

    def may(self, scope: str) -> bool:
        return scope in self.scopes

    @property
    def name(self) -> str:
        return self.username or f"account {self.account_id}"


@dataclass(frozen=True)
class MachineClient:
    """A machine (the stream-authorization component, an encoder), known by the id of its API key."""

    key_id: str


@dataclass(frozen=True)
class Operator:
    """A person running an operator command (`ops/`) with the platform's AWS credentials: IAM already lets them
    change everything the command touches, so every staff scope is theirs."""

    name: str

    def may(self, scope: str) -> bool:
        return True


# Who changes what staff change: a staff account through the console's routes, or an operator's command.
Staff = Account | Operator
# Who calls a public route: an account when a valid token came, a device otherwise.
Caller = Device | Account
