"""The registry maintainers' staff routes (issue 20): a registry file checked whole before anyone loads it, every
problem listed and nothing written; a registry file loaded from the console; refused to staff without the
registry scope."""

import importlib
import json
import time

import pytest
import requests
import yaml

from ott.audit import audit_log
from ott.aws import client
from ott.registry.loading import STALE_SECONDS
from ott.staff import Area
from tests.conftest import DEMO_REGISTRY, TEMPLATE
from tests.fixtures.moto import Context, invoke, staff_principal

MAINTAINER = staff_principal("registry_maintenance", "registry-maintainer@example.com")


def check(text: str, source: str = "registry.yaml", principal: dict = MAINTAINER) -> dict:
    return invoke("registry/staff_check", query={"source": source}, body=text, principal=principal)


def test_the_demo_registry_is_valid_and_counted(aws):
    reply = check(DEMO_REGISTRY.read_text(encoding="utf-8"))
    assert reply["statusCode"] == 200 and reply["headers"]["Cache-Control"] == "no-store"
    report = json.loads(reply["body"])
    assert report["valid"] is True and report["problems"] == []
    assert (report["contractors"], report["territories"]) == (2, 9)


def test_every_problem_is_listed_and_nothing_is_written(aws):
    broken = "territories:\n  - {territoryId: 1, name: A, parentId: 7}\n  - {territoryId: 1, name: B, parentId: 0}\n"
    report = json.loads(check(broken)["body"])
    assert report["valid"] is False and len(report["problems"]) >= 2
    not_json = json.loads(check("{", "registry.json")["body"])
    assert not_json["problems"][0].startswith("registry.json: not readable as JSON")
    assert client("dynamodb").scan(TableName=TEMPLATE.physical_name("RegistryTable"))["Count"] == 0


def test_staff_without_the_registry_scope_are_refused_and_bad_names_are_400(aws):
    engineer = staff_principal("channels_engineering", "channel-engineer@example.com")
    refused = check("territories: []\n", principal=engineer)
    assert refused["statusCode"] == 403 and 'scope="registry_maintenance"' in refused["headers"]["WWW-Authenticate"]
    assert check("territories: []\n", source="../etc/passwd")["statusCode"] == 400


# Loading a registry file from the console: a form to upload it straight to S3, then an asynchronous load started
# by the bucket's event (through the load queue), its status polled; the same domain function as ops.registry.load.


def begin(source: str = "registry.yaml", principal: dict = MAINTAINER) -> dict:
    return invoke("registry/staff_upload", query={"source": source}, principal=principal)


def status(load_id: str, principal: dict = MAINTAINER) -> dict:
    return invoke("registry/staff_load", query={"id": load_id}, principal=principal)


def post(form: dict, content: bytes) -> None:
    posted = requests.post(form["url"], data=form["fields"], files={"file": ("f", content)}, timeout=10)
    assert posted.status_code == 204


def run_load(body: str) -> dict:
    event = {"Records": [{"messageId": "m-1", "receiptHandle": "r", "body": body, "eventSource": "aws:sqs"}]}
    return importlib.import_module("functions.registry.load.app").lambda_handler(event, Context())


def changed_registry(territory_name: str) -> bytes:
    document = yaml.safe_load(DEMO_REGISTRY.read_text(encoding="utf-8"))
    document["territories"][2]["name"] = territory_name  # Москва, territory 3
    return yaml.safe_dump(document, allow_unicode=True).encode()


def uploaded_event(queue_body_count: int = 1) -> list[str]:
    sqs = client("sqs")
    messages = sqs.receive_message(QueueUrl=TEMPLATE.queue_url("RegistryLoadQueue"), MaxNumberOfMessages=10)
    bodies = [message["Body"] for message in messages.get("Messages", [])]
    return [body for body in bodies if "Records" in body][:queue_body_count]


def test_a_maintainer_uploads_a_changed_registry_and_it_is_loaded_once_with_its_audit_entry(registry):
    reply = begin()
    assert reply["statusCode"] == 201 and reply["headers"]["Cache-Control"] == "no-store"
    started = json.loads(reply["body"])
    load, form = started["load"], started["form"]
    assert load["status"] == "waiting" and load["requestedBy"] == "registry-maintainer@example.com"
    assert form["key"] == f"registry/{load['loadId']}-registry.yaml" and form["fields"]["key"] == form["key"]
    assert json.loads(status(load["loadId"])["body"])["status"] == "waiting"

    post(form, changed_registry("Москва-Сити"))
    [event] = uploaded_event()
    assert run_load(event) == {"batchItemFailures": []}
    loaded = json.loads(status(load["loadId"])["body"])
    assert loaded["status"] == "loaded" and loaded["problems"] == []
    assert loaded["before"]["territories"] == 9 and loaded["after"]["territories"] == 9 and loaded["written"] >= 2
    served = json.loads(
        invoke("registry/territories", path="/registry/2/territories.json", query={"id": "3"}, principal=None)["body"]
    )
    assert served["territories"][0]["name"] == "Москва-Сити"
    [recorded] = audit_log().entries(Area.REGISTRY, 10).entries
    assert (recorded.action, recorded.actor, recorded.via) == ("load", "registry-maintainer@example.com", "console")
    assert recorded.detail == "registry.yaml" and recorded.after == loaded["after"]

    # SQS delivers at least once: the same event again loads nothing and records nothing.
    writes_before = client("dynamodb").scan(TableName=TEMPLATE.physical_name("RegistryTable"))["Items"]
    assert run_load(event) == {"batchItemFailures": []}
    assert client("dynamodb").scan(TableName=TEMPLATE.physical_name("RegistryTable"))["Items"] == writes_before
    assert len(audit_log().entries(Area.REGISTRY, 10).entries) == 1
    assert json.loads(status(load["loadId"])["body"]) == loaded


def test_a_file_with_problems_lists_them_and_changes_nothing(registry):
    started = json.loads(begin("broken.yaml")["body"])
    document = yaml.safe_load(DEMO_REGISTRY.read_text(encoding="utf-8"))
    document["prefixes"].append({"CIDR": "192.0.2.0/24", "contractor": 42})
    document["territories"].append({"territoryId": 99, "name": "Нигде", "parentId": 77})
    items_before = client("dynamodb").scan(TableName=TEMPLATE.physical_name("RegistryTable"))["Items"]
    post(started["form"], yaml.safe_dump(document, allow_unicode=True).encode())
    [event] = uploaded_event()
    run_load(event)
    report = json.loads(status(started["load"]["loadId"])["body"])
    assert report["status"] == "invalid"
    assert any("unknown contractor 42" in problem for problem in report["problems"])
    assert any("unknown territory 77" in problem for problem in report["problems"])
    assert client("dynamodb").scan(TableName=TEMPLATE.physical_name("RegistryTable"))["Items"] == items_before
    assert audit_log().entries(Area.REGISTRY, 10).entries == []


def test_a_file_that_is_not_text_is_invalid(registry):
    started = json.loads(begin()["body"])
    post(started["form"], b"\xff\xfe\x00binary")
    run_load(uploaded_event()[0])
    report = json.loads(status(started["load"]["loadId"])["body"])
    assert (report["status"], report["problems"]) == ("invalid", ["registry.yaml: not UTF-8 text"])


def test_a_load_that_finds_another_running_fails_and_publishes_nothing(registry):
    started = json.loads(begin()["body"])
    pointer = {"pk": {"S": "INDEX"}, "sk": {"S": "current"}}
    client("dynamodb").update_item(
        TableName=TEMPLATE.physical_name("RegistryTable"),
        Key=pointer,
        UpdateExpression="SET pending = :gen, pendingSince = :now",
        ExpressionAttributeValues={":gen": {"N": "99"}, ":now": {"N": str(int(time.time()))}},
    )
    post(started["form"], changed_registry("Не загружено"))
    run_load(uploaded_event()[0])
    report = json.loads(status(started["load"]["loadId"])["body"])
    assert report["status"] == "failed" and "is still writing the registry" in report["detail"]
    served = json.loads(
        invoke("registry/territories", path="/registry/2/territories.json", query={"id": "3"}, principal=None)["body"]
    )
    assert served["territories"][0]["name"] == "Москва"


def test_an_object_no_load_waits_for_is_passed_over(registry):
    client("s3").put_object(
        Bucket=TEMPLATE.physical_name("RegistryUploadBucket"), Key="registry/0000000000000000-x.yaml", Body=b"x"
    )
    client("s3").put_object(Bucket=TEMPLATE.physical_name("RegistryUploadBucket"), Key="elsewhere/x.yaml", Body=b"x")
    for event in uploaded_event(2):
        assert run_load(event) == {"batchItemFailures": []}
    assert audit_log().entries(Area.REGISTRY, 10).entries == []


def test_staff_without_the_registry_scope_cannot_begin_or_follow_a_load_and_unknown_loads_are_404(registry):
    engineer = staff_principal("channels_engineering", "channel-engineer@example.com")
    refused = begin(principal=engineer)
    assert refused["statusCode"] == 403 and 'scope="registry_maintenance"' in refused["headers"]["WWW-Authenticate"]
    load_id = json.loads(begin()["body"])["load"]["loadId"]
    assert status(load_id, principal=engineer)["statusCode"] == 403
    assert status("0123456789abcdef")["statusCode"] == 404
    assert status("not-an-id")["statusCode"] == 400
    assert begin("../etc/passwd")["statusCode"] == 400


def mark_loading(load_id: str, seconds_ago: int) -> None:
    """The load as a load function left it: loading, its status last moved `seconds_ago`."""
    client("dynamodb").update_item(
        TableName=TEMPLATE.physical_name("RegistryReportsTable"),
        Key={"reportId": {"S": f"LOAD#{load_id}"}},
        UpdateExpression="SET #s = :loading, heartbeat = :then",
        ExpressionAttributeNames={"#s": "status"},
        ExpressionAttributeValues={":loading": {"S": "loading"}, ":then": {"N": str(int(time.time()) - seconds_ago)}},
    )


def test_a_load_whose_function_died_is_taken_over_by_the_events_redelivery(registry):
    started = json.loads(begin()["body"])
    post(started["form"], changed_registry("Москва-Сити"))
    [event] = uploaded_event()
    mark_loading(started["load"]["loadId"], STALE_SECONDS + 1)
    run_load(event)
    assert json.loads(status(started["load"]["loadId"])["body"])["status"] == "loaded"
    # One that is still running (it moved within STALE_SECONDS) is left alone.
    mark_loading(started["load"]["loadId"], 60)
    run_load(event)
    assert len(audit_log().entries(Area.REGISTRY, 10).entries) == 1


# Issue 28, findings 1 and 2: files nested past the parsers' bounds, or holding more values than the function can
# build within its time and memory, are reported invalid (their bound named), never a 500 or a stalled function.
NESTED_AND_HUGE = {
    "flow lists 400 deep": ("[" * 400, "registry.yaml", "nested more than 64 levels deep"),
    "JSON 1,000 deep": ("[" * 1000 + "]" * 1000, "registry.json", "nested more than 64 levels deep"),
    "JSON 100,000 deep": ("[" * 100_000, "registry.json", "nested more than 64 levels deep"),
    "block mappings 1,000 deep": (
        "".join(" " * i + "a:\n" for i in range(1000)) + " " * 1000 + "b\n",
        "registry.yaml",
        "nested more than 64 levels deep",
    ),
    "a 3.8 MB flow list": ("territories: [" + "1," * 1_900_000 + "1]\n", "registry.yaml", "more than 300,000 values"),
    "a 3.8 MB JSON list": ('{"territories": [' + "1," * 1_900_000 + "1]}", "registry.json", "more than 300,000 values"),
}


@pytest.mark.parametrize("text, source, problem", NESTED_AND_HUGE.values(), ids=NESTED_AND_HUGE.keys())
def test_nested_and_oversized_files_are_invalid_with_their_bound_named(aws, text, source, problem):
    reply = check(text, source)
    assert reply["statusCode"] == 200
    report = json.loads(reply["body"])
    assert report["valid"] is False and len(report["problems"]) == 1 and problem in report["problems"][0]
    assert len(reply["body"]) < 2000


def upload_status(load_id: str) -> dict:
    return json.loads(status(load_id)["body"])


def test_a_nested_upload_is_invalid_on_its_first_delivery_and_not_retried(registry):
    # Issue 28, finding 1: the load stayed `waiting` and the message was retried until dead-lettered.
    started = json.loads(begin()["body"])
    post(started["form"], b"[" * 400)
    assert run_load(uploaded_event()[0]) == {"batchItemFailures": []}
    report = upload_status(started["load"]["loadId"])
    assert report["status"] == "invalid"
    assert report["problems"] == ["registry.yaml: line 1: nested more than 64 levels deep"]


def test_an_event_naming_a_missing_object_ends_its_load_invalid(registry):
    started = json.loads(begin()["body"])
    post(started["form"], changed_registry("Москва-Сити"))
    [event] = uploaded_event()
    client("s3").delete_object(Bucket=TEMPLATE.physical_name("RegistryUploadBucket"), Key=started["form"]["key"])
    assert run_load(event) == {"batchItemFailures": []}
    report = upload_status(started["load"]["loadId"])
    assert report["status"] == "invalid" and "no such upload" in report["problems"][0]


def test_a_load_is_claimed_only_by_its_own_objects_event_in_its_own_bucket(registry):
    # Issue 28, finding 8: any message naming the load's id claimed it, from whatever bucket.
    started = json.loads(begin()["body"])
    load_id = started["load"]["loadId"]
    post(started["form"], changed_registry("Москва-Сити"))
    [event] = uploaded_event()
    for field, value in (("key", f"registry/{load_id}-other.yaml"), ("bucket", "someone-elses-bucket")):
        forged = json.loads(event)
        s3 = forged["Records"][0]["s3"]
        s3["object" if field == "key" else "bucket"]["key" if field == "key" else "name"] = value
        assert run_load(json.dumps(forged)) == {"batchItemFailures": []}
        assert upload_status(load_id)["status"] == "waiting"
    run_load(event)
    assert upload_status(load_id)["status"] == "loaded"


def test_a_form_posted_twice_loads_its_first_file_once_and_keeps_it(registry):
    # Issue 28, finding 8: the second post of a form overwrote the loaded file and could be claimed again.
    started = json.loads(begin()["body"])
    load_id, key = started["load"]["loadId"], started["form"]["key"]
    first = changed_registry("Москва-Сити")
    post(started["form"], first)
    run_load(uploaded_event()[0])
    loaded = upload_status(load_id)
    assert loaded["status"] == "loaded"
    post(started["form"], changed_registry("Подделка"))
    [again] = uploaded_event()
    assert run_load(again) == {"batchItemFailures": []}
    assert upload_status(load_id) == loaded and len(audit_log().entries(Area.REGISTRY, 10).entries) == 1
    served = json.loads(
        invoke("registry/territories", path="/registry/2/territories.json", query={"id": "3"}, principal=None)["body"]
    )
    assert served["territories"][0]["name"] == "Москва-Сити"
    bucket = TEMPLATE.physical_name("RegistryUploadBucket")
    versions = client("s3").list_object_versions(Bucket=bucket, Prefix=key)["Versions"]
    kept = [client("s3").get_object(Bucket=bucket, Key=key, VersionId=v["VersionId"])["Body"].read() for v in versions]
    assert first in kept and len(kept) == 2
