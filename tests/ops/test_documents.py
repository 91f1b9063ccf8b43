"""The one reader of the operators' files (ops/documents.py): YAML or JSON by suffix, a key written twice refused
with its place, every problem naming the file; and every loader lists those problems as its own."""

import pytest

from ops.channels import load as channels_load
from ops.documents import DocumentError, read_document
from ops.launcher import clicks as launcher_clicks
from ops.launcher import load as launcher_load
from ops.nichecontent import queue as niche_content
from ops.registry import load as registry_load
from ops.tvguide import config as guide_config_load
from ott.channels.validation import ConfigurationError
from ott.launcher.block import BlockError
from ott.nichecontent.intake import IntakeError
from ott.registry.catalog import CatalogError
from tests.conftest import ROOT

DEMO = ROOT / "local" / "demo"


def test_yaml_and_json_are_read_by_suffix(tmp_path):
    (tmp_path / "a.yaml").write_text("items: [{id: x}]\n", encoding="utf-8")
    (tmp_path / "a.JSON").write_text('{"items": [{"id": "x"}]}', encoding="utf-8")
    assert read_document(tmp_path / "a.yaml") == read_document(tmp_path / "a.JSON") == {"items": [{"id": "x"}]}


def test_a_key_written_twice_in_a_yaml_mapping_is_refused_with_its_line(tmp_path):
    path = tmp_path / "twice.yaml"
    path.write_text("items:\n  - id: a\n    url: one\n    url: two\nid: 1\nid: 2\n", encoding="utf-8")
    with pytest.raises(DocumentError) as refused:
        read_document(path)
    assert refused.value.problems == [
        f"{path}: line 4: key 'url' is written twice",
        f"{path}: line 6: key 'id' is written twice",
    ]


def test_a_key_written_twice_in_a_json_object_is_refused(tmp_path):
    path = tmp_path / "twice.json"
    path.write_text('{"items": [{"id": "a", "id": "b"}]}', encoding="utf-8")
    with pytest.raises(DocumentError) as refused:
        read_document(path)
    assert refused.value.problems == [f"{path}: key 'id' is written twice in one object"]


def test_merge_keys_and_repeated_values_are_not_repeated_keys(tmp_path):
    path = tmp_path / "anchors.yaml"
    path.write_text("base: &base {a: 1}\nitem:\n  <<: *base\n  b: 1\n  c: 1\n", encoding="utf-8")
    assert read_document(path) == {"base": {"a": 1}, "item": {"a": 1, "b": 1, "c": 1}}


@pytest.mark.parametrize(
    ("name", "text", "said"),
    [
        ("broken.yaml", "items: [unclosed\n", "not readable as YAML"),
        ("broken.json", '{"items": ', "not readable as JSON"),
        ("binary.yaml", b"\xff\xfe\x00", "not readable as YAML"),
        ("missing.yaml", None, "not readable as YAML"),
    ],
)
def test_an_unreadable_file_is_one_problem_naming_it(tmp_path, name, text, said):
    path = tmp_path / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    elif text is not None:
        path.write_text(text, encoding="utf-8")
    with pytest.raises(DocumentError) as refused:
        read_document(path)
    assert len(refused.value.problems) == 1 and refused.value.problems[0].startswith(f"{path}: {said}: ")


def with_key_twice(tmp_path, demo: str, once: str, again: str):
    """A demo file with `again` (the key of `once`, another value) inserted after `once`; its path and line."""
    text = (DEMO / demo).read_text(encoding="utf-8")
    before, found, after = text.partition(once)
    assert found, once
    path = tmp_path / demo
    path.write_text(before + once + again + after, encoding="utf-8")
    return path, (before + once).count("\n") + 1


@pytest.mark.parametrize(
    ("read", "error", "demo", "once", "again"),
    [
        (registry_load.read_catalog, CatalogError, "registry.yaml", "    name: Registry\n", "    name: Реестр\n"),
        (launcher_load.read_block, BlockError, "launcher.yaml", "    title: Новости\n", "    title: Спорт\n"),
        (niche_content.read_items, IntakeError, "niche_content.yaml", "  - id: demo-0001\n", "    id: demo-0009\n"),
        (
            channels_load.read_configuration,
            ConfigurationError,
            "channels.yaml",
            "title: Демо Телеком\n",
            "title: Другое\n",
        ),
    ],
    ids=["registry", "launcher", "niche_content", "channels"],
)
def test_every_loader_refuses_a_demo_file_with_a_key_written_twice(tmp_path, read, error, demo, once, again):
    path, line = with_key_twice(tmp_path, demo, once, again)
    read(DEMO / demo)  # loads as it is
    key = again.split(":")[0].strip()
    with pytest.raises(error) as refused:
        read(path)
    assert refused.value.problems == [f"{path}: line {line}: key {key!r} is written twice"]


def test_the_guide_configuration_and_click_loaders_refuse_a_key_written_twice(tmp_path, capsys):
    config = tmp_path / "guide.yaml"
    config.write_text("zones: []\nrubrics: []\nzones: []\n", encoding="utf-8")
    with pytest.raises(guide_config_load.ConfigurationInvalid) as refused:
        guide_config_load.read_config(config)
    assert refused.value.problems == [f"{config}: line 3: key 'zones' is written twice"]
    clicks = tmp_path / "clicks.json"
    clicks.write_text('[{"event_id": "a", "poster_id": 1, "poster_id": 2}]', encoding="utf-8")
    assert launcher_clicks.main([str(clicks), "--local"]) == 2  # refused before any stack is reached
    assert capsys.readouterr().err == f"{clicks}: key 'poster_id' is written twice in one object\n"
