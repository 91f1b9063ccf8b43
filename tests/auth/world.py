"""A small auth world for unit tests: the auth store over an in-memory database, a clock, the demo client and
user."""

from datetime import UTC, datetime
from typing import Any

from ott.auth import device
from ott.auth.admin import create_user, register_client
from ott.auth.crypto import token_hash
from ott.auth.keys import AuthKeys
from ott.auth.login import sign_in
from ott.auth.models import TokenForm, TokenReply
from ott.auth.policy import GRANTS, AuthPolicy
from ott.auth.records import AccessToken, Client
from ott.auth.tokens import TokenRequest, exchange
from ott.recordstore import Record
from tests.fixtures.databases import Clock, memory_database
from tests.fixtures.stores import auth_store, name

REDIRECT = "http://127.0.0.1:8765/callback"
SECRET = "demo-tv-secret"
# Passwords are hashed at a low scrypt cost here (test_auth_login proves production's): at production's, the
# brute-force tests' hundred sign-ins took 42 s.
TEST_PASSWORD_HASH_COST = 2**4


class World:
    def __init__(self, **policy: object) -> None:
        self.clock = Clock()
        self.database = memory_database(self.clock)
        self.store = auth_store(self.database)
        self.policy = AuthPolicy.model_validate({"password_hash_cost": TEST_PASSWORD_HASH_COST, **policy})
        self.keys = AuthKeys.derive("unit-test-master-key")
        register_client(self.store, "demo-tv", "Demo TV", GRANTS, [REDIRECT], secret=SECRET)
        self.user_id = self.create_user("demo@example.com", "demo-password", cid=7, confirmed_phone="79990000001")

    def create_user(self, username: str, password: str, **details: Any) -> int:
        """A personal account, its password hashed at the policy's cost."""
        return create_user(self.store, username, password, password_hash_cost=self.policy.password_hash_cost, **details)

    @property
    def now(self) -> datetime:
        """The clock's moment as a handler passes it (the in-memory store's TTL reads `clock.now`)."""
        return datetime.fromtimestamp(self.clock.now, UTC)

    def token(self, grant_type: str, ip: str = "198.51.100.1", basic=None, **fields: str) -> TokenReply:
        """A token request as the demo client (credentials in the body unless `basic` is given)."""
        credentials = {} if basic else {"client_id": "demo-tv", "client_secret": SECRET}
        return self.exchange({**credentials, "grant_type": grant_type, **fields}, basic, ip)

    def exchange(self, fields: dict[str, str], basic=None, ip: str = "198.51.100.1") -> TokenReply:
        request = TokenRequest(TokenForm(**fields), basic, ip, self.now)
        return exchange(self.store, self.policy, request)

    def anonymous(self, ip: str = "198.51.100.1") -> TokenReply:
        return self.token("vendor:anonymous", ip=ip)

    def code(self, redirect_uri: str | None = REDIRECT) -> str:
        client = self.store.get(Client, "demo-tv")
        return sign_in(self.store, self.policy, client, redirect_uri, "demo@example.com", "demo-password", self.now)

    def personal(self) -> TokenReply:
        return self.token("authorization_code", code=self.code(), redirect_uri=REDIRECT)

    def access(self, reply: TokenReply) -> AccessToken | None:
        return self.store.get(AccessToken, token_hash(reply.access_token))

    def confirm_pin(self, signed_in: TokenReply, pin: str, ip: str = "198.51.100.1"):
        entry = device.PinEntry(self.access(signed_in), "demo-tv", pin, ip, self.now)
        return device.confirm(self.store, self.policy, self.keys, entry)

    def all_of(self, kind: type[Record]) -> list[Record]:
        """Every live record of a kind the auth table holds."""
        keys = [item["pk"].split("#", 1)[1] for item in self.items() if item["pk"].startswith(f"{kind.kind}#")]
        return [record for key in keys if (record := self.store.get(kind, key)) is not None]

    def items(self) -> list[dict]:
        """The auth table's items as stored, expired ones included."""
        return self.database.items(name("AuthTable"))

    def start_device(self):
        return device.start(self.store, self.policy, self.keys, "demo-tv", "198.51.100.1", self.now)
