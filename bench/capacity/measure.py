"""What each request of the traffic model costs, measured on the demo data in moto with the functions run
in-process: DynamoDB calls, read and write units and the items they touch (`bench.units`), the function's own
CPU time (the emulator's and the meter's left out), reply and log bytes, and the reply's caching headers.

Each request kind runs as several devices of two audiences (A: 127.0.0.x, Москва, Демо Телеком, the zone
Europe/Moscow, poster 3; B: 198.51.100.x, Северная сеть, Екатеринбург, poster 1). An item every sample touches is
shared by all devices; one touched by one audience's samples only belongs to that audience (the model gives it
the largest audience's share of the traffic); one touched once belongs to one device or event.
"""

import contextlib
import gzip
import importlib
import io
import json
import logging
import os
import statistics
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlencode

from bench import hot_items_off
from bench.units import Touch, metering
from local.invoke import module_of
from local.template import REGION, Template
from ott.http.caching import edge_cacheable
from ott.storage.cache import hot_items

AUDIENCES = ("A", "B")
SAMPLES = 8  # devices per audience and request kind
CLICK_SAMPLES = 48  # click events per audience: enough to see how they spread over counter shards
# What every invocation adds to the function's log group besides its own lines: Lambda's START, END and REPORT
# lines (REPORT with X-Ray's trace id), about this many bytes.
PLATFORM_LOG_BYTES = 420


@dataclass
class Sample:
    audience: str
    calls: dict[str, int]
    touches: list[Touch]
    cpu_ms: float
    reply_bytes: int
    compressed_bytes: int
    log_bytes: int
    status: int
    headers: dict[str, str]
    # (table, partition, item) of the hot items it read (ott.storage.cache) that other samples read too: those
    # a container's cache answers again (a key one device reads, like its own address's prefix, it does not).
    hot: frozenset[tuple[str, str, str]]

    def is_hot(self, touch: Touch) -> bool:
        return (touch.table, touch.partition, touch.item) in self.hot

    def read_units(self, hot_share: float = 1.0) -> float:
        """Its read units, those of hot items counted for `hot_share` of the requests (the others find them
        in their container's cache)."""
        return sum(touch.read_units * (hot_share if self.is_hot(touch) else 1.0) for touch in self.touches)

    @property
    def write_units(self) -> float:
        return sum(touch.write_units for touch in self.touches)


@dataclass
class KindMeasurement:
    """Every sample of one request kind, and where the kind runs: its function (logical id), and for an API
    route its method and path and the authorizer API Gateway runs before it."""

    kind: str
    folder: str  # functions/<folder>
    function: str
    route: tuple[str, str] | None
    authorizer: str | None
    samples: list[Sample] = field(default_factory=list)

    def median(self, value: Callable[[Sample], float]) -> float:
        return statistics.median(value(sample) for sample in self.samples)

    def read_units(self, hot_share: float = 1.0) -> float:
        return statistics.median(sample.read_units(hot_share) for sample in self.samples)

    @property
    def write_units(self) -> float:
        return statistics.median(sample.write_units for sample in self.samples)

    @property
    def cacheable(self) -> bool:
        """A shared cache may keep its replies: public, not no-store/no-cache, and the same for all samples."""
        controls = {sample.headers.get("Cache-Control", "") for sample in self.samples}
        return all(edge_cacheable(control) for control in controls)


class World:
    """The demo data in moto, and devices ready to make each kind of request."""

    def __init__(self, template: Template) -> None:
        from local.invoke import context, principal_of, sample_event
        from local.resources import create_all
        from local.seed import seed_demo
        from ott.aws import client

        self.template = template
        self._context, self._sample_event, self._principal_of = context, sample_event, principal_of
        create_all(template, client)
        with silenced(), hot_items_off():
            seed_demo(template, client("dynamodb"))
        with silenced():
            self.snapshot_hash = self.call("launcher/posters", address=address("A", 0))["headers"]["X-Snapshot-Hash"]
        self.devices: Iterator[dict[str, Any]] = self._new_devices()
        self.events = 0

    def handler(self, folder: str) -> Callable[..., dict]:
        module = importlib.import_module(module_of(folder))
        return module.lambda_handler if hasattr(module, "lambda_handler") else module.optional

    def call(
        self,
        folder: str,
        address: str = "127.0.0.1",
        query: dict[str, str] | None = None,
        body: str | None = None,
        principal: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
        path: dict[str, str] | None = None,
    ) -> dict:
        event = self._sample_event(folder)
        if path is not None:  # the route's path parameters, and the path they make
            event["pathParameters"], event["path"] = path, event["resource"].format(**path)
        if "requestContext" in event:
            identity = {**event["requestContext"].get("identity", {}), "sourceIp": address}
            event["requestContext"] = {**event["requestContext"], "identity": identity}
            # The samples' Authorization is a placeholder: a token comes as `principal`, or in `headers`.
            sent = {name: value for name, value in (event.get("headers") or {}).items() if name != "Authorization"}
            event["headers"] = {**sent, "X-Forwarded-For": address, **(headers or {})}
            if principal is not None:
                event["requestContext"]["authorizer"] = principal
        if query is not None:
            event["queryStringParameters"] = query or None
        if body is not None:
            event["body"] = body
        return self.handler(folder)(event, self._context(folder))

    def sample_query(self, folder: str) -> dict[str, str]:
        return dict(self._sample_event(folder).get("queryStringParameters") or {})

    def _new_devices(self) -> Iterator[dict[str, Any]]:
        """Anonymous accounts of the demo TV client, one address each (the per-address limit is an hour's)."""
        number = 0
        while True:
            number += 1
            reply = self.call(
                "auth/token",
                address=f"10.{number // 60000}.{number // 250 % 240}.{number % 250 + 1}",
                body=urlencode(
                    {"grant_type": "vendor:anonymous", "client_id": "demo-tv", "client_secret": "demo-tv-secret"}
                ),
            )
            issued = json.loads(reply["body"])
            yield {**issued, "principal": self._principal_of(issued["access_token"], required=False)}

    def device(self) -> dict[str, Any]:
        return next(self.devices)

    def xtream_login(self, audience: str) -> dict[str, str]:
        """A new device's account as a stock player signs in: an Xtream login of its own, made at the audience's
        home (the login keeps the home of the token that made it)."""
        home = {"contractorId": CONTRACTORS[audience], "territoryId": ZONES[audience]}
        reply = self.call("auth/xtream_login", principal={**self.device()["principal"], **home})
        made = json.loads(reply["body"])
        return {"username": made["username"], "password": made["password"]}

    def click(self, poster: int) -> str:
        self.events += 1
        return json.dumps(
            {
                "event_id": f"capacity-{self.events}",
                "poster_id": poster,
                "snapshot_hash": self.snapshot_hash,
                "device_id": f"stb-{self.events}",
                "time": datetime.now(UTC).isoformat(),
            }
        )


def address(audience: str, index: int) -> str:
    return f"127.0.{index // 250}.{index % 250 + 1}" if audience == "A" else f"198.51.100.{index % 250 + 1}"


ZONES = {"A": "3", "B": "9"}  # territories: Москва (zone Europe/Moscow), Екатеринбург (Asia/Yekaterinburg)
CONTRACTORS = {"A": "1", "B": "2"}  # Демо Телеком, Северная сеть
# The player API's action of each Xtream kind (the VOD and series lists all cost what the first does).
XTREAM_ACTIONS = {
    "xtream account info": "",
    "xtream live categories": "get_live_categories",
    "xtream live streams": "get_live_streams",
    "xtream vod and series lists": "get_vod_categories",
    "xtream short epg": "get_short_epg",
}
POSTERS = {"A": 3, "B": 1}


def requests_of(world: World, kind: str, audience: str, index: int) -> tuple[str, Callable[[], dict]]:
    """The function folder of `kind` and a request of one device of `audience`, ready to run."""
    here = address(audience, index)
    token_form = {"client_id": "demo-tv", "client_secret": "demo-tv-secret"}
    if kind == "registry whereami":
        return "registry/whereami", lambda: world.call("registry/whereami", here)
    if kind == "registry lists":
        return "registry/contractors", lambda: world.call("registry/contractors", here)
    if kind == "token refresh":
        form = urlencode(
            {**token_form, "grant_type": "refresh_token", "refresh_token": world.device()["refresh_token"]}
        )
        return "auth/token", lambda: world.call("auth/token", here, body=form)
    if kind == "token anonymous":
        form = urlencode({**token_form, "grant_type": "vendor:anonymous"})
        return "auth/token", lambda: world.call("auth/token", here, body=form)
    if kind.startswith("authorizer"):
        token = world.device()["access_token"] if kind == "authorizer (token)" else None
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        return "auth/authorizer", lambda: world.call("auth/authorizer", here, headers=headers)
    if kind.startswith("guide"):
        folder = {"channels": "tvguide/channels", "schedule": "tvguide/schedule", "xmltv": "tvguide/xmltv"}[
            kind.split()[1]
        ]
        # The sample's own query, without its zone label: the kind says how the zone is chosen.
        query = {name: value for name, value in (world.sample_query(folder)).items() if not name.startswith("label_")}
        if "Xtream" in kind:  # where xmltv.php sends a player: the zone's whole guide, by its home
            query = {"c": CONTRACTORS[audience]}
        query |= {"t": ZONES[audience]} if "(zone)" in kind else {}
        return folder, lambda: world.call(folder, here, query=query)
    if kind.startswith("xtream"):
        return xtream_request(world, kind, audience, here)
    if kind in ("launcher posters", "launcher poster"):
        folder = kind.replace(" ", "/")
        principal = world.device()["principal"]
        return folder, lambda: world.call(folder, here, principal=principal)
    if kind == "launcher click":
        event = {
            "Records": [
                {**world._sample_event("launcher/clicks")["Records"][0], "body": world.click(POSTERS[audience])}
            ]
        }
        return "launcher/clicks", lambda: world.handler("launcher/clicks")(event, world._context("launcher/clicks"))
    if kind.startswith("phone"):
        return phone_request(world, kind, here)
    if kind == "channels list":
        return "channels/list", lambda: world.call("channels/list", here)
    if kind == "nichecontent list":
        return "nichecontent/list", lambda: world.call("nichecontent/list", here)
    if kind == "nichecontent updateStatus":  # each sample takes another demo item awaiting encoding
        item = {"status": "totranscoder", "id": f"demo-{index + 1 + (SAMPLES if audience == 'B' else 0):04d}"}
        return "nichecontent/update_status", lambda: world.call("nichecontent/update_status", here, query=item)
    raise ValueError(f"no request for {kind!r}")


def xtream_request(world: World, kind: str, audience: str, here: str) -> tuple[str, Callable[[], dict]]:
    """A stock player's request, signed in with its own login: the player API's action, get.php, xmltv.php, or a
    zap to channel 101 through /live/ (a new screen)."""
    login = world.xtream_login(audience)
    if kind == "xtream live":
        path = {**login, "stream": "101.ts"}
        return "channels/xtream_live", lambda: world.call("channels/xtream_live", here, path=path)
    if kind == "xtream get.php":
        query = {**login, "type": "m3u_plus", "output": "ts"}
        return "channels/xtream_playlist", lambda: world.call("channels/xtream_playlist", here, query=query)
    if kind == "xtream xmltv.php":
        return "channels/xtream_xmltv", lambda: world.call("channels/xtream_xmltv", here, query=login)
    query = {**login, "action": XTREAM_ACTIONS[kind], **({"stream_id": "101"} if kind == "xtream short epg" else {})}
    return "channels/xtream_player_api", lambda: world.call("channels/xtream_player_api", here, query=query)


def phone_request(world: World, kind: str, here: str) -> tuple[str, Callable[[], dict]]:
    """confirm, verify or checkCode of a new number by a new device (verify and checkCode after its confirm)."""
    device = world.device()
    world.events += 1
    phone = json.dumps({"phone": f"+7999{world.events:07d}"})
    if kind == "phone confirm":
        return "phoneconfirm/confirm", lambda: world.call(
            "phoneconfirm/confirm", here, body=phone, principal=device["principal"]
        )
    started = json.loads(world.call("phoneconfirm/confirm", here, body=phone, principal=device["principal"])["body"])
    folder = "phoneconfirm/verify" if kind == "phone verify" else "phoneconfirm/check_code"
    body = json.dumps({"request_id": started["request_id"], **({"code": "0000"} if "check" in folder else {})})
    return folder, lambda: world.call(folder, here, body=body, principal=device["principal"])


def measure_kind(world: World, kind: str, probe: Any) -> KindMeasurement:
    from ott.aws import client

    samples_per_audience = CLICK_SAMPLES if kind == "launcher click" else SAMPLES
    spare = 2 * samples_per_audience  # devices (and items) the samples do not use
    with silenced():  # making devices and warming up: not measured
        folder, warm_up = requests_of(world, kind, "A", spare)
        warm_up()
    function, route, authorizer = where(world.template, folder)
    measured = KindMeasurement(kind, folder, function, route, authorizer)
    for audience in AUDIENCES:
        for index in range(samples_per_audience):
            with silenced():
                _, request = requests_of(world, kind, audience, index)
            logs = io.StringIO()
            hot_items.forget()  # what a request costs when its container reads the hot items again
            with metering(client("dynamodb"), probe) as metered, silenced(logs):
                started = time.thread_time()
                reply = request()
                cpu = time.thread_time() - started - metered.excluded_cpu
            body = reply.get("body") or ""
            measured.samples.append(
                Sample(
                    audience=audience,
                    calls=dict(metered.calls),
                    touches=metered.touches,
                    cpu_ms=cpu * 1000,
                    reply_bytes=len(body.encode()),
                    compressed_bytes=len(gzip.compress(body.encode())) if len(body) >= 1024 else len(body.encode()),
                    log_bytes=len(logs.getvalue().encode()) + PLATFORM_LOG_BYTES,
                    status=reply.get("statusCode", 200),
                    headers={str(name): str(value) for name, value in (reply.get("headers") or {}).items()},
                    hot=frozenset(
                        (table.name, str(key[table.partition_key]), str(key.get(table.sort_key or "", "")))
                        for table, key in hot_items.held()
                    ),
                )
            )
    shared_hot(measured.samples)
    return measured


def shared_hot(samples: list[Sample]) -> None:
    """Keep, of each sample's hot items, those another sample read too."""
    counts = Counter(key for sample in samples for key in sample.hot)
    for sample in samples:
        sample.hot = frozenset(key for key in sample.hot if counts[key] > 1)


def where(template: Template, folder: str) -> tuple[str, tuple[str, str] | None, str | None]:
    """The function's logical id, its first route and the authorizer of that route."""
    for function in template.functions():
        if function.module == module_of(folder):
            if not function.routes:
                return function.logical_id, None, None
            route = function.routes[0]
            return function.logical_id, (route.method, route.path), route.authorizer
    raise ValueError(f"no function in functions/{folder}")


@contextlib.contextmanager
def silenced(sink: io.StringIO | None = None) -> Iterator[io.StringIO]:
    """What the functions print (their log lines and metrics) goes to `sink`: the logger keeps the stream it
    was made with, so it is switched too."""
    from ott.observability import logger

    sink = sink if sink is not None else io.StringIO()
    handler = logger.registered_handler
    stream = handler if isinstance(handler, logging.StreamHandler) else None
    previous = stream.setStream(sink) if stream is not None else None
    try:
        with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(io.StringIO()):
            yield sink
    finally:
        if stream is not None and previous is not None:
            stream.setStream(previous)


def measure(kinds: list[str]) -> dict[str, KindMeasurement]:
    """Every kind of request, on the demo data in a fresh emulated account; the functions log as the template
    has them (LogLevel's default) and emit their metrics, so that log bytes are what CloudWatch would get."""
    template = Template()
    os.environ.update(
        {"AWS_ACCESS_KEY_ID": "capacity", "AWS_SECRET_ACCESS_KEY": "capacity", "AWS_DEFAULT_REGION": REGION}
    )
    os.environ.pop("AWS_ENDPOINT_URL", None)
    os.environ.update({**template.environment(), "ANONYMOUS_ACCOUNTS_PER_IP_PER_HOUR": "1000"})
    import boto3
    from moto import mock_aws

    from ott.aws import reset_clients
    from ott.config import reset_settings

    with mock_aws():
        reset_clients()
        reset_settings()
        world = World(template)
        probe = boto3.client("dynamodb", region_name=REGION)
        return {kind: measure_kind(world, kind, probe) for kind in kinds}
