"""Where a running local stack tells operator commands (`--local`) the address of its emulator: one file per
PORT under .local-stack/, written when `make run` starts and removed when it stops."""

import os
from pathlib import Path

LOCAL_STACKS = Path(__file__).resolve().parent.parent / ".local-stack"


def local_stack_file(port: str | None = None) -> Path:
    """The file of the stack on `port` (by default the PORT of the environment, else 3000)."""
    return LOCAL_STACKS / f"{port or os.environ.get('PORT', '3000')}.json"
