"""Every guide handler on its sample event against moto with the demo guide (issue 8, "The API"): fields,
zones, dates, paging, languages, 400s in the error shape, caching, and the XMLTV export against xmltv.dtd."""

import gzip
import importlib
import io
import itertools
import json
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime, parsedate_to_datetime
from urllib.parse import unquote, urlsplit
from zoneinfo import ZoneInfo

import pytest
import requests
import xmltv_alt
from lxml import etree

from local.invoke import sample_event
from ott.aws import client
from ott.tvguide.operations import create_zone
from ott.tvguide.store import guide_store
from tests.conftest import SHARED_DATA, TEMPLATE
from tests.fixtures.moto import Context, invoke
from tests.fixtures.xmltv import xmltv_dtd

pytestmark = pytest.mark.demo_data("tvguide")

DEFAULT_FIELDS = {"channelId", "title", "alias", "logoURL", "ageRestriction", "hasSchedule"}
MOSCOW = {"label_timezone_name": "Europe/Moscow"}


def body(reply: dict) -> dict:
    assert reply["statusCode"] == 200, reply["body"]
    return json.loads(reply["body"])


def instant(moment: dict) -> datetime:
    local = datetime(moment["year"], moment["month"], moment["day"], moment["hour"], moment["minute"], moment["second"])
    return (local - timedelta(seconds=moment["timezone"])).replace(tzinfo=UTC)


def test_channels_default_fields(demo):
    channels = body(invoke("tvguide/channels", query=None))["channels"]
    assert [c["channelId"] for c in channels] == [101, 102, 103, 104, 105, 106, 107]
    assert all(set(channel) == DEFAULT_FIELDS for channel in channels)
    by_id = {c["channelId"]: c for c in channels}
    assert by_id[103]["title"] == "Киноёжик" and by_id[103]["ageRestriction"] == 18  # set by hand
    assert by_id[104]["ageRestriction"] == 0 and by_id[101]["ageRestriction"] == 16  # the oldest telecast


def test_channels_named_fields_and_unknown_ids_left_out(demo):
    query = {"channel": "107,999,101", "fields": "type,rubrics,artworkURL,categories"}
    channels = body(invoke("tvguide/channels", query=query))["channels"]
    assert [c["channelId"] for c in channels] == [107, 101]
    radio, first = channels
    assert radio["type"] == "RADIO" and radio["rubrics"] == [{"id": 4, "title": "Радио"}]
    assert set(first) == {"channelId", "type", "rubrics", "artworkURL", "categories"}
    assert {"type": "INFORMATIONAL", "title": "Новости"} in first["categories"]


def test_current_telecast_is_on_now_and_short_lived(demo):
    reply = invoke("tvguide/channels", query={"fields": "currentTelecast", **MOSCOW})
    now = datetime.now(UTC)
    for channel in body(reply)["channels"]:
        current = channel["currentTelecast"]
        start = instant(current["date"])
        assert start <= now < start + timedelta(seconds=current["duration"])
        assert current["date"]["timezone"] == 10800
    max_age = int(reply["headers"]["Cache-Control"].rsplit("=", 1)[1])
    assert reply["headers"]["Cache-Control"].startswith("public") and 5 <= max_age <= 60
    assert reply["headers"]["Vary"] == "Accept-Language"


def test_zone_by_address_by_territory_and_by_labels(demo):
    def offset(query, source_ip=None):
        reply = invoke("tvguide/channels", query={"fields": "currentTelecast", **query}, source_ip=source_ip)
        return body(reply)["channels"][0]["currentTelecast"]["date"]["timezone"], reply["headers"]["Cache-Control"]

    zone, cache = offset({})  # one reply: its max-age counts down to the telecast's end, second by second
    assert zone == 10800  # 127.0.0.1 is in the demo Москва territory
    assert cache.startswith("private")  # chosen by the caller's address
    assert offset({"t": "9"})[0] == 18000  # Екатеринбург
    assert offset({"label_region": "RU-SVE", "label_geoname_id": "1486209"})[0] == 18000
    assert offset({"geo": "Europe/Moscow"})[0] == 10800
    assert offset({"label_region": "RU-SVE", "geo": "Europe/Moscow"})[0] == 0  # no zone holds both: World
    assert offset({"label_timezone_name": ""})[0] == 0  # labels sent empty: World/Anywhere
    assert offset({"t": "7"})[0] == 0  # Санкт-Петербург has no zone
    assert offset({}, source_ip="192.0.2.1")[0] == 0  # an unknown network


def test_schedule_is_chronological_without_repeats_on_local_dates(demo):
    today = datetime.now(ZoneInfo("Asia/Yekaterinburg")).date()
    dates = [today + timedelta(days=1), today - timedelta(days=1), today + timedelta(days=1)]
    query = {"channel": "101", "dates": ",".join(d.isoformat() for d in dates), "label_region": "RU-SVE"}
    schedule = body(invoke("tvguide/schedule", query=query))
    telecasts = schedule["telecastsList"]
    starts = [instant(t["date"]) for t in telecasts]
    assert starts == sorted(starts) and len({t["id"] for t in telecasts}) == len(telecasts)
    assert schedule["total_count"] == len(telecasts) and schedule["items_skipped"] == 0
    local_days = {(t["date"]["year"], t["date"]["month"], t["date"]["day"]) for t in telecasts}
    assert local_days == {(d.year, d.month, d.day) for d in set(dates)}
    assert all(t["date"]["timezone"] == 18000 for t in telecasts)
    for earlier, later in itertools.pairwise(telecasts):  # each day is filled back to back
        if earlier["date"]["day"] == later["date"]["day"]:
            assert instant(earlier["date"]) + timedelta(seconds=earlier["duration"]) == instant(later["date"])


def test_schedule_pages(demo):
    whole = body(invoke("tvguide/schedule"))
    page = body(
        invoke(
            "tvguide/schedule",
            query={**sample_event("tvguide/schedule")["queryStringParameters"], "offset": "3", "limit": "4"},
        )
    )
    assert page["telecastsList"] == whole["telecastsList"][3:7]
    assert page["items_skipped"] == 3 and page["total_count"] == whole["total_count"]


@pytest.mark.parametrize(
    ("function", "query"),
    [
        ("tvguide/schedule", {"channel": "101", "dates": "2024-13-01"}),
        ("tvguide/schedule", {"channel": "x"}),
        ("tvguide/schedule", {"channel": "101", "limit": "0"}),
        ("tvguide/schedule", {"channel": "101", "offset": "-1"}),
        ("tvguide/channels", {"fields": "title,nonsense"}),
        ("tvguide/channels", {"channel": "1,,2"}),
        ("tvguide/channel", {}),
        ("tvguide/telecast_info", {"telecast": "12345678901234567890"}),
        ("tvguide/tvshows", {}),
        ("tvguide/idbytitle", {}),  # `titles=` is one blank name: an empty entry (issue 18)
    ],
)
def test_malformed_parameters_are_400_in_the_error_shape(demo, function, query):
    reply = invoke(function, query=query)
    assert reply["statusCode"] == 400
    assert set(json.loads(reply["body"])) == {"error", "error_description"}
    xml = invoke(function, query=query, path=sample_event(function)["path"].replace(".json", ".xml"))
    assert xml["statusCode"] == 400 and etree.fromstring(xml["body"].encode()).tag == "Error"


def test_telecast_info_and_tvshows(demo):
    telecasts = body(invoke("tvguide/schedule"))["telecastsList"]
    ids = [telecasts[5]["id"], 1, telecasts[2]["id"]]
    found = body(invoke("tvguide/telecast_info", query={"telecast": ",".join(map(str, ids))}))["telecastsList"]
    assert found == [telecasts[5], telecasts[2]]
    news = next(t for t in telecasts if t["title"] == "Новости")["tvShow"]["id"]
    shows = body(invoke("tvguide/tvshows", query={"tvshow": f"{news},7"}))["tvShows"]
    assert [show["id"] for show in shows] == [news]
    assert [c["channelId"] for c in shows[0]["channels"]] == [101, 102, 107]  # a show on several channels
    assert shows[0]["title"] == "Новости"


def test_languages_follow_accept_language_with_q_values(demo):
    def title(accept):
        reply = invoke("tvguide/channels", query={"channel": "103"}, headers={"Accept-Language": accept})
        return body(reply)["channels"][0]["title"]

    assert title("en;q=0.9, ru;q=0.4") == "Kinoyozhik"
    assert title("ru-RU, en;q=0.8") == "Киноёжик"
    assert title("de, en-GB;q=0.5") == "Kinoyozhik"
    assert title("de") == "Киноёжик"  # the territory's content language (Москва: ru, en)
    assert title("en;q=0, fr") == "Киноёжик"


def test_idbytitle_get_and_post(demo):
    found = body(invoke("tvguide/idbytitle"))["channels"]
    assert found == [{"channelId": 101, "title": "Первый демо"}, {"channelId": 103, "title": "Киноёжик"}, {}]
    blanks = body(invoke("tvguide/idbytitle", query={"titles": "Киноежик,,"}))["channels"]
    assert blanks == [{"channelId": 103, "title": "Киноёжик"}, {}, {}]  # each name keeps its place
    assert body(invoke("tvguide/idbytitle", query={"titles": ""}))["channels"] == [{}]
    posted = body(invoke("tvguide/idbytitle_post"))["channels"]
    assert [c["channelId"] for c in posted] == [102, 103]
    xml = invoke(
        "tvguide/idbytitle_post",
        path="/tvguide/2/idbytitle.xml",
        body="<TitlesRequest><titles>радио маяк демо</titles><titles>Perviy Demo</titles></TitlesRequest>",
    )
    assert xml["statusCode"] == 200
    assert [e.text for e in etree.fromstring(xml["body"].encode()).iter("channelId")] == ["107", "101"]
    one = invoke(
        "tvguide/idbytitle_post",
        path="/tvguide/2/idbytitle.xml",
        body="<TitlesRequest><titles>Киноежик</titles></TitlesRequest>",
    )
    assert [e.text for e in etree.fromstring(one["body"].encode()).iter("channelId")] == ["103"]
    assert invoke("tvguide/idbytitle_post", body='{"titles": "Киноежик"}')["statusCode"] == 400  # JSON says list


def test_deprecated_channel(demo):
    channel = body(invoke("tvguide/channel"))
    assert channel["channelId"] == 101 and channel["hasSchedule"] is True and len(channel["scheduledDates"]) == 11
    assert "currentTelecast" in channel and channel["rubrics"] == [{"id": 1, "title": "Федеральные"}]
    assert invoke("tvguide/channel", query={"channel": "999"})["statusCode"] == 404


def test_etag_and_304(demo):
    first = invoke("tvguide/schedule")
    etag = first["headers"]["ETag"]
    again = invoke("tvguide/schedule", headers={"If-None-Match": etag})
    assert again["statusCode"] == 304 and again["body"] == ""
    other = invoke("tvguide/schedule", headers={"If-None-Match": etag, "Accept-Language": "en"})
    assert other["statusCode"] == 200 and other["headers"]["ETag"] != etag


def export_function(zone: str) -> dict:
    """The export function on its sample event, asked for `zone`."""
    event = sample_event("tvguide/export")
    event["Records"][0]["body"] = json.dumps({"zone": zone})
    return importlib.import_module("functions.tvguide.export.app").lambda_handler(event, Context())


def followed(reply: dict) -> tuple[dict, bytes]:
    """What the redirect's address opens (moto's S3 in this process): the object and its XML."""
    assert reply["statusCode"] == 302, reply["body"]
    address = urlsplit(reply["headers"]["Location"])
    bucket, key = (address.hostname or "").split(".", 1)[0], unquote(address.path.lstrip("/"))
    found = client("s3").get_object(Bucket=bucket, Key=key)
    return found, gzip.decompress(found["Body"].read())


def test_xmltv_export_validates_against_the_dtd(demo):
    assert export_function("Asia/Yekaterinburg") == {"batchItemFailures": []}
    reply = invoke("tvguide/xmltv", query={"label_timezone_name": "Asia/Yekaterinburg"})
    assert reply["headers"]["Cache-Control"] == "public, max-age=300"
    found, data = followed(reply)
    assert found["ContentType"].startswith("application/xml") and found["ContentEncoding"] == "gzip"
    document = etree.fromstring(data)
    dtd = xmltv_dtd()
    assert dtd.validate(document), dtd.error_log.filter_from_errors()
    assert len(document.findall("channel")) == 7
    assert document.find("programme").get("start").endswith("+0500")
    programmes = xmltv_alt.read_programmes(io.BytesIO(data))  # it once crashed on <rating>
    assert len(programmes) == len(document.findall("programme"))
    assert {programme["title"][0][0] for programme in programmes} >= {"Новости"}
    # The demo guide's eleven days, not only the seven the API builds by default.
    days = {programme.get("start")[:8] for programme in document.findall("programme")}
    assert len(days) == 11


def test_a_player_revalidates_the_zone_s_export_at_s3_and_reads_its_channels_before_its_programmes(demo):
    """Issue 29: the whole guide (xmltv.xml, and Xtream's xmltv.php, which redirects to it) is S3's object, gzip,
    channels first; S3 gives its ETag and Last-Modified and answers 304 to either. The redirect carries no validator,
    so the API never answers it 304: a player's conditional request always reaches S3."""
    assert export_function("Asia/Yekaterinburg") == {"batchItemFailures": []}
    query = {"label_timezone_name": "Asia/Yekaterinburg"}
    reply = invoke("tvguide/xmltv", query=query)
    assert reply["statusCode"] == 302 and not {"ETag", "Last-Modified"} & reply["headers"].keys()
    fetched = requests.get(reply["headers"]["Location"], headers={"Accept-Encoding": "gzip"}, timeout=10)
    assert fetched.status_code == 200 and fetched.headers["Content-Encoding"] == "gzip"
    etag, date = fetched.headers["ETag"], fetched.headers["Last-Modified"]
    tags = [element.tag for element in etree.fromstring(fetched.content)]  # inflated, as players do
    assert tags[0] == "channel" and tags[-1] == "programme" and tags == sorted(tags)  # channels, then programmes
    again = invoke("tvguide/xmltv", query=query, headers={"If-None-Match": etag, "If-Modified-Since": date})
    assert again["statusCode"] == 302
    for validator in ({"If-None-Match": etag}, {"If-Modified-Since": date}):
        # Not read: moto's 304 carries the text "Not Modified", which S3's does not and urllib3 refuses.
        with requests.get(again["headers"]["Location"], headers=validator, timeout=10, stream=True) as revalidated:
            assert (revalidated.status_code, revalidated.headers["ETag"]) == (304, etag)
    earlier = format_datetime(parsedate_to_datetime(date) - timedelta(seconds=1), usegmt=True)
    assert requests.get(again["headers"]["Location"], headers={"If-Modified-Since": earlier}, timeout=10).ok


def test_xmltv_of_a_zone_not_exported_yet_is_a_clear_404(demo):
    reply = invoke("tvguide/xmltv", query={"label_timezone_name": "Asia/Yekaterinburg"})
    assert reply["statusCode"] == 404 and "not exported yet" in reply["body"]
    named = invoke("tvguide/xmltv", query={"label_timezone_name": "Asia/Yekaterinburg", "channel": "101"})
    assert named["statusCode"] == 200  # channels or dates named: built as before


def test_import_function_on_its_sample_event(aws):
    event = sample_event("tvguide/importer")
    key = json.loads(event["Records"][0]["body"])["Records"][0]["s3"]["object"]["key"]
    guide = SHARED_DATA / "xmltv" / "guide_ru_webgrab_tv.yandex.ru_2021-03-10_msk.xml"
    client("s3").put_object(Bucket=TEMPLATE.physical_name("GuideInboxBucket"), Key=key, Body=guide.read_bytes())
    handler = importlib.import_module("functions.tvguide.importer.app").lambda_handler
    assert handler(event, Context()) == {"batchItemFailures": []}
    refused = guide_store().import_result(key)
    assert refused["status"] == "refused" and "no zone 'Europe/Moscow'" in refused["error"]  # not created by an import
    create_zone(guide_store(), "Europe/Moscow", exports=[].extend)
    assert handler(event, Context()) == {"batchItemFailures": []}
    assert guide_store().import_result(key)["status"] == "imported"
    # Each import asks for its zone's export again; the export function writes it from that message.
    queue = TEMPLATE.queue_url("GuideExportQueue")
    asked = client("sqs").receive_message(QueueUrl=queue, MaxNumberOfMessages=10)["Messages"]
    assert [json.loads(message["Body"]) for message in asked] == [{"zone": "Europe/Moscow"}] * 2
    exporter = importlib.import_module("functions.tvguide.export.app").lambda_handler
    assert exporter(
        {"Records": [{**sample_event("tvguide/export")["Records"][0], "body": asked[-1]["Body"]}]}, Context()
    ) == {"batchItemFailures": []}
    _, data = followed(invoke("tvguide/xmltv", query=MOSCOW))
    document = etree.fromstring(data)
    assert len(document.findall("programme")) == guide_store().import_result(key)["telecasts"]


def test_published_summaries_read_the_guide(demo):
    from ott.tvguide.summaries import guide_summaries

    telecast = body(invoke("tvguide/schedule"))["telecastsList"][0]
    summaries = guide_summaries()
    found = summaries.telecasts([(101, telecast["id"]), (102, telecast["id"]), (101, 1)])
    assert list(found) == [(101, telecast["id"])]  # on another channel or unknown: left out
    summary = found[(101, telecast["id"])]
    assert (summary.title, summary.duration) == (telecast["title"], telecast["duration"])
    channels = summaries.channels([101, 999])
    assert list(channels) == [101] and channels[101].title == "Первый демо" and channels[101].duration is None
    assert {image.profile for image in channels[101].images} == {"IMAGE", "MAIN"}
