"""The import function's side of the inbox: S3 event notifications, delivered through SQS, name the guides
operators uploaded. An object's key is `<zone>/<file name>`: everything before the last `/` names the
programme zone (`Europe/Moscow/guide.xml` goes to the zone `Europe/Moscow`)."""

import json
from contextlib import AbstractContextManager, closing
from dataclasses import dataclass
from functools import partial
from typing import Any, BinaryIO
from urllib.parse import unquote_plus

from ott.observability import logger
from ott.tvguide.importer import import_guide, refusal_document, report_document
from ott.tvguide.store import GuideInbox, GuideStore
from ott.tvguide.xmltv import NotXmltv

ZONE_NAME_LIMIT = 64


@dataclass(frozen=True)
class InboxObject:
    bucket: str
    key: str

    @property
    def zone(self) -> str:
        return self.key.rpartition("/")[0]


def zone_key(zone: str, file_name: str) -> str:
    """Where an operator puts a guide for `zone`."""
    return f"{zone}/{file_name.rpartition('/')[2]}"


def uploaded_objects(body: str) -> list[InboxObject]:
    """The objects an S3 event notification names; S3's test event names none. Keys arrive URL-encoded."""
    message: dict[str, Any] = json.loads(body)
    return [
        InboxObject(record["s3"]["bucket"]["name"], unquote_plus(record["s3"]["object"]["key"]))
        for record in message.get("Records", [])
        if str(record.get("eventName", "")).startswith("ObjectCreated:")
    ]


def import_uploads(store: GuideStore, inbox: GuideInbox, body: str) -> None:
    """Imports every guide the notification names and stores each one's report under its key. A guide that is
    not XMLTV, or a key without a zone, is refused and reported; the message is done (a retry would refuse it
    again). Storage failures raise: SQS delivers the message again and the import, being idempotent, redoes it."""
    for uploaded in uploaded_objects(body):
        zone = uploaded.zone
        if not zone or len(zone) > ZONE_NAME_LIMIT:
            result = refusal_document(NotXmltv("the key must be <zone>/<file name>"), zone[:ZONE_NAME_LIMIT])
        else:
            try:
                report = import_guide(store, partial(_opened, inbox, uploaded), zone)
                result = report_document(report, zone)
            except NotXmltv as error:
                result = refusal_document(error, zone)
        logger.info("guide import", extra={"key": uploaded.key, **{k: v for k, v in result.items() if k != "examples"}})
        store.save_import(uploaded.key, result)


def _opened(inbox: GuideInbox, uploaded: InboxObject) -> AbstractContextManager[BinaryIO]:
    return closing(inbox.open(uploaded.bucket, uploaded.key))
