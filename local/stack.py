"""The local stack: moto as the AWS emulator, the template's resources, demo data, and the gateway.

It answers as soon as the registry and the demo accounts are in: the state machines and the other services' demo
data follow in the background, and a request to a service still loading waits for it (`ServicesLoading`), as do
the queue pollers (they start with the state machines, so that work a request queued is never left waiting for the
whole start) and operator commands (`--local`: until the start is over); the schedules start once everything is
in. The waits that protect the cloud's caches are off here (`local.announce.LOCAL_SETTINGS`)."""

import json
import os
import re
import socket
import threading
import urllib.request

from werkzeug.serving import BaseWSGIServer, make_server
from werkzeug.wrappers import Request, Response

from local.announce import BANNER, LOCAL_SETTINGS, announce, local_stack_file
from local.console import configure_console, log_level
from local.emulator import Emulator
from local.gateway import Gateway, GatewayRequestHandler, error_response, json_response
from local.moto_speedups import speed_up_step_functions
from local.pollers import QueuePollers, Schedules
from local.resources import create_state_machines, create_stores
from local.seed import (
    DEMO_SERVICES,
    demo_api_keys,
    demo_playlist_path,
    demo_xtream_path,
    seed_registry_and_auth,
    seed_service,
)
from local.template import REGION, Function, Template
from ott.aws import client, reset_clients
from ott.config import reset_settings

EMULATOR_CONFIG = {"stepfunctions": {"execute_state_machine": True}}


def outbox_route(request: Request) -> Response:
    """GET /_dev/outbox?phone=<11 digits>: what the fake providers sent to a number, newest first."""
    from ott.phoneconfirm.fakes import outbox

    phone = request.args.get("phone", "")
    if not re.fullmatch(r"7\d{10}", phone):
        return error_response(400, "bad_request", "phone must be 11 digits starting with 7")
    return json_response({"phone": phone, "messages": outbox(phone)})


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def service_of(function: Function) -> str:
    """functions/<service>/<method>/ → service."""
    return function.module.split(".")[1]


# What the background start makes ready, in order: phone confirmation needs its state machine, the others their
# demo data (the launcher's after the guide's).
LOADING = ("phoneconfirm", *DEMO_SERVICES)


class ServicesLoading:
    """The services whose resources or demo data are still loading: a request to one of them waits."""

    def __init__(self, services: tuple[str, ...]) -> None:
        self._loaded = {service: threading.Event() for service in services}

    def loaded(self, service: str) -> None:
        self._loaded[service].set()

    def all_loaded(self) -> None:
        for event in self._loaded.values():
            event.set()

    def wait_for(self, function: Function) -> None:
        loaded = self._loaded.get(service_of(function))
        if loaded is not None:
            loaded.wait()


class LocalStack:
    def __init__(self, host: str = "127.0.0.1", port: int = 3000) -> None:
        self.host, self.port = host, port
        self.base_url = f"http://{host}:{port}"
        self.template = Template()
        self._emulator: Emulator | None = None
        self._http: BaseWSGIServer | None = None
        self._thread: threading.Thread | None = None
        self._pollers: QueuePollers | None = None
        self._schedules: Schedules | None = None
        self._loading = ServicesLoading(LOADING)
        self._started = threading.Event()
        self._failure: BaseException | None = None

    def start(self) -> None:
        """Start the emulator, create the resources, load what every service needs, and serve HTTP in a background
        thread; the rest of the start goes on in another (`ready` says when it is over)."""
        self._start_emulator()
        create_stores(self.template, client, self.base_url)
        seed_registry_and_auth(self.template, client("dynamodb"))
        self._http = make_server(
            self.host,
            self.port,
            Gateway(
                self.template,
                self.base_url,
                {"/_dev/outbox": outbox_route},
                demo_api_keys(),
                wait_for=self._loading.wait_for,
            ),
            threaded=True,
            request_handler=GatewayRequestHandler,
        )
        server = self._http
        self._thread = threading.Thread(
            target=lambda: server.serve_forever(poll_interval=0.1), name="gateway", daemon=True
        )
        self._thread.start()
        self._announce(ready=False)  # `--local` commands wait for the start to be over, saying so
        threading.Thread(target=self._finish_start, name="start", daemon=True).start()

    def _finish_start(self) -> None:
        try:
            # moto's Step Functions interpreter takes seconds to import: here, not within the first call, where it
            # would hold the emulator's lock, and every request with it.
            speed_up_step_functions()
            create_state_machines(self.template, client("stepfunctions"))
            # The pollers from here: each waits for its function's service to be loaded, so that a phone
            # confirmation accepted now has its worker (the state machine queues it), whatever loads after.
            self._pollers = QueuePollers(self.template, client("sqs"), wait_for=self._loading.wait_for)
            self._pollers.start()
            self._loading.loaded("phoneconfirm")
            for service in DEMO_SERVICES:
                seed_service(self.template, client("dynamodb"), service, DEMO_SERVICES)
                self._loading.loaded(service)
            # The schedules once everything is in: nothing waits for them, and their first runs would slow the start.
            self._schedules = Schedules(self.template)
            self._schedules.start()
            self._announce(ready=True)
        except BaseException as failure:  # handed to the main thread by `ready`
            self._failure = failure
            self._loading.all_loaded()  # nobody waits for what will not come
        finally:
            self._started.set()

    @property
    def emulator(self) -> Emulator | None:
        """The AWS emulator, once started (`make sam-local` serves it to the containers too)."""
        return self._emulator

    def ready(self, within: float) -> bool:
        """Whether the whole start is over, waiting at most `within` seconds; raises what made it fail."""
        over = self._started.wait(within)
        if self._failure is not None:
            raise RuntimeError("the local stack failed to start") from self._failure
        return over

    def _announce(self, ready: bool) -> None:
        """Operator commands given `--local` find this stack's emulator by the PORT it serves on, and wait while
        it is not `ready`; they take the settings it runs with that they must share."""
        assert self._emulator is not None  # noqa: S101 - started above
        settings = {name: os.environ[name] for name in LOCAL_SETTINGS}
        announce(self.port, self._emulator.url, ready, settings)

    def stop(self) -> None:
        local_stack_file(str(self.port)).unlink(missing_ok=True)
        if self._schedules is not None:
            self._schedules.stop()
        if self._pollers is not None:
            self._pollers.stop()
        if self._http is not None:
            if self._thread is not None and self._thread.is_alive():  # shutdown() waits for serve_forever()
                self._http.shutdown()
            self._http.server_close()
        if self._emulator is not None:
            self._emulator.stop()

    def _start_emulator(self) -> None:
        self._emulator = Emulator()
        self._emulator.start()
        endpoint = self._emulator.url
        self._emulator.answer_this_process()
        os.environ.pop("AWS_ENDPOINT_URL", None)
        for name, value in LOCAL_SETTINGS.items():
            os.environ.setdefault(name, value)
        os.environ.update(
            {
                "AWS_ACCESS_KEY_ID": "local",
                "AWS_SECRET_ACCESS_KEY": "local",
                "AWS_DEFAULT_REGION": REGION,
                "MOTO_PORT": str(self._emulator.port),  # moto's Step Functions executor calls back into this server
                "S3_BROWSER_ENDPOINT": endpoint,  # the console's uploads go to the emulator's S3 (ott.uploads)
                "GUIDE_EXPORT_ENDPOINT": endpoint,  # players open the guide's exports here
                **self.template.environment(),
            }
        )
        configure_console(log_level(os.environ["POWERTOOLS_LOG_LEVEL"]))
        switch_on = urllib.request.Request(  # noqa: S310 - the emulator on loopback
            f"{endpoint}/moto-api/config", data=json.dumps(EMULATOR_CONFIG).encode(), method="POST"
        )
        urllib.request.urlopen(switch_on, timeout=10).close()  # noqa: S310
        reset_clients()
        reset_settings()

    def banner(self) -> str:
        prefixes = sorted({route.path.split("/")[1] for f in self.template.functions() for route in f.routes})
        lines = [
            f"{BANNER} {self.base_url}",
            f"  OpenAPI document: {self.base_url}/openapi.json",
            "  services:",
            *[f"    {self.base_url}/{prefix}/" for prefix in prefixes],
            f"  try: curl {self.base_url}/registry/2/whereami.json",
            f"       curl '{self.base_url}/tvguide/2/channels.json?fields=title,currentTelecast'",
            f"       curl {self.base_url}/launcher/1/posters.json",
            "  demo data: local/demo/ (registry, auth, tvguide, launcher, channels, niche_content)",
            "  demo client: demo-tv / demo-tv-secret (all four grants; redirect URIs",
            "               http://127.0.0.1:8765/callback and http://localhost:8765/callback)",
            "  PKCE client: demo-phone / demo-phone-secret (requires S256 PKCE)",
            "  demo user:   demo@example.com / demo-password; their playlist (Kodi's IPTV Simple, TiviMate, VLC):",
            f"               {self.base_url}{demo_playlist_path()}",
            "               their Xtream Codes login (TiviMate, IPTV Smarters, OTT Navigator; server, user, password):",
            f"               {self.base_url}{demo_xtream_path()}",
            "  moderator:   moderator@example.com / moderator-password through demo-staff / demo-staff-secret;",
            "               python -m local.sign_in prints a token for the launcher's moderation and statistics",
            "  API keys (x-api-key) of the machine routes (/channels, /1/niche-content/):",
            *[f"               {value} ({name})" for value, name in demo_api_keys().items()],
            f"  try: curl -H 'x-api-key: {next(iter(demo_api_keys()))}' {self.base_url}/channels",
            f"       curl -H 'x-api-key: demo-encoder-key' '{self.base_url}/1/niche-content/list.json?p=1'",
            "  phone confirmation: fake providers; 7999000000[1-5] choose what happens (README);",
            f"               what they sent: {self.base_url}/_dev/outbox?phone=79990000002",
            "  console: a line per request (method, path, status, time, the function that answered);",
            "           make run LOG_LEVEL=DEBUG adds the functions' debug logs and their metrics",
            "Ctrl-C stops everything.",
        ]
        return "\n".join(lines)
