"""The zone's whole guide as one gzip-compressed XMLTV object (issue 18, "The whole guide of a zone is one URL"):
written from the store over the in-memory database into moto's S3, streamed in parts, the same guide giving the
same bytes; the route's answer is the address of the caller's zone's export, or a clear 404."""

import gzip
import io
import json
import os
from datetime import UTC, datetime
from urllib.parse import parse_qs, urlsplit

import boto3
import pytest
import xmltv_alt
from lxml import etree

from ott.errors import NotFound
from ott.tvguide import zone_export
from ott.tvguide.config import GuideConfig
from ott.tvguide.edge import redirect_reply
from ott.tvguide.export_queue import request_exports, requested_zone
from ott.tvguide.operations import delete_zone
from ott.tvguide.params import XmltvParams
from ott.tvguide.zone_export import (
    EXPORT_URL_SECONDS,
    REDIRECT_MAX_AGE,
    MultipartUpload,
    S3ExportBucket,
    export_key,
    presigning_client,
    write_zone_export,
    zone_export_url,
)
from tests.fixtures.xmltv import xmltv_dtd
from tests.tvguide.test_service import HOME, ZONES, guide, hours, load, params

BUCKET = "exports"


@pytest.fixture
def s3(aws):
    s3 = boto3.client("s3")
    s3.create_bucket(Bucket=BUCKET)
    return s3


@pytest.fixture
def exports(s3) -> S3ExportBucket:
    return S3ExportBucket(s3, BUCKET, presigning_client())


@pytest.fixture
def guide_database():
    from tests.fixtures.databases import memory_database

    return memory_database()


@pytest.fixture
def store(guide_database):
    from tests.fixtures.stores import guide_store

    store = guide_store(guide_database)
    store.save_configuration(GuideConfig(zones=ZONES), 0)
    return store


def exported(s3, zone: str) -> tuple[dict, bytes]:
    found = s3.get_object(Bucket=BUCKET, Key=export_key(zone))
    return found, gzip.decompress(found["Body"].read())


def test_the_export_is_the_zone_s_whole_guide_gzip_compressed_valid_xmltv(store, s3, exports):
    # Two weeks: more than the seven days the API's xmltv.xml builds by default.
    days = [f"202412{day:02d}" for day in range(1, 15)]
    load(
        store, guide(*[p for day in days for p in hours("ёлка.tv", day, 0, 24)], channels=("ёлка.tv",)), "Europe/Berlin"
    )
    load(store, guide(*hours("b.tv", "20241201", 0, 3), channels=("b.tv",)), "World/Anywhere")  # another zone's
    written = write_zone_export(store, exports, "Europe/Berlin")
    assert written is not None and (written.channels, written.programmes) == (1, 14 * 24)
    found, data = exported(s3, "Europe/Berlin")
    assert found["ContentEncoding"] == "gzip" and found["ContentType"] == "application/xml; charset=UTF-8"
    document = etree.fromstring(data)
    assert xmltv_dtd().validate(document)
    assert [channel.get("id") for channel in document.findall("channel")] == ["ёлка.tv"]
    starts = [programme.get("start") for programme in document.findall("programme")]
    assert len(starts) == 14 * 24 and starts == sorted(starts) and starts[0] == "20241201010000 +0100"
    assert len(xmltv_alt.read_programmes(io.BytesIO(data))) == 14 * 24


def test_the_same_guide_gives_the_same_object_and_a_deleted_zone_none(store, s3, exports):
    load(store, guide(*hours("ёлка.tv", "20241201", 0, 3), channels=("ёлка.tv",)), "Europe/Berlin")
    write_zone_export(store, exports, "Europe/Berlin")
    first = s3.head_object(Bucket=BUCKET, Key=export_key("Europe/Berlin"))["ETag"]
    write_zone_export(store, exports, "Europe/Berlin")  # a message delivered twice
    assert s3.head_object(Bucket=BUCKET, Key=export_key("Europe/Berlin"))["ETag"] == first
    delete_zone(store, "Europe/Berlin", int(datetime.now(UTC).timestamp()), exports=[].extend)
    assert write_zone_export(store, exports, "Europe/Berlin") is None
    assert not exports.exists(export_key("Europe/Berlin"))


def test_a_zone_without_schedules_exports_an_empty_guide(store, s3, exports):
    write_zone_export(store, exports, "Asia/Yekaterinburg")
    document = etree.fromstring(exported(s3, "Asia/Yekaterinburg")[1])
    assert document.tag == "tv" and len(document) == 0


def test_the_route_answers_the_address_of_the_caller_s_zone_s_export(store, registry, s3, exports):
    query = params(XmltvParams, geo="Europe/Berlin")
    with pytest.raises(NotFound, match="zone 'Europe/Berlin' is not exported yet"):
        zone_export_url(store, registry, exports, query, HOME, datetime.now(UTC))
    write_zone_export(store, exports, "Europe/Berlin")
    answer = zone_export_url(store, registry, exports, query, HOME, datetime.now(UTC))
    address = urlsplit(answer.body)
    assert address.path.endswith("/xmltv/Europe/Berlin.xml")
    assert parse_qs(address.query)["X-Amz-Expires"] == [str(EXPORT_URL_SECONDS)]
    reply = redirect_reply(answer)
    assert reply.status == 302 and reply.headers["Location"] == answer.body
    assert (
        reply.headers["Cache-Control"] == f"public, max-age={REDIRECT_MAX_AGE}"
        and REDIRECT_MAX_AGE < EXPORT_URL_SECONDS
    )
    by_address = zone_export_url(store, registry, exports, params(XmltvParams), HOME, datetime.now(UTC))
    assert urlsplit(by_address.body).path.endswith("/xmltv/Europe/Berlin.xml") and by_address.by_address


@pytest.fixture
def registry():
    from ops.registry.load import read_catalog
    from tests.conftest import DEMO_REGISTRY
    from tests.fixtures.databases import memory_database
    from tests.fixtures.stores import loaded_registry

    return loaded_registry(memory_database(), read_catalog(DEMO_REGISTRY))


def test_a_large_upload_goes_in_parts_and_a_failed_one_leaves_nothing(s3, monkeypatch):
    monkeypatch.setattr(zone_export, "PART_BYTES", 5 << 20)  # S3's smallest part but the last
    data = os.urandom(12 << 20)  # incompressible: three parts
    upload = MultipartUpload(s3, BUCKET, "xmltv/big.xml")
    peak = 0
    for start in range(0, len(data), 1 << 20):
        upload.write(data[start : start + (1 << 20)])
        peak = max(peak, len(upload._buffer))
    upload.complete()
    assert peak < 5 << 20  # one part held at most
    assert s3.get_object(Bucket=BUCKET, Key="xmltv/big.xml")["Body"].read() == data
    assert s3.head_object(Bucket=BUCKET, Key="xmltv/big.xml", PartNumber=1)["PartsCount"] == 3

    bucket = S3ExportBucket(s3, BUCKET)
    with pytest.raises(RuntimeError), bucket.writer("xmltv/broken.xml") as stream:
        stream.write(data)
        raise RuntimeError("the store failed halfway")
    assert not bucket.exists("xmltv/broken.xml")
    assert s3.list_multipart_uploads(Bucket=BUCKET).get("Uploads", []) == []


def test_export_requests_name_one_zone_each_and_bad_ones_are_dropped(aws):
    sqs = boto3.client("sqs")
    url = sqs.create_queue(QueueName="exports.fifo", Attributes={"FifoQueue": "true"})["QueueUrl"]
    request_exports(sqs, url, ["Europe/Berlin", "World/Anywhere", "Europe/Berlin"])
    request_exports(sqs, url, ["Europe/Berlin"])  # a second change: asked again, not deduplicated
    received = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10, AttributeNames=["MessageGroupId"])
    zones = [(m["Attributes"]["MessageGroupId"], requested_zone(m["Body"])) for m in received["Messages"]]
    assert sorted(zones) == [("Europe/Berlin", "Europe/Berlin")] * 2 + [("World/Anywhere", "World/Anywhere")]
    assert [requested_zone(body) for body in ("{}", "[]", "no json", json.dumps({"zone": "../x"}))] == [None] * 4
