"""Files staff send from the console straight to S3, past API Gateway's 10 MB body and 29-second limits
(docs/decisions.md, "Uploads from the browser").

A staff route hands the browser a presigned POST (`upload_form`): a form for one exact key under a prefix the
route chose (`upload_key`), the sizes allowed (`content-length-range`) and a short expiry, signed by the
function's role. The browser posts the file to the bucket (the console's `upload.js`); the bucket's event
notification reaches the service's consumer through SQS (`uploaded_objects`), which must be idempotent: SQS may
deliver an event twice. The bucket's CORS lets only the console's origin read S3's answer, and the console's
Content-Security-Policy names the bucket's origin in `connect-src` (`upload_origin`)."""

import json
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Protocol
from urllib.parse import unquote_plus, urlsplit

from pydantic import Field

from ott.aws import client
from ott.config import EnvSettings, load_settings
from ott.errors import PayloadTooLarge
from ott.wire import WireModel

# Long enough to choose a file and send tens of megabytes on a slow line; short, should a form leak.
FORM_SECONDS = 600


class UploadForm(WireModel):
    """Post `fields`, then the file as the field `file` (the form's last), to `url` as multipart/form-data before
    `expires_at`; S3 refuses another key, a file over `max_bytes` or an empty one."""

    url: str
    fields: dict[str, str]
    key: str
    max_bytes: int
    expires_at: datetime


class UploadSettings(EnvSettings):
    # Where browsers reach S3 when it is not AWS's: the local stack's emulator (set by `make run`), path-style.
    browser_endpoint: str | None = Field(None, alias="S3_BROWSER_ENDPOINT")


def bucket_url(bucket: str, region: str) -> str:
    """The URL a browser posts a bucket's forms to: its regional virtual-hosted endpoint in AWS."""
    endpoint = load_settings(UploadSettings).browser_endpoint
    if endpoint:
        return f"{endpoint.rstrip('/')}/{bucket}"
    return f"https://{bucket}.s3.{region}.amazonaws.com"


def upload_origin(bucket: str, region: str) -> str:
    """The bucket's origin, for the console's `connect-src`."""
    parts = urlsplit(bucket_url(bucket, region))
    return f"{parts.scheme}://{parts.netloc}"


def upload_key(prefix: str, file_name: str) -> str:
    """`<prefix>/<random>-<file name>`: a key no other upload takes, which still names the file for people, directly
    under the prefix (the guide's inbox reads its zone from everything before the last `/`)."""
    return f"{prefix}/{secrets.token_hex(8)}-{file_name.rpartition('/')[2]}"


class UploadBucket(Protocol):
    name: str

    def form(self, key: str, max_bytes: int, seconds: int) -> tuple[str, dict[str, str]]:
        """The URL and the signed fields of a POST of `key` only, 1 to `max_bytes` bytes, for `seconds`."""
        ...

    def read(self, key: str, max_bytes: int, etag: str = "") -> bytes:
        """The object at `key` (the upload whose entity tag is `etag`, when given); PayloadTooLarge past `max_bytes`
        (read no further than that); UploadGone when there is no such object, or another upload replaced it."""
        ...


class S3UploadBucket:
    def __init__(self, name: str, s3: Any) -> None:
        self.name = name
        self._s3 = s3

    def form(self, key: str, max_bytes: int, seconds: int) -> tuple[str, dict[str, str]]:
        post = self._s3.generate_presigned_post(
            Bucket=self.name, Key=key, Conditions=[["content-length-range", 1, max_bytes]], ExpiresIn=seconds
        )
        return bucket_url(self.name, self._s3.meta.region_name), post["fields"]

    def read(self, key: str, max_bytes: int, etag: str = "") -> bytes:
        try:
            body = self._s3.get_object(Bucket=self.name, Key=key, **({"IfMatch": etag} if etag else {}))["Body"]
        except self._s3.exceptions.ClientError as error:
            code = error.response.get("Error", {}).get("Code", "")
            if code in {"NoSuchKey", "404", "PreconditionFailed", "412"}:
                raise UploadGone(f"{key}: no such upload (it was deleted, or another upload replaced it)") from None
            raise
        with body:
            data: bytes = body.read(max_bytes + 1)
        if len(data) > max_bytes:
            raise PayloadTooLarge(f"the uploaded file is larger than {max_bytes} bytes")
        return data


def upload_bucket(name: str) -> S3UploadBucket:
    """A bucket staff upload to, through a client that signs forms as every region takes them (version 4)."""
    return S3UploadBucket(name, client("s3", signature_version="s3v4"))


def upload_form(bucket: UploadBucket, key: str, max_bytes: int, now: datetime) -> UploadForm:
    """A form the browser posts one file with, to `key` only, within `max_bytes`, for FORM_SECONDS."""
    url, fields = bucket.form(key, max_bytes, FORM_SECONDS)
    return UploadForm(
        url=url, fields=fields, key=key, max_bytes=max_bytes, expires_at=now + timedelta(seconds=FORM_SECONDS)
    )


class UploadGone(LookupError):
    """The object an event named is not in the bucket, or is not the upload the event announced."""


@dataclass(frozen=True)
class Uploaded:
    bucket: str
    key: str
    size: int
    etag: str = ""  # which upload of the key the event announces: a form posted twice makes two


def uploaded_objects(body: str) -> list[Uploaded]:
    """The objects an S3 event notification (an SQS message's body) says were created; S3's test event names
    none. Keys arrive URL-encoded."""
    message: dict[str, Any] = json.loads(body)
    return [
        Uploaded(
            record["s3"]["bucket"]["name"],
            unquote_plus(record["s3"]["object"]["key"]),
            int(record["s3"]["object"].get("size", 0)),
            str(record["s3"]["object"].get("eTag", "")),
        )
        for record in message.get("Records", [])
        if str(record.get("eventName", "")).startswith("ObjectCreated:")
    ]
