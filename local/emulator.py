"""The AWS emulator of the local stack: moto's server app on loopback, answering one request at a time."""

import threading
from collections.abc import Callable, Iterable

from moto.moto_server.werkzeug_app import DomainDispatcherApplication, MotoRequestHandler, create_backend_app
from werkzeug.serving import BaseWSGIServer, make_server


class OneRequestAtATime:
    """moto's backends are not thread-safe (a DynamoDB transaction deep-copies its tables while other threads
    write to them: 500s and lost writes), and the emulator is called from several threads: the gateway's
    handlers, the queue pollers and moto's own Step Functions executions. No moto request waits on another
    (executions run in threads of their own; the pollers do not long-poll), so one lock cannot deadlock."""

    def __init__(self, app: Callable[[dict, Callable], Iterable[bytes]]) -> None:
        self._app = app
        self._lock = threading.Lock()

    def __call__(self, environ: dict, start_response: Callable) -> list[bytes]:
        with self._lock:
            reply = self._app(environ, start_response)
            try:
                return list(reply)  # the body is made while the lock is held
            finally:
                close = getattr(reply, "close", None)
                if close is not None:
                    close()


class Emulator:
    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        self.host = host
        self._server: BaseWSGIServer = make_server(
            host,
            port,
            OneRequestAtATime(DomainDispatcherApplication(create_backend_app)),
            threaded=True,
            request_handler=MotoRequestHandler,
        )
        self._thread: threading.Thread | None = None

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

    def stop(self) -> None:
        if self._thread is not None and self._thread.is_alive():  # shutdown() waits for serve_forever()
            self._server.shutdown()
        self._server.server_close()
