"""What every operator command shares: its parser, the operator's name, and its exit paths.

    parser = command_parser(__doc__)        # the module's docstring as its help, as written
    add_target(parser); add_operator(parser)  # ops.target: --stack NAME | --local | --table NAME; --operator NAME
    @command
    def main(argv: list[str] | None = None) -> int: ...

Exit codes: 0 done; 1 done, or not found, with something to look at (the command says what); 2 refused: nothing
(more) was written, the reason on one line of standard error. `command` turns what a command leaves uncaught
(a domain's refusal, an unreadable file, a concurrent change, no local stack, an AWS error) into that one line and
2, instead of a traceback; a command that lists every problem of a file prints them itself. Output goes to
standard output, messages to standard error (`say`, `refuse`).
"""

import argparse
import sys
from collections.abc import Callable
from functools import wraps
from typing import Protocol

from botocore.exceptions import BotoCoreError, ClientError

from ott.documents import DocumentError
from ott.errors import DomainError
from ott.recordstore import ConcurrentChange

REFUSED = 2


class Main(Protocol):
    def __call__(self, argv: list[str] | None = None) -> int: ...


class Refused(Exception):
    """The command refuses, with a one-line reason (exit 2)."""


def command_parser(doc: str | None) -> argparse.ArgumentParser:
    return argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)


def say(message: str) -> None:
    """A message to the operator (standard error: standard output is the command's output)."""
    print(message, file=sys.stderr)


def one_line(error: BaseException) -> str:
    if isinstance(error, DomainError):
        text = f"{error.code}: {error.description}"
    elif isinstance(error, DocumentError):
        text = "; ".join(error.problems)
    elif isinstance(error, ConcurrentChange):
        text = "changed meanwhile by someone else: run the command again"
    else:
        text = str(error) or type(error).__name__
    return " ".join(text.split())


def command(main: Callable[[list[str] | None], int | None]) -> Main:
    """`main` with the shared exit paths: its own code (None: 0), or 2 and one line for what it left uncaught."""

    @wraps(main)
    def run(argv: list[str] | None = None) -> int:
        try:
            return main(argv) or 0
        except (Refused, DomainError, DocumentError, ConcurrentChange, ClientError, BotoCoreError, OSError) as error:
            say(f"refused: {one_line(error)}")
            return REFUSED

    return run
