"""The import function's side of the inbox: S3 event notifications, delivered through SQS, name the guides
operators uploaded. An object's key is `<zone>/<file name>`: everything before the last `/` names the
programme zone (`Europe/Moscow/guide.xml` goes to the zone `Europe/Moscow`), which must exist and whose name
follows the zones' character set (docs/tvguide.md, "Zones")."""

import json
import re
from collections.abc import Callable
from contextlib import AbstractContextManager, closing
from dataclasses import dataclass
from datetime import datetime
from functools import partial
from typing import Any, BinaryIO
from urllib.parse import unquote_plus

from pydantic import TypeAdapter, ValidationError

from ott.aws import client
from ott.clock import epoch_seconds
from ott.config import load_settings
from ott.observability import logger
from ott.tvguide.importer import ImportRefused, import_guide, refusal_document, report_document
from ott.tvguide.mapping import ImportReport
from ott.tvguide.ports import GuideInbox, GuideStore
from ott.tvguide.store import GuideSettings
from ott.tvguide.xmltv import NotXmltv
from ott.tvguide.zones import ZoneName
from ott.uploads import UploadGone

ZONE_NAMES: TypeAdapter[str] = TypeAdapter(ZoneName)
ZONE_NAME_RULE = "ASCII letters, digits, _ + - in segments joined by /, 1 to 64 characters"


@dataclass(frozen=True)
class InboxObject:
    bucket: str
    key: str
    etag: str = ""  # which upload of the key the event announces: a form posted twice makes two

    @property
    def zone(self) -> str:
        return self.key.rpartition("/")[0]


def zone_key(zone: str, file_name: str) -> str:
    """Where an operator puts a guide for `zone`."""
    return f"{zone}/{file_name.rpartition('/')[2]}"


def checked_zone(name: str) -> str:
    """The zone name as given; ImportRefused when it is outside the zones' character set."""
    try:
        return ZONE_NAMES.validate_python(name)
    except ValidationError:
        raise ImportRefused(f"{name[:64]!r} is no zone name ({ZONE_NAME_RULE})") from None


# The name `ops.tvguide.load` gives an upload: `<stamp>-<random>-<file name>`, a key of its own per upload.
UPLOAD_PREFIX = re.compile(r"\d{8}T\d{6}Z-[0-9a-f]{8}-")


def source_of(key: str) -> str:
    """The source an inbox key's facts come from: `<zone>/<file name>`, the upload's own prefix left off, so
    that the same file uploaded again replaces what it said before."""
    zone, _, name = key.rpartition("/")
    prefix = UPLOAD_PREFIX.match(name)
    return f"{zone}/{name[prefix.end() :] if prefix else name}"


def uploaded_objects(body: str) -> list[InboxObject]:
    """The objects an S3 event notification names; S3's test event names none. Keys arrive URL-encoded."""
    message: dict[str, Any] = json.loads(body)
    return [
        InboxObject(
            record["s3"]["bucket"]["name"],
            unquote_plus(record["s3"]["object"]["key"]),
            str(record["s3"]["object"].get("eTag", "")),
        )
        for record in message.get("Records", [])
        if str(record.get("eventName", "")).startswith("ObjectCreated:")
    ]


def import_uploads(
    store: GuideStore,
    inbox: GuideInbox,
    body: str,
    clock: Callable[[], datetime],
) -> None:
    """Imports every guide the notification names and stores each one's report under its key: `running` with
    the channels and telecasts so far while it runs, then what it did. A guide that is not XMLTV, or a key whose
    zone is no zone name or does not exist, is refused and reported; the message is done (a retry would refuse it
    again). Any other failure (storage, the lease another import holds too long) is reported `failed` with its
    error, having changed nothing clients read, and raised: SQS delivers the message again and the import redoes
    it. Only the inbox's own bucket's events are imported, and of a key only its first upload (its events again, a
    redelivery, import it again): a form posted twice within its minutes has its second file reported in the log
    and left (issue 28). An object gone before it is read is refused."""
    for uploaded in uploaded_objects(body):
        if uploaded.bucket != inbox.bucket:
            logger.warning("guide upload passed over: another bucket", extra={"bucket": uploaded.bucket[:256]})
            continue
        if not store.claim_import(uploaded.key, uploaded.etag):
            logger.warning(
                "guide upload passed over: another file was posted to its key first (a form posted twice)",
                extra={"key": uploaded.key[:1024], "etag": uploaded.etag[:64]},
            )
            continue
        zone = uploaded.zone[:64]
        started = epoch_seconds(clock())

        def running(report: ImportReport, zone: str = zone, key: str = uploaded.key, started: int = started) -> None:
            progress = {"channels": report.channels, "telecasts": report.telecasts}
            store.save_import(key, {"status": "running", "zone": zone, "started": started, **progress})

        try:
            checked_zone(uploaded.zone)
            opened = partial(_opened, inbox, uploaded)
            report = import_guide(store, opened, uploaded.zone, progress=running, source=source_of(uploaded.key))
            result = report_document(report, zone)
        except (NotXmltv, ImportRefused) as error:
            result = refusal_document(error, zone)
        except UploadGone as error:  # a retry would not find it either
            result = refusal_document(ImportRefused(str(error)), zone)
        except Exception as error:  # the guide is as before (nothing published); SQS delivers the message again
            failed = {"status": "failed", "zone": zone, "error": f"{type(error).__name__}: {error}"[:500]}
            store.save_import(uploaded.key, {**failed, "started": started, "finished": epoch_seconds(clock())})
            raise
        result.update(started=started, finished=epoch_seconds(clock()))
        logger.info("guide import", extra={"key": uploaded.key, **{k: v for k, v in result.items() if k != "examples"}})
        store.save_import(uploaded.key, result)


def _opened(inbox: GuideInbox, uploaded: InboxObject) -> AbstractContextManager[BinaryIO]:
    return closing(inbox.open(uploaded.bucket, uploaded.key))


class S3Inbox:
    """The inbox (`GuideInbox`) over S3."""

    def __init__(self, s3: Any, bucket: str) -> None:
        self._s3 = s3
        self.bucket = bucket

    def open(self, bucket: str, key: str) -> BinaryIO:
        try:
            return self._s3.get_object(Bucket=bucket, Key=key)["Body"]
        except self._s3.exceptions.NoSuchKey:
            raise UploadGone(f"{key[:1024]}: no such upload (it was deleted)") from None


def guide_inbox() -> S3Inbox:
    return S3Inbox(client("s3"), load_settings(GuideSettings).inbox_bucket)
