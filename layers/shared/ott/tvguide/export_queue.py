"""The queue that asks for a zone's export (docs/tvguide.md, "The export"): a message per zone
whose guide changed, sent by the import function and the guide's operations (`ott.tvguide.operations`, for the operator
commands and staff routes), read by the export function (`ott.tvguide.zone_export`). Kept apart from the export's
writing so that senders import little."""

import json
from collections.abc import Callable, Collection, Iterable, Iterator
from functools import partial
from typing import Any
from uuid import uuid4

from pydantic import Field, TypeAdapter, ValidationError

from ott.aws import client
from ott.config import EnvSettings, load_settings
from ott.tvguide.zones import ZoneName

ZONE_NAMES: TypeAdapter[str] = TypeAdapter(ZoneName)
SEND_BATCH = 10  # SQS takes 10 messages a SendMessageBatch


class ExportQueueSettings(EnvSettings):
    queue_url: str = Field("", alias="GUIDE_EXPORT_QUEUE_URL")


def export_queue_url() -> str:
    return load_settings(ExportQueueSettings).queue_url


def batched(values: list[Any], size: int) -> Iterator[list[Any]]:
    for start in range(0, len(values), size):
        yield values[start : start + size]


def export_message(zone: str) -> str:
    return json.dumps({"zone": zone})


def requested_zone(body: str) -> str | None:
    """The zone a message asks to export; None for a message that names none or no zone name (it cannot be
    redone: dropped)."""
    try:
        return zone_name(json.loads(body).get("zone"))
    except (ValueError, AttributeError):
        return None


def zone_name(name: Any) -> str | None:
    """The name when it follows the zones' character set (docs/tvguide.md, "Zones"), else None."""
    try:
        return ZONE_NAMES.validate_python(name)
    except ValidationError:
        return None


def request_exports(sqs: Any, queue_url: str, zones: Iterable[str]) -> None:
    """Asks the export function to write each zone's export again (its guide changed). The queue is FIFO, grouped
    by zone; every request is a new message (a change right after another must be exported again)."""
    entries = [
        {
            "Id": str(index),
            "MessageBody": export_message(zone),
            "MessageGroupId": zone,
            "MessageDeduplicationId": uuid4().hex,
        }
        for index, zone in enumerate(sorted(set(zones)))
    ]
    for batch in batched(entries, SEND_BATCH):
        failed = sqs.send_message_batch(QueueUrl=queue_url, Entries=batch).get("Failed", [])
        if failed:
            raise RuntimeError(f"the export queue refused {len(failed)} messages: {failed[0].get('Message')}")


def export_requests() -> Callable[[Collection[str]], None]:
    """A function's export requests (`ott.tvguide.operations.ExportRequests`): to the template's queue."""
    return partial(request_exports, client("sqs"), export_queue_url())
