"""ops.nichecontent.queue against the emulated account (issue 10): `add` validates the whole file and writes
nothing when anything is wrong, `retry` puts a failed item back, `show` prints every transition."""

import json

import pytest
import yaml

from ops.nichecontent import queue as niche_content
from ott.nichecontent.models import Status
from ott.nichecontent.store import niche_store
from tests.conftest import ROOT

pytestmark = pytest.mark.demo_data("nichecontent")

TABLE = ["--table", "NicheContentTable"]
AUDITED = [*TABLE, "--audit-table", "AuditTable"]


def write(tmp_path, document, name="items.yaml"):
    path = tmp_path / name
    path.write_text(yaml.safe_dump(document) if name.endswith(".yaml") else json.dumps(document), encoding="utf-8")
    return str(path)


def items(*numbers):
    return {"items": [{"id": f"film-{n}", "source_url": f"https://source.example/film-{n}.mov"} for n in numbers]}


def test_a_file_is_added_and_adding_it_again_changes_nothing(aws, tmp_path, capsys):
    path = write(tmp_path, items(1, 2, 3), "items.json")
    assert niche_content.main(["add", path, *AUDITED]) == 0
    assert "added 3 items awaiting encoding; 0 queued already" in capsys.readouterr().out
    assert niche_content.main(["add", path, *AUDITED]) == 0
    assert "added 0 items awaiting encoding; 3 queued already" in capsys.readouterr().out
    assert niche_store().awaiting(0, 20)[0] == 3


def test_a_file_with_any_problem_writes_nothing_and_lists_every_problem(aws, tmp_path, capsys):
    document = items(1, 2)
    document["items"] += [{"id": "film 3", "source_url": "ftp://x"}, {"id": "film-1", "source_url": "https://s/1"}]
    assert niche_content.main(["add", write(tmp_path, document), *AUDITED]) == 2
    err = capsys.readouterr().err
    assert "items[2].id" in err and "items[2].source_url" in err and "items[3].id: film-1 is also items[0].id" in err
    assert niche_store().get("film-1") is None


def test_an_id_queued_from_another_source_refuses_the_whole_file(aws, tmp_path, capsys):
    assert niche_content.main(["add", write(tmp_path, items(1)), *AUDITED]) == 0
    clash = items(2, 3)
    clash["items"].append({"id": "film-1", "source_url": "https://elsewhere.example/film-1.mov"})
    assert niche_content.main(["add", write(tmp_path, clash), *AUDITED]) == 2
    assert "film-1: queued already, from https://source.example/film-1.mov" in capsys.readouterr().err
    assert niche_store().get("film-2") is None


def test_check_validates_without_a_target(aws, tmp_path, capsys):
    assert niche_content.main(["add", str(ROOT / "local/demo/niche_content.yaml"), "--check"]) == 0
    assert "valid: 56 items" in capsys.readouterr().out
    assert niche_store().get("demo-0001") is None


def test_retry_and_show(demo, capsys):
    assert niche_content.main(["retry", "demo-0056", *AUDITED]) == 0
    assert niche_store().get("demo-0056").item.status == Status.AWAITING
    assert "status:     awaiting (1)" in capsys.readouterr().out
    assert niche_content.main(["show", "demo-0054", *TABLE]) == 0
    shown = capsys.readouterr().out
    assert "status:     successfully (5)" in shown
    lines = shown.split("history:\n")[1].splitlines()
    assert [line.split()[1:3] for line in lines] == [
        ["awaiting", "added"],
        ["totranscoder", "update"],
        ["bytranscoder", "update"],
        ["inprogresing", "update"],
        ["successfully", "update"],
    ]
    assert lines[-1].endswith("by encoder-demo https://cdn.example/niche/demo-0054/index.m3u8")


def test_retry_refuses_an_item_in_work_or_done(demo, capsys):
    assert niche_content.main(["retry", "demo-0051", *AUDITED]) == 2
    assert "conflict: item demo-0051 is totranscoder: only a failed item is retried" in capsys.readouterr().err
    assert niche_content.main(["show", "demo-9999", *TABLE]) == 2
    assert "not_found" in capsys.readouterr().err


def test_failed_lists_the_items_the_queue_retries_no_more_until_an_operator_retries_them(demo, capsys):
    from datetime import UTC, datetime, timedelta

    from ott.callers import MachineClient
    from ott.nichecontent.params import read_update
    from ott.nichecontent.service import sweep, update_status
    from ott.nichecontent.transitions import RetryPolicy

    spent = RetryPolicy(automatic_retries=0)
    now = datetime.now(UTC)
    encoder = MachineClient("encoder-a")
    update_status(niche_store(), spent, read_update({"status": "failure", "id": "demo-0002"}), encoder, now)
    sweep(niche_store(), spent, now + timedelta(hours=7))  # demo-0051..0053 time out, with no retry left
    assert niche_content.main(["failed", *TABLE]) == 0
    lines = capsys.readouterr().out.splitlines()
    listed = [line.split()[1] for line in lines[:-1]]
    assert listed[0] == "demo-0002"  # longest failed first; the other three failed at the same moment
    assert set(listed[1:]) == {"demo-0051", "demo-0052", "demo-0053"}
    assert lines[-1] == "4 failed items wait for an operator's retry"
    assert niche_content.main(["retry", "demo-0002", *AUDITED]) == 0
    capsys.readouterr()
    assert niche_content.main(["failed", *TABLE]) == 0
    assert "demo-0002" not in capsys.readouterr().out
