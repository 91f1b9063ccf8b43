"""The guide configuration loader (issue 8, "A guide configuration file"): the whole file validated, every
problem listed at once, nothing written when anything is wrong; a load recorded in the audit trail (issue 20)."""

import json

import yaml

from ops.tvguide import config as guide_config_load
from ott.audit import audit_log
from ott.staff import Area
from ott.tvguide.store import guide_store
from tests.conftest import ROOT

DEMO = ROOT / "local" / "demo" / "tvguide.yaml"
TARGET = ["--table", "GuideTable", "--audit-table", "AuditTable"]


def test_a_valid_file_replaces_the_configuration(aws, tmp_path, capsys):
    config = tmp_path / "guide.json"
    zones = [{"name": "Europe/Moscow", "geo": ["Europe/Moscow", "RU-MOW"], "timezone": "Europe/Moscow"}]
    config.write_text(json.dumps({"zones": zones, "rubrics": [{"id": 1, "title": "Кино"}]}), encoding="utf-8")
    assert guide_config_load.main([str(config), *TARGET, "--by", "ops-person"]) == 0
    assert "loaded: 1 zones, 0 channel overrides, 1 rubrics" in capsys.readouterr().out
    loaded, version = guide_store().configuration()
    assert [zone.name for zone in loaded.zones] == ["Europe/Moscow"] and version == 1
    assert guide_config_load.main([str(config), *TARGET]) == 0
    assert guide_store().configuration()[1] == 2
    first = audit_log().entries(Area.GUIDE, 10).entries[-1]
    assert (first.action, first.subject, first.actor, first.via, first.detail) == (
        "replace_configuration",
        "configuration version 1",
        "ops-person",
        "ops",
        "guide.json",
    )
    assert first.before == {
        "zones": {
            "World/Anywhere": {
                "name": "World/Anywhere",
                "geo": ["World/Anywhere"],
                "timezone": "UTC",
                "territories": [],
            },
            "Europe/Moscow": None,
        },
        "rubrics": {"1": None},
    }


def test_every_problem_is_listed_and_nothing_written(aws, tmp_path, capsys):
    config = tmp_path / "guide.yaml"
    config.write_text(
        "zones:\n"
        "  - {name: Mars/Olympus, timezone: Mars/Olympus}\n"
        "  - {name: A, geo: [a]}\n"
        "  - {name: A}\n"
        "channels:\n"
        "  - {alias: x, channelId: 0, type: TV}\n"
        "  - {alias: y, ageRestriction: 30, rubrics: [7], artworkURL: 'javascript:alert(1)'}\n"
        '  - {alias: z, type: CINEMA, title: "bad\\x01"}\n',
        encoding="utf-8",
    )
    assert guide_config_load.main([str(config), *TARGET]) == 2
    problems = capsys.readouterr().err
    expected_problems = (
        "Mars/Olympus",
        "channels[0].channelId",
        "ageRestriction",
        "artworkURL",
        "type",
        "U+0001",
        "'A'",
    )
    for expected in expected_problems:
        assert expected in problems, expected
    assert guide_store().configuration()[1] == 0


def test_the_demo_configuration_is_valid(capsys):
    demo = yaml.safe_load(DEMO.read_text(encoding="utf-8"))["configuration"]
    assert guide_config_load.GuideConfig.model_validate(demo).zone("Asia/Yekaterinburg").territories == [9]
