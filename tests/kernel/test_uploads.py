"""What the kernel's uploads decide without S3 (ott/uploads.py): keys no other upload takes, the URL and origin
browsers post to, and what an S3 event notification names."""

import json

import pytest

from ott.config import reset_settings
from ott.uploads import bucket_url, upload_key, upload_origin, uploaded_objects


def test_a_key_is_directly_under_the_prefix_unique_and_keeps_only_the_files_name():
    first, second = upload_key("registry", "../../etc/registry.yaml"), upload_key("Europe/Moscow", "guide.xml")
    prefix, _, rest = first.partition("/")
    token, _, name = rest.partition("-")
    assert prefix == "registry" and len(token) == 16 and name == "registry.yaml"
    assert second.rpartition("/")[0] == "Europe/Moscow"  # the guide's inbox reads the zone so
    assert upload_key("registry", "registry.yaml") != upload_key("registry", "registry.yaml")


@pytest.fixture
def browser_endpoint(monkeypatch):
    def use(endpoint: str | None) -> None:
        if endpoint is None:
            monkeypatch.delenv("S3_BROWSER_ENDPOINT", raising=False)
        else:
            monkeypatch.setenv("S3_BROWSER_ENDPOINT", endpoint)
        reset_settings()

    yield use
    reset_settings()


def test_browsers_post_to_the_buckets_regional_origin_in_aws_and_to_the_emulator_locally(browser_endpoint):
    browser_endpoint(None)
    assert bucket_url("uploads", "eu-west-1") == "https://uploads.s3.eu-west-1.amazonaws.com"
    assert upload_origin("uploads", "eu-west-1") == "https://uploads.s3.eu-west-1.amazonaws.com"
    browser_endpoint("http://127.0.0.1:4566/")
    assert bucket_url("uploads", "eu-west-1") == "http://127.0.0.1:4566/uploads"
    assert upload_origin("uploads", "eu-west-1") == "http://127.0.0.1:4566"


def event(*records: dict) -> str:
    return json.dumps({"Records": list(records)})


def created(key: str, name: str = "ObjectCreated:Post") -> dict:
    return {"eventName": name, "s3": {"bucket": {"name": "uploads"}, "object": {"key": key, "size": 42}}}


def test_a_notification_names_the_created_objects_with_their_keys_decoded():
    body = event(created("registry/ab/my+registry%C3%A9.yaml"), created("x", "ObjectRemoved:Delete"))
    [uploaded] = uploaded_objects(body)
    assert (uploaded.bucket, uploaded.key, uploaded.size) == ("uploads", "registry/ab/my registryé.yaml", 42)
    assert uploaded_objects(json.dumps({"Service": "Amazon S3", "Event": "s3:TestEvent"})) == []
