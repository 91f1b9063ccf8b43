"""`make run`: the local stack in the foreground on http://127.0.0.1:$PORT (3000 by default)."""

import logging
import os
import signal
import threading

from local.stack import LocalStack


def main() -> None:
    logging.basicConfig(level=logging.WARNING)
    logging.getLogger("werkzeug").setLevel(logging.WARNING)
    stack = LocalStack(port=int(os.environ.get("PORT", "3000")))
    stack.start()
    print(stack.banner(), flush=True)
    stopped = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stopped.set())
    try:
        stopped.wait()
    except KeyboardInterrupt:
        pass
    finally:
        stack.stop()
        print("stopped", flush=True)
    # Everything the stack held lived in this process and is gone: skip the second or more the interpreter
    # would spend finalizing the emulator's objects, so that Ctrl-C ends `make run` at once.
    os._exit(0)


if __name__ == "__main__":
    main()
