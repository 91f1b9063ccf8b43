"""The AWS emulator of the local stack: moto, answering one request at a time, the boto3 clients of this process
in-process and every other caller (operator commands with `--local`, moto's own Step Functions executions) over
HTTP on loopback."""

import base64
import json
import threading
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from typing import Any
from xml.sax.saxutils import escape

import boto3
from botocore.awsrequest import AWSPreparedRequest, AWSResponse
from botocore.handlers import BUILTIN_HANDLERS
from moto.core.botocore_stubber import BotocoreStubber, MockRawResponse
from moto.moto_server import werkzeug_app
from moto.moto_server.werkzeug_app import DomainDispatcherApplication, MotoRequestHandler, create_backend_app
from moto.s3.responses import S3Response
from werkzeug.serving import BaseWSGIServer, make_server

from local.moto_speedups import speed_up_dynamodb

AWS_DOMAIN = ".amazonaws.com"


class OneRequestAtATime:
    """moto's backends are not thread-safe (a DynamoDB transaction deep-copies its tables while other threads
    write to them: 500s and lost writes), and the emulator is called from several threads: the gateway's
    handlers, the queue pollers and moto's own Step Functions executions. No moto request waits on another
    (executions run in threads of their own; the pollers do not long-poll), so one lock cannot deadlock."""

    def __init__(self, app: Callable[[dict, Callable], Iterable[bytes]], lock: threading.RLock) -> None:
        self._app = app
        self._lock = lock

    def __call__(self, environ: dict, start_response: Callable) -> list[bytes]:
        with self._lock:
            reply = self._app(environ, start_response)
            try:
                return list(reply)  # the body is made while the lock is held
            finally:
                close = getattr(reply, "close", None)
                if close is not None:
                    close()


class InProcess:
    """A botocore `before-send` handler: a request to AWS is answered by moto's backends in this process, as
    `mock_aws` answers it (the integration tests run every handler this way), under the emulator's lock. It
    spares each call its HTTP round trip through the emulator's server (a socket, werkzeug and Flask each way)."""

    def __init__(self, lock: threading.RLock) -> None:
        self._lock = lock
        self._stubber = BotocoreStubber()
        self._stubber.enabled = True

    def __call__(self, request: AWSPreparedRequest, **_: Any) -> AWSResponse | None:
        host = (request.url.split("://", 1)[-1].split("/", 1)[0]).split(":", 1)[0]
        if not host.endswith(AWS_DOMAIN):
            return None  # moto's Step Functions call back over HTTP (MOTO_PORT)
        with self._lock:
            answer = self._stubber.process_request(request)
        if answer is None:
            raise RuntimeError(f"the local emulator does not serve {request.url}")
        status, headers, body = answer
        return AWSResponse(request.url, status, headers, MockRawResponse(body))


def refusal(status: int, code: str, message: str) -> tuple[int, dict[str, str], str]:
    body = (
        f'<?xml version="1.0" encoding="UTF-8"?><Error><Code>{code}</Code><Message>{escape(message)}</Message></Error>'
    )
    return status, {"Content-Type": "application/xml"}, body


def refused_by_policy(fields: dict[str, str], bucket: str, size: int, now: datetime) -> Any:
    """S3's answer to a form whose signed policy does not allow the upload (expired, another key or bucket, a size
    out of its range), or None when it allows it or there is none. The signature is not checked (moto checks no
    credentials either)."""
    encoded = fields.get("policy")
    if encoded is None:
        return None
    policy = json.loads(base64.b64decode(encoded))
    if datetime.fromisoformat(policy["expiration"].replace("Z", "+00:00")) < now:
        return refusal(403, "AccessDenied", "Invalid according to Policy: Policy expired.")
    for condition in policy.get("conditions", []):
        if isinstance(condition, list) and condition[0] == "content-length-range":
            if size > int(condition[2]):
                return refusal(400, "EntityTooLarge", "Your proposed upload exceeds the maximum allowed size")
            if size < int(condition[1]):
                return refusal(400, "EntityTooSmall", "Your proposed upload is smaller than the minimum allowed size")
            continue
        if isinstance(condition, dict):
            ((name, wanted),) = condition.items()
            operator = "eq"
        else:
            operator, name, wanted = condition[0], condition[1].lstrip("$"), condition[2]
        given = bucket if name == "bucket" else fields.get(name.lower(), "")
        if not (given == wanted if operator == "eq" else given.startswith(wanted)):
            failed = json.dumps([operator, f"${name}", wanted])
            return refusal(403, "AccessDenied", f"Invalid according to Policy: Policy Condition failed: {failed}")
    return None


def answer_forms_as_s3_does() -> None:
    """Browsers post the console's uploads to the emulator's S3 (ott.uploads) as a form with a signed policy, and
    read its answer only when the bucket's CORS rules allow their origin. moto's server answered every request with
    `Access-Control-Allow-Origin: *` of its own (off here), and moto's S3 applied no bucket rule to a form's POST nor
    its policy's conditions (both added here), so a browser test would pass where S3 refuses."""
    werkzeug_app.DISABLE_GLOBAL_CORS = True  # read when a service's app is made, at its first request
    post = S3Response._bucket_response_post
    if getattr(post, "as_s3_does", False):
        return

    def post_as_s3_does(self: S3Response, request: Any, bucket_name: str) -> Any:
        fields = {name.lower(): values[0] for name, values in self.querystring.items()}
        refused = refused_by_policy(fields, bucket_name, len(self.raw_body or b""), datetime.now(UTC))
        status, headers, body = refused or post(self, request, bucket_name)
        return status, {**self._get_cors_headers_other(), **headers}, body

    post_as_s3_does.as_s3_does = True  # type: ignore[attr-defined]
    S3Response._bucket_response_post = post_as_s3_does  # type: ignore[method-assign]


class Emulator:
    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        speed_up_dynamodb()
        answer_forms_as_s3_does()
        self.host = host
        self._lock = threading.RLock()  # re-entrant: moto may call AWS itself while it answers
        self.in_process = InProcess(self._lock)
        self._server: BaseWSGIServer = make_server(
            host,
            port,
            OneRequestAtATime(DomainDispatcherApplication(create_backend_app), self._lock),
            threaded=True,
            request_handler=MotoRequestHandler,
        )
        self._thread: threading.Thread | None = None
        self._also: list[BaseWSGIServer] = []

    @property
    def port(self) -> int:
        return self._server.server_port

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def start(self) -> None:
        server = self._server
        self._thread = threading.Thread(target=lambda: server.serve_forever(poll_interval=0.1), daemon=True)
        self._thread.start()

    def serve_also(self, host: str) -> str:
        """Serve the same emulator on another address too (the Docker bridge's, for `sam local`'s containers), under
        the same lock; its URL. Stopped with the emulator."""
        server = make_server(host, 0, self._server.app, threaded=True, request_handler=MotoRequestHandler)
        self._also.append(server)
        threading.Thread(target=lambda: server.serve_forever(poll_interval=0.1), daemon=True).start()
        return f"http://{host}:{server.server_port}"

    def answer_this_process(self) -> None:
        """Every boto3 client this process makes from now on (on AWS's endpoints) is answered in-process."""
        BUILTIN_HANDLERS.append(("before-send", self.in_process))
        boto3.DEFAULT_SESSION = None  # a session takes the built-in handlers when it is made

    def stop(self) -> None:
        for server in self._also:
            server.shutdown()
            server.server_close()
        if self._thread is not None and self._thread.is_alive():  # shutdown() waits for serve_forever()
            self._server.shutdown()
        self._server.server_close()
