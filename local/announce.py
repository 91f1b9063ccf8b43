"""How a running local stack tells that it is ready: to operator commands (`--local`), the address of its
emulator in one file per PORT under .local-stack/, written once it has started and removed when it stops; to a
person or a program reading its console, its banner, printed at the same time."""

import os
import subprocess
import time
from pathlib import Path

LOCAL_STACKS = Path(__file__).resolve().parent.parent / ".local-stack"


def local_stack_file(port: str | None = None) -> Path:
    """The file of the stack on `port` (by default the PORT of the environment, else 3000)."""
    return LOCAL_STACKS / f"{port or os.environ.get('PORT', '3000')}.json"


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
