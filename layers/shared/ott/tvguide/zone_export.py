"""The whole guide of a zone as one gzip-compressed XMLTV document in S3 (docs/tvguide.md, "The export"), whatever its
size: the export function writes it whenever the zone's guide changes (a
message on the export queue names the zone: after an import, a configuration load, a zone's creation or
deletion), and `GET /tvguide/2/xmltv.xml` without `channel` and `dates` sends the player to it.

The document is streamed: channel by channel, a channel's days read a hundred at a time, compressed as it is
written and uploaded in parts, so memory holds one part and one batch of days whatever the zone's size. The same
guide gives the same bytes (no time in the document or its gzip header): a message delivered twice writes the
same object."""

import gzip
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from typing import Any, BinaryIO, Protocol

from lxml import etree
from pydantic import Field

from ott.aws import client
from ott.callers import Caller
from ott.config import EnvSettings, load_settings
from ott.errors import NotFound
from ott.registry.location import RegistryStore
from ott.snapstart import forget_after_restore
from ott.storage.database import BATCH_GET_LIMIT
from ott.tvguide.export import DOCTYPE, GENERATOR, channel_element, programme_element
from ott.tvguide.export_queue import batched
from ott.tvguide.params import XmltvParams
from ott.tvguide.ports import GuideStore
from ott.tvguide.service import Answer, Request, chronological, zone_channels

# How long the address a player is sent to stays valid, and how long the redirect may be cached: shorter, so
# that no cache hands out an address that no longer opens.
EXPORT_URL_SECONDS = 3600
REDIRECT_MAX_AGE = 300
# Uploaded in parts of this size (S3 takes 5 MiB at least but for the last; 10,000 parts at most: 80 GB).
PART_BYTES = 8 << 20
CONTENT_TYPE = "application/xml; charset=UTF-8"
# What S3 sends with the object: players and browsers decompress it (Kodi's IPTV Simple also by its magic bytes).
CONTENT_ENCODING = "gzip"


def export_key(zone: str) -> str:
    """Where a zone's export is kept: zone names are path segments (`Europe/Moscow`), never `..`."""
    return f"xmltv/{zone}.xml"


class ExportBucket(Protocol):
    def writer(self, key: str) -> AbstractContextManager[BinaryIO]:
        """A stream that replaces the object at `key` with what is written, once the block ends without an
        error; with one, the object stays as it was."""
        ...

    def exists(self, key: str) -> bool: ...

    def delete(self, key: str) -> None: ...

    def url(self, key: str, seconds: int) -> str:
        """An address that opens the object for `seconds`, without credentials."""
        ...


@dataclass(frozen=True)
class ExportWritten:
    zone: str
    channels: int
    programmes: int


def write_zone_export(store: GuideStore, bucket: ExportBucket, zone_name: str) -> ExportWritten | None:
    """Writes the zone's whole guide: its channels (those it holds a schedule of), then each channel's programmes
    on every date the zone holds, in time order, times with the zone's offset. A zone that no longer exists has
    its export deleted (None)."""
    catalogue = store.catalogue()
    zone = catalogue.config.zone(zone_name)
    key = export_key(zone_name)
    if zone is None:
        bucket.delete(key)
        return None
    records = [catalogue.channels[number] for number in zone_channels(catalogue, zone)]
    programmes = 0
    with (
        bucket.writer(key) as raw,
        gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as compressed,
        etree.xmlfile(compressed, encoding="UTF-8") as document,
    ):
        document.write_declaration()
        document.write_doctype(DOCTYPE)
        with document.element("tv", GENERATOR):
            for record in records:
                document.write(channel_element(record, catalogue.config), pretty_print=True)
            for record in records:
                number, dates = record.channel.channel_id, record.dates[zone.name]
                for batch in batched(dates, BATCH_GET_LIMIT):
                    days = store.days([(zone.name, number, day) for day in batch])
                    for telecast in chronological(days, zone):
                        # Indented: readers such as python-xmltvalt expect whitespace in <rating>.
                        document.write(programme_element(telecast, zone), pretty_print=True)
                        programmes += 1
    return ExportWritten(zone.name, len(records), programmes)


def zone_export_url(
    store: GuideStore, registry: RegistryStore, bucket: ExportBucket, params: XmltvParams, caller: Caller, now: datetime
) -> Answer[str]:
    """The address of the export of the caller's zone (chosen as every guide method chooses it), valid for
    EXPORT_URL_SECONDS; NotFound when there is no such zone or its export is not written yet."""
    request = Request(store, registry, params, caller, now)
    config, _ = store.configuration()
    zone = request.zone(config)
    if zone is None:
        raise NotFound("no programme zone for this request")
    key = export_key(zone.name)
    if not bucket.exists(key):
        raise NotFound(f"the guide of zone {zone.name!r} is not exported yet: it is written within minutes of a change")
    return request.answer(bucket.url(key, EXPORT_URL_SECONDS), REDIRECT_MAX_AGE)


# ---- S3


class ExportSettings(EnvSettings):
    bucket: str = Field("", alias="GUIDE_EXPORT_BUCKET")
    # Where players reach S3, when not at AWS's own address (the local stack's emulator).
    endpoint: str = Field("", alias="GUIDE_EXPORT_ENDPOINT")


class S3ExportBucket:
    def __init__(self, s3: Any, bucket: str, presigner: Any = None) -> None:
        self._s3 = s3
        self._bucket = bucket
        self._presigner = presigner or s3

    @contextmanager
    def writer(self, key: str) -> Iterator[BinaryIO]:
        upload = MultipartUpload(self._s3, self._bucket, key)
        try:
            yield upload  # type: ignore[misc]
        except BaseException:
            upload.abort()
            raise
        upload.complete()

    def exists(self, key: str) -> bool:
        from botocore.exceptions import ClientError

        try:
            self._s3.head_object(Bucket=self._bucket, Key=key)
        except ClientError as error:
            if error.response.get("Error", {}).get("Code") in ("404", "NoSuchKey", "NotFound"):
                return False
            raise
        return True

    def delete(self, key: str) -> None:
        self._s3.delete_object(Bucket=self._bucket, Key=key)

    def url(self, key: str, seconds: int) -> str:
        return str(
            self._presigner.generate_presigned_url(
                "get_object", Params={"Bucket": self._bucket, "Key": key}, ExpiresIn=seconds
            )
        )


class MultipartUpload:
    """A write-only stream into an S3 object: what is written is uploaded in PART_BYTES parts as it comes (one
    PutObject when it all fits in one part); the object appears only on `complete`."""

    def __init__(self, s3: Any, bucket: str, key: str) -> None:
        self._s3, self._bucket, self._key = s3, bucket, key
        self._buffer = bytearray()
        self._upload_id: str | None = None
        self._parts: list[dict[str, Any]] = []
        self._headers = {"ContentType": CONTENT_TYPE, "ContentEncoding": CONTENT_ENCODING}

    def write(self, data: bytes) -> int:
        self._buffer += data
        if len(self._buffer) >= PART_BYTES:
            self._send_part()
        return len(data)

    def flush(self) -> None:
        """Parts go when full (gzip flushes its stream when it closes)."""

    def _send_part(self) -> None:
        if self._upload_id is None:
            started = self._s3.create_multipart_upload(Bucket=self._bucket, Key=self._key, **self._headers)
            self._upload_id = started["UploadId"]
        number = len(self._parts) + 1
        sent = self._s3.upload_part(
            Bucket=self._bucket, Key=self._key, UploadId=self._upload_id, PartNumber=number, Body=bytes(self._buffer)
        )
        self._parts.append({"PartNumber": number, "ETag": sent["ETag"]})
        self._buffer.clear()

    def complete(self) -> None:
        if self._upload_id is None:
            self._s3.put_object(Bucket=self._bucket, Key=self._key, Body=bytes(self._buffer), **self._headers)
            return
        if self._buffer:
            self._send_part()
        self._s3.complete_multipart_upload(
            Bucket=self._bucket, Key=self._key, UploadId=self._upload_id, MultipartUpload={"Parts": self._parts}
        )

    def abort(self) -> None:
        if self._upload_id is not None:
            self._s3.abort_multipart_upload(Bucket=self._bucket, Key=self._key, UploadId=self._upload_id)


def export_bucket() -> S3ExportBucket:
    settings = load_settings(ExportSettings)
    return S3ExportBucket(client("s3"), settings.bucket, presigning_client(settings.endpoint))


@cache  # made once per process, as ott.aws makes its clients
def presigning_client(endpoint: str = "") -> Any:
    """An S3 client that signs addresses with Signature Version 4 (the only one every region takes), at AWS's
    address or, for the local stack, at the emulator's (path-style: its host is an IP address)."""
    import boto3  # deferred, as ott.aws does
    from botocore.config import Config

    if not endpoint:
        return boto3.client("s3", config=Config(signature_version="s3v4"))
    config = Config(signature_version="s3v4", s3={"addressing_style": "path"})
    return boto3.client("s3", endpoint_url=endpoint, config=config)


forget_after_restore(presigning_client.cache_clear)  # a client: its connections and credentials
