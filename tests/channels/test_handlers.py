"""GET /channels and the operator's loader against moto tables made from the template (issue 10)."""

import copy
import json
import threading
from datetime import UTC, datetime

import pytest
import yaml

from bench.channels.calls import configuration
from local.invoke import sample_event
from local.metering import counting_calls
from ops.channels.load import main
from ott.audit import audit_log, entry
from ott.aws import client
from ott.callers import Operator
from ott.channels import store as channel_storage
from ott.channels.service import served_configuration
from ott.channels.validation import validate_configuration
from ott.staff import Area
from tests.conftest import ROOT, SHARED_DATA
from tests.fixtures.moto import Context, invoke, one_call_at_a_time

DEMO_CHANNELS = ROOT / "local" / "demo" / "channels.yaml"
TABLE = "ChannelsTable"
TARGET = ["--table", TABLE, "--audit-table", "AuditTable"]


@pytest.fixture(autouse=True)
def fresh_process_cache():
    """Each test starts as a cold function: the process's cached reply belongs to another emulated account."""
    channel_storage.forget_read_replies()


def load(path, *extra: str) -> int:
    return main([str(path), *TARGET, *extra])


def write(tmp_path, name: str, document: dict):
    path = tmp_path / name
    path.write_text(yaml.safe_dump(document, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return path


def demo_document() -> dict:
    return yaml.safe_load(DEMO_CHANNELS.read_text(encoding="utf-8"))


def test_the_demo_configuration_is_served_whole_with_a_strong_etag(aws):
    assert load(DEMO_CHANNELS) == 0
    reply = invoke("channels/list")
    assert reply["statusCode"] == 200
    assert reply["headers"]["Content-Type"] == "application/json; charset=UTF-8"
    assert reply["headers"]["Cache-Control"] == "private, no-cache"
    etag = reply["headers"]["ETag"]
    assert etag.startswith('"') and etag.endswith('"')  # strong: no W/
    expected = validate_configuration(demo_document()).channel_list.model_dump(mode="json", exclude_none=True)
    served = json.loads(reply["body"])
    assert served == expected
    assert served["channels"][1]["streams"][0]["type"] == "HLS_VARIANT"  # enums by name
    assert len(served["channels"][1]["streams"][0]["substreams"]) == 3
    assert served["channels"][5]["status"] == "TESTING"
    assert served["settings"][0]["access_denied_channels_display_control"]["type"] == "INCLUDE"


def test_if_none_match_or_if_modified_since_gets_304_until_a_new_version_is_loaded(aws, tmp_path):
    load(DEMO_CHANNELS)
    first = invoke("channels/list")
    etag, date = first["headers"]["ETag"], first["headers"]["Last-Modified"]  # when the version became current
    unchanged = invoke("channels/list", headers={"If-None-Match": etag})
    assert (unchanged["statusCode"], unchanged["body"], unchanged["headers"]["ETag"]) == (304, "", etag)
    assert invoke("channels/list", headers={"If-Modified-Since": date})["statusCode"] == 304
    document = demo_document()
    document["title"] = "Новое название"
    load(write(tmp_path, "renamed.yaml", document))
    changed = invoke("channels/list", headers={"If-None-Match": etag})
    assert changed["statusCode"] == 200
    assert changed["headers"]["ETag"] != etag
    assert json.loads(changed["body"])["title"] == "Новое название"
    assert invoke("channels/list", headers={"If-Modified-Since": date})["statusCode"] == 200


def test_before_any_load_the_reply_is_404_and_there_is_nothing_to_roll_back(aws, capsys):
    reply = invoke("channels/list")
    assert reply["statusCode"] == 404
    assert json.loads(reply["body"])["error"] == "not_found"
    capsys.readouterr()
    assert main(["--versions", "--table", TABLE]) == 0
    assert capsys.readouterr().out == "no version is stored yet\n"
    assert main(["--rollback", *TARGET]) == 2
    assert "nothing has been loaded yet" in capsys.readouterr().err


@pytest.mark.slow
@pytest.mark.parametrize("count", [10, 1000])
def test_two_dynamodb_calls_whatever_the_number_of_channels_and_one_when_warm(aws, tmp_path, count):
    assert load(write(tmp_path, "many.yaml", configuration(count))) == 0
    with counting_calls(client("dynamodb")) as calls:
        cold = invoke("channels/list")
    assert cold["statusCode"] == 200 and len(json.loads(cold["body"])["channels"]) == count
    assert calls == {"GetItem": 1, "BatchGetItem": 1}
    with counting_calls(client("dynamodb")) as calls:
        warm = invoke("channels/list")
    assert warm["body"] == cold["body"]
    assert calls == {"GetItem": 1}


@pytest.mark.slow
def test_a_configuration_over_one_item_is_chunked_and_read_in_one_batch(aws, tmp_path, monkeypatch):
    monkeypatch.setattr(channel_storage, "CHUNK_BYTES", 4096)  # the 1,000-channel reply compresses to ~25 KB
    load(write(tmp_path, "many.yaml", configuration(1000)))
    chunks = client("dynamodb").query(
        TableName=TABLE,
        KeyConditionExpression="pk = :p",
        ExpressionAttributeValues={":p": {"S": "CHUNK#0000000001"}},
        Select="COUNT",
    )["Count"]
    assert chunks > 5
    with counting_calls(client("dynamodb")) as calls:
        reply = invoke("channels/list")
    assert json.loads(reply["body"]) == validate_configuration(configuration(1000)).channel_list.model_dump(
        mode="json", exclude_none=True
    )
    assert calls == {"GetItem": 1, "BatchGetItem": 1}


@pytest.mark.slow
def test_a_version_missing_a_chunk_is_503_never_a_partial_configuration(aws, tmp_path, monkeypatch):
    monkeypatch.setattr(channel_storage, "CHUNK_BYTES", 4096)
    load(write(tmp_path, "many.yaml", configuration(1000)))
    client("dynamodb").delete_item(TableName=TABLE, Key={"pk": {"S": "CHUNK#0000000001"}, "sk": {"S": "0002"}})
    reply = invoke("channels/list")
    assert reply["statusCode"] == 503
    assert json.loads(reply["body"])["error"] == "service_unavailable"


def test_an_invalid_file_lists_every_problem_and_writes_nothing(aws, tmp_path, capsys):
    load(DEMO_CHANNELS)
    before = invoke("channels/list")["body"]
    document = demo_document()
    document["channels"][1]["id"] = 101  # a duplicate id
    del document["channels"][0]["streams"][0]["protected_path"]  # HLS without protected_path
    document["channels"][2]["streams"][1]["timeshift_header"] = "%(stream_id)s"  # wrong conversion
    assert load(write(tmp_path, "broken.yaml", document)) == 2
    err = capsys.readouterr().err
    assert "3 problem(s)" in err
    assert "channels[1].id: 101 is already used by channels[0]" in err
    assert "channels[0].streams[0].protected_path: HLS needs protected_path" in err
    assert "channels[2].streams[1].timeshift_header: %(stream_id)s has the wrong conversion" in err
    assert invoke("channels/list")["body"] == before
    capsys.readouterr()
    assert main(["--versions", "--table", TABLE]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 1


def test_a_key_written_twice_is_refused_rather_than_silently_replaced(aws, tmp_path, capsys):
    text = DEMO_CHANNELS.read_text(encoding="utf-8")
    twice = text.replace("    title: Россия Демо\n", "    title: Россия Демо\n    title: Россия Два\n", 1)
    path = tmp_path / "twice.yaml"
    path.write_text(twice, encoding="utf-8")
    line = twice.splitlines().index("    title: Россия Два") + 1
    assert load(path) == 2
    assert f"line {line}: key 'title' is written twice" in capsys.readouterr().err
    as_json = tmp_path / "twice.json"
    as_json.write_text('{"title": "a", "title": "b", "channels": []}', encoding="utf-8")
    assert load(as_json) == 2
    assert "key 'title' is written twice in one object" in capsys.readouterr().err
    assert invoke("channels/list")["statusCode"] == 404


ANCHORS = """
title: Anchors
channels:
  - id: 1
    alias: one
    title: One
    streams:
      - id: 1
        type: UDP
        url: udp://@239.1.1.1:1234
        user_agents: &boxes {type: INCLUDE, regexp_list: ['^demo-stb/']}
settings:
  - access_denied_channels_display_control:
      <<: *boxes
      type: EXCLUDE
"""


def test_yaml_anchors_and_merge_keys_are_not_taken_for_keys_written_twice(aws, tmp_path):
    path = tmp_path / "anchors.yaml"
    path.write_text(ANCHORS, encoding="utf-8")
    assert load(path) == 0
    served = json.loads(invoke("channels/list")["body"])
    assert served["channels"][0]["streams"][0]["user_agents"] == {"regexp_list": ["^demo-stb/"], "type": "INCLUDE"}
    assert served["settings"][0]["access_denied_channels_display_control"] == {
        "regexp_list": ["^demo-stb/"],
        "type": "EXCLUDE",
    }


def test_check_validates_and_writes_nothing(aws, tmp_path, capsys):
    document = demo_document()
    document["categories"].append({"title": "Федеральные", "channels": [105, 99]})
    assert main([str(write(tmp_path, "repaired.yaml", document)), "--check"]) == 0
    captured = capsys.readouterr()
    assert "valid: 6 channels" in captured.out
    assert "warning: categories[4]: same title as categories[0] ('Федеральные'), merged" in captured.err
    assert "warning: categories[0].channels: channel 99 does not exist, removed" in captured.err
    assert invoke("channels/list")["statusCode"] == 404


def test_rollback_restores_the_previous_version_and_a_named_one(aws, tmp_path, capsys):
    load(DEMO_CHANNELS)
    first = invoke("channels/list")["body"]
    for title in ("второй", "третий"):
        document = demo_document()
        document["title"] = title
        load(write(tmp_path, f"{title}.yaml", document))
    assert main(["--rollback", *TARGET]) == 0
    assert json.loads(invoke("channels/list")["body"])["title"] == "второй"
    assert main(["--rollback", "1", *TARGET]) == 0
    assert invoke("channels/list")["body"] == first
    capsys.readouterr()
    assert main(["--versions", "--table", TABLE]) == 0
    listing = capsys.readouterr().out.splitlines()
    assert [line[:11] for line in listing] == ["* version 1", "  version 2", "  version 3"]
    assert main(["--rollback", "9", *TARGET]) == 2
    assert "version 9 is not kept; kept: 1, 2, 3" in capsys.readouterr().err


@pytest.mark.slow
def test_concurrent_loads_leave_one_whole_configuration_and_readers_never_see_a_part(
    aws, tmp_path, capsys, monkeypatch
):
    files = []
    for n in range(6):
        document = configuration(50 + n)
        document["title"] = f"load {n}"
        files.append(write(tmp_path, f"load-{n}.yaml", document))
    load(files[0])
    whole = {
        json.dumps(
            validate_configuration(yaml.safe_load(f.read_text())).channel_list.model_dump(
                mode="json", exclude_none=True
            ),
            ensure_ascii=False,
            separators=(",", ":"),
        )
        for f in files
    }
    results: list[int] = []
    seen: list[str] = []
    stop = threading.Event()

    def reader() -> None:
        """What the handler reads, read again and again from the table (the function's logging and metrics
        are one per process, as in Lambda, so the threads read through the store)."""
        store = channel_storage.channel_store()
        while not stop.is_set():
            channel_storage.forget_read_replies()
            try:
                seen.append(served_configuration(store).text)
            except Exception as error:  # any failure is what the test reports
                seen.append(repr(error))

    # moto is not thread-safe (its transactions least of all): its calls, the readers' and each load's own
    # client's, take turns; the race stays the service's, between a load's reads and its conditional writes.
    one_call_at_a_time(monkeypatch)
    readers = [threading.Thread(target=reader) for _ in range(2)]
    loaders = [threading.Thread(target=lambda f=f: results.append(load(f))) for f in files[1:]]
    for thread in readers + loaders:
        thread.start()
    for thread in loaders:
        thread.join()
    stop.set()
    for thread in readers:
        thread.join()
    assert seen and set(seen) <= whole  # every read was one configuration, whole
    assert results.count(0) >= 1 and set(results) <= {0, 2}  # a load that lost the race says so, exit 2
    served = invoke("channels/list")["body"]
    assert served in whole
    capsys.readouterr()
    main(["--versions", "--table", TABLE])
    listed = capsys.readouterr().out.splitlines()
    assert len(listed) == 1 + results.count(0)  # a losing load keeps no version behind


@pytest.mark.slow
@pytest.mark.parametrize("sample", sorted((SHARED_DATA / "m3u").glob("*.m3u")), ids=lambda path: path.name)
def test_every_m3u_sample_converts_into_a_file_that_loads(aws, tmp_path, capsys, sample):
    converted = tmp_path / "converted.yaml"
    assert main(["--from-m3u", str(sample), "--output", str(converted)]) == 0
    assert "notes to review" in capsys.readouterr().err
    assert load(converted) == 0
    served = json.loads(invoke("channels/list")["body"])
    assert len(served["channels"]) > 50
    assert {stream["type"] for channel in served["channels"] for stream in channel["streams"]} >= {"HLS"}


def test_a_file_that_is_not_an_m3u_playlist_is_refused_and_nothing_is_written(tmp_path, capsys):
    converted = tmp_path / "converted.yaml"
    guide = SHARED_DATA / "xmltv" / "xmltv-project_test.xml"
    assert main(["--from-m3u", str(guide), "--output", str(converted)]) == 2
    assert "not an M3U playlist" in capsys.readouterr().err
    assert not converted.exists()


def test_export_writes_a_kept_version_as_a_file_that_loads_back_to_the_same_reply(aws, tmp_path, capsys):
    load(DEMO_CHANNELS)
    first = invoke("channels/list")["body"]
    document = demo_document()
    document["title"] = "второй"
    load(write(tmp_path, "second.yaml", document))
    capsys.readouterr()
    assert main(["--export", "1", "--table", TABLE]) == 0
    exported = capsys.readouterr().out
    assert exported.startswith("# version 1 (")
    assert "title: Демо Телеком" in exported
    path = tmp_path / "exported.yaml"
    path.write_text(exported, encoding="utf-8")
    assert load(path) == 0
    assert invoke("channels/list")["body"] == first
    capsys.readouterr()
    assert main(["--export", "--table", TABLE]) == 0
    assert capsys.readouterr().out.startswith("# version 3 (")
    assert main(["--export", "7", "--table", TABLE]) == 2
    assert "version 7 is not kept" in capsys.readouterr().err


@pytest.mark.parametrize("key_id", ["encoder-demo", "", None])
def test_a_key_of_another_service_is_403(aws, key_id):
    """Security review: API Gateway lets any key of the usage plan through; the function serves only its own."""
    from functions.channels.list.app import lambda_handler

    event = copy.deepcopy(sample_event("channels/list"))
    event["requestContext"]["identity"]["apiKeyId"] = key_id
    reply = lambda_handler(event, Context())
    assert reply["statusCode"] == 403
    assert json.loads(reply["body"]) == {
        "error": "forbidden",
        "error_description": "this API key is not allowed on this route",
    }


def test_a_rollback_racing_a_prune_never_points_at_a_deleted_version(aws, tmp_path, monkeypatch):
    """Security review: the prune of a concurrent load deletes the rollback's target after the rollback read it;
    the pointer's write is one transaction with a check that the version is still kept, so it fails whole
    and GET /channels keeps serving the current version."""
    from ott.channels.store import ConcurrentChange

    for n in range(3):
        document = configuration(5 + n)
        document["title"] = f"load {n}"
        assert load(write(tmp_path, f"load-{n}.yaml", document)) == 0
    store = channel_storage.channel_store(audit_log())
    served = invoke("channels/list")["body"]
    target = next(info for info in store.versions() if info.version == 1)
    counted = store._chunk_count

    def pruned_meanwhile(version: int) -> int:
        chunks = counted(version)
        store.delete_version(version)  # what a concurrent load's prune does
        return chunks

    monkeypatch.setattr(store, "_chunk_count", pruned_meanwhile)
    with pytest.raises(ConcurrentChange):
        rolled_back = entry(Area.CHANNELS, "rollback", "version 1", Operator("anna"), datetime.now(UTC))
        store.make_current(target, store.current(), rolled_back)
    assert store.current().version == 3
    channel_storage.forget_read_replies()
    reply = invoke("channels/list")
    assert (reply["statusCode"], reply["body"]) == (200, served)


def test_the_current_version_is_never_deleted_even_by_a_prune_that_read_an_older_pointer(aws, tmp_path):
    from ott.channels.store import ConcurrentChange

    for n in range(2):
        assert load(write(tmp_path, f"load-{n}.yaml", configuration(5 + n))) == 0
    store = channel_storage.channel_store()
    with pytest.raises(ConcurrentChange):
        store.delete_version(store.current().version)
    assert sorted(info.version for info in store.versions()) == [1, 2]
    assert invoke("channels/list")["statusCode"] == 200
