"""The zone's whole guide over HTTP as `make run` serves it (issue 18, "The whole guide of a zone is one URL"):
a guide larger than Lambda's 6 MB reply, made of copies of the real Turkish guide, imported through
`ops.tvguide.load --local` (inbox → import function → export queue → export function); `xmltv.xml` of the zone
redirects to its gzip-compressed export, which holds every programme and validates against xmltv.dtd."""

import time
from pathlib import Path

import pytest
import requests
from lxml import etree

from tests.conftest import SHARED_DATA
from tests.fixtures.xmltv import xmltv_dtd
from tests.tvguide.test_http_local import expected_schedules, run_ops

pytestmark = pytest.mark.slow

XMLTV = SHARED_DATA / "xmltv"
SOURCE = XMLTV / "tvplus.com.tr_2024-12.xml"
COPIES = 4  # 2.35 MB each: the export is over 6 MB
ZONE = "Test/Export"
LAMBDA_REPLY_BYTES = 6 * 1024 * 1024


def copied_guide(into: Path) -> Path:
    """The real guide's channels and programmes COPIES times, each copy's channel ids suffixed `-N`."""
    source = etree.parse(str(SOURCE), etree.XMLParser(resolve_entities=False, no_network=True)).getroot()
    root = etree.Element("tv", source.attrib)
    for kind in ("channel", "programme"):
        for copy in range(COPIES):
            for element in source.iter(kind):
                duplicate = etree.fromstring(etree.tostring(element))
                attribute = "id" if kind == "channel" else "channel"
                duplicate.set(attribute, f"{element.get(attribute)}-{copy}")
                root.append(duplicate)
    path = into / "copied_guide.xml"
    etree.ElementTree(root).write(str(path), encoding="utf-8", xml_declaration=True)
    return path


def redirect(stack, deadline: float, zone: str = ZONE) -> requests.Response:
    """The zone's xmltv.xml once its export is written (a 404 until the export function has run). A request waits
    its turn at the emulator while the import and the export write (a minute or more on a busy machine)."""
    while True:
        address = f"{stack.url}/tvguide/2/xmltv.xml"
        reply = requests.get(address, params={"geo": zone}, timeout=300, allow_redirects=False)
        if reply.status_code != 404 or time.monotonic() > deadline:
            return reply
        assert "not exported yet" in reply.text
        time.sleep(0.2)


def test_a_zone_s_guide_over_6_mb_is_one_url_to_its_gzip_export(stack, tmp_path):
    guide = copied_guide(tmp_path)
    done = run_ops(stack, "ops.tvguide.load", str(guide), "--zone", ZONE, "--create-zone", "--local")
    assert done.returncode == 0, done.stderr
    deadline = time.monotonic() + 300
    reply = redirect(stack, deadline)
    assert reply.status_code == 302, reply.text
    assert reply.headers["Cache-Control"] == "public, max-age=300"
    export = requests.get(reply.headers["Location"], timeout=60)  # what a player does with the redirect
    # `--create-zone` asks for the new zone's (empty) export before the import asks for its own: wait for that one.
    while len(export.content) <= LAMBDA_REPLY_BYTES and time.monotonic() < deadline:
        time.sleep(0.2)
        export = requests.get(reply.headers["Location"], timeout=60)
    assert export.status_code == 200
    assert export.headers["Content-Type"].startswith("application/xml")
    assert export.headers["Content-Encoding"] == "gzip"  # requests decompresses it, as players and browsers do
    assert int(export.headers["Content-Length"]) < LAMBDA_REPLY_BYTES < len(export.content)
    followed = requests.get(f"{stack.url}/tvguide/2/xmltv.xml", params={"geo": ZONE}, timeout=60)
    assert followed.content == export.content
    document = etree.fromstring(export.content)
    expected = expected_schedules(guide)
    assert sorted(channel.get("id") for channel in document.findall("channel")) == sorted(expected)
    assert len(document.findall("programme")) == sum(len(rows) for rows in expected.values())
    for programme in document.findall("programme"):  # the source gave them no title (docs/tvguide.md, "Export")
        if programme.find("title") is None:
            document.remove(programme)
    dtd = xmltv_dtd()
    assert dtd.validate(document), dtd.error_log.filter_from_errors()


def test_a_zone_created_and_deleted_by_the_operator_has_its_export_written_and_deleted(stack):
    created = run_ops(stack, "ops.tvguide.zones", "create", "Test/Empty", "--local")
    assert created.returncode == 0, created.stderr
    reply = redirect(stack, time.monotonic() + 300, "Test/Empty")
    assert reply.status_code == 302, reply.text
    address = reply.headers["Location"]
    document = etree.fromstring(requests.get(address, timeout=60).content)
    assert document.tag == "tv" and len(document) == 0  # an empty guide until its first import, not a 404
    deleted = run_ops(stack, "ops.tvguide.zones", "delete", "Test/Empty", "--local")
    assert deleted.returncode == 0, deleted.stderr
    deadline = time.monotonic() + 300
    while (gone := requests.get(address, timeout=60)).status_code == 200 and time.monotonic() < deadline:
        time.sleep(0.2)  # until the export function has deleted it
    assert gone.status_code == 404
