"""The console's data: its static files under `static/`, and the audit trail's factory."""

from dataclasses import dataclass
from pathlib import Path

from pydantic import AliasChoices, Field

from ott.audit import AuditLog, audit_log
from ott.config import EnvSettings, Names, load_settings

STATIC = Path(__file__).resolve().parent / "static"
# Text only: the console has no images of its own (posters' images come from where the operator keeps them).
TYPES = {".html": "text/html", ".js": "text/javascript", ".css": "text/css", ".svg": "image/svg+xml"}


@dataclass(frozen=True)
class StaticFile:
    text: str
    content_type: str


def console_file(name: str) -> StaticFile | None:
    """The console's file at `name` (its path under /console/), read as it is now, so that an edit shows at the
    next reload (`make run`); None for anything that is not one of its files, whatever the path says."""
    files = {path.relative_to(STATIC).as_posix(): path for path in STATIC.rglob("*") if path.suffix in TYPES}
    path = files.get(name)
    if path is None or not path.is_file():
        return None
    return StaticFile(path.read_text(encoding="utf-8"), f"{TYPES[path.suffix]}; charset=UTF-8")


class ConsoleSettings(EnvSettings):
    client_id: str = Field("staff-console", alias="CONSOLE_CLIENT_ID")
    # The buckets staff upload files to from the console (comma-separated): its policy lets it post to them.
    upload_buckets: Names = Field(frozenset(), alias="CONSOLE_UPLOAD_BUCKETS")
    region: str = Field("us-east-1", validation_alias=AliasChoices("AWS_REGION", "AWS_DEFAULT_REGION"))


def console_settings() -> ConsoleSettings:
    return load_settings(ConsoleSettings)


def audit_trail() -> AuditLog:
    return audit_log()
