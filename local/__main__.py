"""`make run`: the local stack in the foreground on http://127.0.0.1:$PORT (3000 by default)."""

import logging
import os
import signal
import time
from typing import NoReturn

from local.stack import LocalStack

# The main thread naps rather than waiting on a lock without a timeout: Python runs a signal's handler only
# when the main thread runs, and a signal landing just as it entered such a wait left `make run` asleep
# for good.
NAP_SECONDS = 0.1


def interrupt(*_: object) -> NoReturn:
    raise KeyboardInterrupt


def main() -> None:
    logging.basicConfig(level=logging.WARNING)
    logging.getLogger("werkzeug").setLevel(logging.WARNING)
    # SIGTERM stops the stack as Ctrl-C does, even while it starts; and so does SIGINT when the stack was started
    # with it ignored (a background job of a script, nohup), where Python would not turn it into KeyboardInterrupt.
    signal.signal(signal.SIGTERM, interrupt)
    signal.signal(signal.SIGINT, interrupt)
    stack = LocalStack(port=int(os.environ.get("PORT", "3000")))
    try:
        stack.start()  # answers from here on
        while not stack.ready(within=NAP_SECONDS):
            pass
        print(stack.banner(), flush=True)
        while True:
            time.sleep(NAP_SECONDS)
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
