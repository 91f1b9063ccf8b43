"""What the console shows and takes of the niche-content queue (staff routes, not in the spec): the queue by status,
an item with its history of transitions, and an operator's retry of a failed item."""

from datetime import datetime
from enum import StrEnum

from pydantic import BaseModel, ConfigDict

from ott.nichecontent.models import ItemId
from ott.nichecontent.params import Page
from ott.wire import UInt32, WireModel


class QueueView(StrEnum):
    AWAITING = "awaiting"  # waiting for an encoder, oldest first
    IN_WORK = "in_work"  # taken by an encoder: failed by the queue if it stays silent past the work timeout
    RETRYING = "retrying"  # failed, back to awaiting when its retry is due
    FAILED = "failed"  # failed and retried no more: waits for an operator's retry


class QueueParams(BaseModel):
    model_config = ConfigDict(extra="ignore")

    status: QueueView
    p: Page = 1


class QueueEntry(WireModel):
    id: str
    source_url: str
    status: str  # the spec's name (awaiting, totranscoder, …, failure)
    since: datetime | None = None  # absent in the awaiting list, which holds only what encoders are given
    failures: UInt32 = 0
    retry_at: datetime | None = None


class QueuePage(WireModel):
    """A page of 20 of one view of the queue, oldest first."""

    status: QueueView
    total: UInt32
    page: UInt32
    items: list[QueueEntry]


class ItemParams(BaseModel):
    model_config = ConfigDict(extra="ignore")

    id: ItemId


class RetryRequest(WireModel):
    id: ItemId
