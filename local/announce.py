"""How a running local stack tells where it is and whether it is ready: to operator commands (`--local`), one file
per PORT under .local-stack/ (the address of its emulator, its process, whether its start is over, and the
settings a command acting on it must share), written as soon as it answers, again once its start is over, and
removed when it stops; to a person or a program reading its console, its banner, printed once the start is over."""

import json
import os
import subprocess
import time
from pathlib import Path
from typing import Any

LOCAL_STACKS = Path(__file__).resolve().parent.parent / ".local-stack"

# What the local stack sets unless the environment says otherwise, and what operator commands acting on it
# (`--local`) then take from it: one process serves every function, so the hot items a cloud container keeps
# (`ott.storage.cache`) save nothing here; with them off (0: read at every request) a change shows at once, and a
# publication needs no spacing (`publish_spacing` in ott.registry.store and ott.tvguide.store: the time a cloud
# container may still read the generation it replaced), so neither `make run` nor a local import waits for it.
LOCAL_SETTINGS = {"HOT_ITEM_SECONDS": "0"}


def local_stack_file(port: str | None = None) -> Path:
    """The file of the stack on `port` (by default the PORT of the environment, else 3000)."""
    return LOCAL_STACKS / f"{port or os.environ.get('PORT', '3000')}.json"


def announce(port: int, endpoint: str, ready: bool, settings: dict[str, str]) -> None:
    """Write (atomically: a command never reads half of it) the file of the stack on `port`."""
    path = local_stack_file(str(port))
    path.parent.mkdir(exist_ok=True)
    written = path.with_suffix(f".{os.getpid()}.tmp")
    document = {"endpoint": endpoint, "pid": os.getpid(), "ready": ready, "settings": settings}
    written.write_text(json.dumps(document), encoding="utf-8")
    os.replace(written, path)


def announcement(port: str | None = None) -> dict[str, Any] | None:
    """What the stack on `port` announced, or None when no stack of this checkout runs there (no file, or the
    file of a stack whose process is gone)."""
    try:
        announced = json.loads(local_stack_file(port).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    try:
        os.kill(int(announced["pid"]), 0)
    except ProcessLookupError:
        return None
    except PermissionError:  # alive, another user's
        pass
    return dict(announced)


BANNER = "OTT platform local stack on"  # the banner's first words


def wait_for_banner(process: subprocess.Popen, console: Path, within: float) -> None:
    """Return once the stack `process`, its console written to `console`, has printed its banner; raise if it
    ends first or takes longer than `within` seconds."""
    deadline = time.monotonic() + within
    while BANNER not in console.read_text(encoding="utf-8", errors="replace"):
        if process.poll() is not None:
            raise RuntimeError(f"the local stack exited early:\n{console.read_text(errors='replace')}")
        if time.monotonic() > deadline:
            process.kill()
            raise RuntimeError(f"the local stack did not start within {within} s:\n{console.read_text()}")
        time.sleep(0.1)
