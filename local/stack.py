"""The local stack: moto's server as the AWS emulator, the template's resources, demo data, and the gateway."""

import json
import os
import re
import socket
import threading
import urllib.request

from werkzeug.serving import BaseWSGIServer, make_server
from werkzeug.wrappers import Request, Response

from local.announce import local_stack_file
from local.emulator import Emulator
from local.gateway import Gateway, GatewayRequestHandler, error_response, json_response
from local.pollers import QueuePollers, Schedules
from local.resources import create_all
from local.seed import demo_api_keys, seed_demo
from local.template import REGION, Template
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

    def start(self) -> None:
        """Start the emulator, create resources, load demo data, and serve HTTP in a background thread."""
        self._start_emulator()
        create_all(self.template, client)
        self._load_demo_data()
        self._pollers = QueuePollers(self.template, client("sqs"))
        self._pollers.start()
        self._schedules = Schedules(self.template)
        self._schedules.start()
        self._announce()
        self._http = make_server(
            self.host,
            self.port,
            Gateway(self.template, self.base_url, {"/_dev/outbox": outbox_route}, demo_api_keys()),
            threaded=True,
            request_handler=GatewayRequestHandler,
        )
        server = self._http
        self._thread = threading.Thread(
            target=lambda: server.serve_forever(poll_interval=0.1), name="gateway", daemon=True
        )
        self._thread.start()

    def _announce(self) -> None:
        """Operator commands given `--local` find this stack's emulator by the PORT it serves on."""
        assert self._emulator is not None  # noqa: S101 - started above
        path = local_stack_file(str(self.port))
        path.parent.mkdir(exist_ok=True)
        path.write_text(json.dumps({"endpoint": self._emulator.url, "pid": os.getpid()}), encoding="utf-8")

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
        os.environ.update(
            {
                "AWS_ACCESS_KEY_ID": "local",
                "AWS_SECRET_ACCESS_KEY": "local",
                "AWS_DEFAULT_REGION": REGION,
                "MOTO_PORT": str(self._emulator.port),  # moto's Step Functions executor calls back into this server
                **self.template.environment(),
            }
        )
        switch_on = urllib.request.Request(  # noqa: S310 - the emulator on loopback
            f"{endpoint}/moto-api/config", data=json.dumps(EMULATOR_CONFIG).encode(), method="POST"
        )
        urllib.request.urlopen(switch_on, timeout=10).close()  # noqa: S310
        reset_clients()
        reset_settings()

    def _load_demo_data(self) -> None:
        seed_demo(self.template, client("dynamodb"))

    def banner(self) -> str:
        prefixes = sorted({route.path.split("/")[1] for f in self.template.functions() for route in f.routes})
        lines = [
            f"OTT platform local stack on {self.base_url}",
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
            "  demo user:   demo@example.com / demo-password",
            "  moderator:   moderator@example.com / moderator-password through demo-staff / demo-staff-secret;",
            "               python -m local.sign_in prints a token for the launcher's moderation and statistics",
            "  API keys (x-api-key) of the machine routes (/channels, /1/niche-content/):",
            *[f"               {value} ({name})" for value, name in demo_api_keys().items()],
            f"  try: curl -H 'x-api-key: {next(iter(demo_api_keys()))}' {self.base_url}/channels",
            f"       curl -H 'x-api-key: demo-encoder-key' '{self.base_url}/1/niche-content/list.json?p=1'",
            "  phone confirmation: fake providers; 7999000000[1-5] choose what happens (README);",
            f"               what they sent: {self.base_url}/_dev/outbox?phone=79990000002",
            "Ctrl-C stops everything.",
        ]
        return "\n".join(lines)
