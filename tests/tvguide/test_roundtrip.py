"""The export is a faithful copy (issue 18, "The export is a faithful copy"): every sample guide of ../shared is
imported, exported again and compared with its source channel by channel and programme by programme after
`tv_sort` (Debian's xmltv-util) has put both in one order. Nothing may differ but texts past their bounds
(docs/tvguide.md, "Export")."""

import io
import json
import random
import shutil
import subprocess
from collections import Counter
from datetime import UTC, datetime
from functools import partial
from pathlib import Path

import pytest
import xmltv_alt
from lxml import etree

from ops.registry.load import read_catalog
from ott.callers import Device
from ott.http.request import validate
from ott.tvguide.config import GuideConfig
from ott.tvguide.export import xmltv_export
from ott.tvguide.importer import import_guide
from ott.tvguide.params import XmltvParams
from ott.tvguide.store import fitted_day, unpack
from ott.tvguide.xmltv import MAX_CHANNEL_KEPT, MAX_KEPT, TEXT_LIMITS, parse_time, read_xmltv
from ott.tvguide.zones import Zone
from tests.conftest import DEMO_REGISTRY, SHARED_DATA
from tests.fixtures.databases import memory_database
from tests.fixtures.stores import guide_store, loaded_registry
from tests.fixtures.xmltv import xmltv_dtd

TV_SORT = shutil.which("tv_sort")
SAMPLES = sorted((SHARED_DATA / "xmltv").glob("*.xml"))
ZONE = Zone(name="UTC", geo=["UTC"], timezone="UTC")


def tv_sort(data: bytes, tmp_path: Path, name: str) -> etree._Element:
    source, target = tmp_path / f"{name}.xml", tmp_path / f"{name}.sorted.xml"
    source.write_bytes(data)
    assert TV_SORT is not None
    subprocess.run([TV_SORT, "--output", str(target), str(source)], check=True, capture_output=True)  # noqa: S603 - our files
    return etree.parse(str(target), etree.XMLParser(resolve_entities=False, no_network=True)).getroot()


def canonical(element: etree._Element) -> tuple:
    """A child of a programme as a comparable value; a title or description within its bound (docs/tvguide.md,
    "Bounds"): what is past it is not kept."""
    text = (element.text or "").strip()[: TEXT_LIMITS.get(element.tag)].rstrip()
    return (element.tag, tuple(sorted(element.attrib.items())), text, tuple(canonical(c) for c in element))


def instant(text: str) -> datetime:
    return parse_time(text)


def programmes(root: etree._Element) -> dict[tuple[str, datetime], Counter]:
    return {
        (element.get("channel"), instant(element.get("start"))): Counter(canonical(child) for child in element)
        for element in root.iter("programme")
    }


def exported(sample: Path) -> bytes:
    store = guide_store(memory_database())
    store.save_configuration(GuideConfig(zones=[ZONE]), 0)
    import_guide(store, partial(io.BytesIO, sample.read_bytes()), ZONE.name)
    registry = loaded_registry(memory_database(), read_catalog(DEMO_REGISTRY))
    catalogue = store.catalogue()
    days = sorted({day for record in catalogue.channels.values() for day in record.dates.get(ZONE.name, [])})
    root = None
    for day in days:  # a day at a time: an export holds at most 1,000 channel-days
        query = validate(XmltvParams, {"dates": day.isoformat(), "geo": ZONE.name})
        answer = xmltv_export(store, registry, query, Device("127.0.0.1"), datetime(2024, 12, 1, tzinfo=UTC))
        document = etree.fromstring(answer.body.encode())
        if root is None:
            root = document
        else:
            root.extend(document.findall("programme"))
    assert root is not None
    return etree.tostring(root, encoding="UTF-8", xml_declaration=True)


def channels(root: etree._Element) -> dict[str, Counter]:
    return {element.get("id"): Counter(canonical(child) for child in element) for element in root.iter("channel")}


def differences(source: etree._Element, copy: etree._Element) -> Counter:
    """What the copy lacks or adds, by the tag of the programme's or channel's child (or `missing`/`added`
    programmes and channels)."""
    found: Counter = Counter()
    for kind, items in (("programme", programmes), ("channel", channels)):
        given, back = items(source), items(copy)
        found[f"missing {kind}"] = len(given.keys() - back.keys())
        found[f"added {kind}"] = len(back.keys() - given.keys())
        for key in given.keys() & back.keys():
            for child in (given[key] - back[key]) + (back[key] - given[key]):
                found[f"{kind} {child[0]}" if kind == "channel" else child[0]] += 1
    return +found


@pytest.mark.slow  # the Turkish guide alone is some 4,500 programmes imported and exported
@pytest.mark.skipif(TV_SORT is None, reason="tv_sort is not installed (apt-get install xmltv-util)")
@pytest.mark.parametrize("sample", SAMPLES, ids=lambda path: path.name)
def test_an_exported_guide_is_its_source_again(sample, tmp_path):
    data = exported(sample)
    assert xmltv_alt.read_programmes(io.BytesIO(data))
    copy = etree.fromstring(data)
    for untitled in [programme for programme in copy.iter("programme") if programme.find("title") is None]:
        copy.remove(untitled)  # the DTD wants a title the source did not give (docs/tvguide.md, "Export")
    assert xmltv_dtd().validate(copy)
    source, copy = tv_sort(sample.read_bytes(), tmp_path, "source"), tv_sort(data, tmp_path, "copy")
    found = differences(source, copy)
    print(sample.name, dict(found))
    # A channel without a programme is in no zone's schedule, so not in its export (docs/tvguide.md, "Export").
    unscheduled = set(channels(source)) - {programme.get("channel") for programme in source.iter("programme")}
    assert set(channels(source)) - set(channels(copy)) <= unscheduled
    found.pop("missing channel", None)
    assert not found


def test_what_a_programme_keeps_as_given_is_bounded_and_goes_first_when_a_day_does_not_fit():
    credits = "".join(f"<actor>Actor number {n}</actor>" for n in range(400))
    element = (
        '<tv><programme start="20241201100000 +0000" channel="a"><title>T</title><new/>'
        f'<episode-num system="xmltv_ns">1.2.</episode-num><credits>{credits}</credits></programme></tv>'
    )
    (programme,) = read_xmltv(io.BytesIO(element.encode()))
    assert programme.kept == [["new", ""], ["episode-num", "1.2.", {"system": "xmltv_ns"}]]
    assert programme.cut == {f"children kept as given past {MAX_KEPT} characters": 1}
    noise = random.Random(0)  # texts zlib cannot shrink
    rows = [
        {"i": n, "s": n, "d": 60, "t": {"en": "T"}, "k": [["sub-title", noise.randbytes(1500).hex()]]}
        for n in range(300)
    ]
    doc, cut = fitted_day(rows)
    assert [row["t"] for row in unpack(doc)] == [{"en": "T"}] * 300 and "kept for the export" in (cut or "")


def test_a_channel_comes_back_as_given_with_the_names_only_earlier_guides_gave():
    store = guide_store(memory_database())
    overridden = {"alias": "b.tv", "logoURL": "https://operator.example/b.png"}
    store.save_configuration(GuideConfig.model_validate({"zones": [ZONE.model_dump()], "channels": [overridden]}), 0)
    channel = (
        '<channel id="a.tv"><display-name lang="ru">Канал А</display-name>'
        '<display-name lang="en">Channel A</display-name>'
        '<display-name>A</display-name><icon src="https://a.example/a.png" width="64" height="32"/>'
        '<url system="imdb">https://a.example/</url><url>https://a.example/more</url></channel>'
    )
    programmes = (
        '<programme start="20241201100000 +0000" stop="20241201110000 +0000" channel="{}"><title>T</title></programme>'
    )
    first = (
        f'<tv>{channel}<channel id="b.tv"><display-name>B</display-name><icon src="https://b.example/b.png"/></channel>'
    )
    import_guide(
        store,
        partial(io.BytesIO, f"{first}{programmes.format('a.tv')}{programmes.format('b.tv')}</tv>".encode()),
        ZONE.name,
        source=f"{ZONE.name}/first.xml",
    )
    registry = loaded_registry(memory_database(), read_catalog(DEMO_REGISTRY))
    query = validate(XmltvParams, {"dates": "2024-12-01", "geo": ZONE.name})
    now = datetime(2024, 12, 1, tzinfo=UTC)

    def exported_channels() -> dict[str, list[tuple]]:
        document = etree.fromstring(xmltv_export(store, registry, query, Device("127.0.0.1"), now).body.encode())
        return {element.get("id"): [canonical(child) for child in element] for element in document.iter("channel")}

    given = exported_channels()
    assert given["a.tv"] == [canonical(child) for child in etree.fromstring(channel)]
    assert given["b.tv"] == [
        ("display-name", (), "B", ()),
        ("icon", (("src", "https://operator.example/b.png"),), "", ()),
    ]
    # Another guide says only the Russian name: the English one, which only the first gave, stays.
    second = '<tv><channel id="a.tv"><display-name lang="ru">Канал А</display-name></channel></tv>'
    import_guide(store, partial(io.BytesIO, second.encode()), ZONE.name, source=f"{ZONE.name}/second.xml")
    names = [child for child in exported_channels()["a.tv"] if child[0] == "display-name"]
    assert names == [
        ("display-name", (("lang", "ru"),), "Канал А", ()),
        ("display-name", (("lang", "en"),), "Channel A", ()),
        ("display-name", (), "A", ()),
    ]


def test_what_a_channel_keeps_as_given_is_bounded():
    names = "".join(f'<display-name lang="x{n}">Name number {n}</display-name>' for n in range(100))
    (channel,) = read_xmltv(io.BytesIO(f'<tv><channel id="a.tv">{names}</channel></tv>'.encode()))
    assert sum(len(json.dumps(kept, ensure_ascii=False)) for kept in channel.kept) <= MAX_CHANNEL_KEPT
    assert channel.cut == {f"children kept as given past {MAX_CHANNEL_KEPT} characters": 100 - len(channel.kept)}
    assert len(channel.display_names) == 100  # the API's names are all read
