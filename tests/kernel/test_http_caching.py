"""Cacheable replies (issues 8-10): strong ETag, 304 on If-None-Match, the route's Cache-Control and Vary; issue 29:
Last-Modified from the data's time and 304 on If-Modified-Since, as RFC 9110 §13 has them."""

from datetime import UTC, datetime, timedelta, timezone

import pytest
from pydantic import BaseModel

from local.invoke import context
from ott.http.caching import NO_STORE, CachePolicy, http_date, last_modified, matches, strong_etag
from ott.http.handler import api_handler
from ott.http.request import ApiRequest, Reply


class Greeting(BaseModel):
    text: str


POLICY = CachePolicy(max_age=60, vary=("Accept-Language",))


@api_handler(reply=Greeting, cache=POLICY)
def cached(request: ApiRequest) -> Greeting:
    return Greeting(text="привет")


@api_handler(reply=Greeting, cache=POLICY)
def private(request: ApiRequest) -> Reply:
    return Reply(Greeting(text="secret"), headers={"Cache-Control": NO_STORE})


# When the data a reply is made of last changed; a reply gives it to the second.
CHANGED = datetime(2026, 3, 1, 12, 30, 15, 999_000, tzinfo=UTC)
CHANGED_DATE = "Sun, 01 Mar 2026 12:30:15 GMT"


@api_handler(reply=Greeting, cache=POLICY)
def dated(request: ApiRequest) -> Reply:
    return Reply(Greeting(text="привет"), headers=last_modified(CHANGED))


def call(handler, headers=None, method="GET"):
    event = {"path": "/x.json", "httpMethod": method, "headers": headers or {}, "queryStringParameters": None}
    return handler(event, context("cached"))


def test_a_cacheable_reply_carries_policy_and_a_strong_etag_of_its_body():
    reply = call(cached)
    assert reply["statusCode"] == 200
    assert reply["headers"]["Cache-Control"] == "public, max-age=60"
    assert reply["headers"]["Vary"] == "Accept-Language"
    assert reply["headers"]["ETag"] == strong_etag(reply["body"])
    assert not reply["headers"]["ETag"].startswith("W/")


def test_a_matching_if_none_match_gets_304_without_a_body():
    etag = call(cached)["headers"]["ETag"]
    reply = call(cached, {"If-None-Match": f'"other", {etag}'})
    assert reply["statusCode"] == 304
    assert reply["body"] == ""
    assert reply["headers"]["ETag"] == etag
    assert "Content-Type" not in reply["headers"]


def test_a_stale_etag_gets_the_full_reply():
    reply = call(cached, {"If-None-Match": '"stale"'})
    assert reply["statusCode"] == 200
    assert "привет" in reply["body"]


def test_a_private_reply_is_never_answered_304():
    etag = call(private)["headers"]["ETag"]
    reply = call(private, {"If-None-Match": etag})
    assert reply["statusCode"] == 200
    assert reply["headers"]["Cache-Control"] == NO_STORE


def test_if_none_match_comparison_is_weak_and_star_matches():
    assert matches('W/"a"', '"a"')
    assert matches("*", '"a"')
    assert not matches('"b"', '"a"')
    assert not matches(None, '"a"')


def test_last_modified_is_the_data_s_time_as_an_http_date_to_the_second():
    assert last_modified(CHANGED) == {"Last-Modified": CHANGED_DATE}
    moscow = CHANGED.astimezone(timezone(timedelta(hours=3)))
    assert last_modified(moscow) == {"Last-Modified": CHANGED_DATE}  # always GMT
    assert last_modified(None) == {}  # not known: no date rather than "now"
    assert last_modified(datetime.now(UTC) + timedelta(minutes=1)) == {}  # never later than the reply (§8.8.2.1)


@pytest.mark.parametrize(
    "text",
    [CHANGED_DATE, "Sunday, 01-Mar-26 12:30:15 GMT", "Sun Mar  1 12:30:15 2026"],
    ids=["IMF", "RFC850", "asctime"],
)
def test_an_http_date_is_read_in_its_three_forms(text):
    assert http_date(text) == CHANGED.replace(microsecond=0)


def test_a_dated_reply_is_304_for_if_modified_since_at_or_after_its_last_modified_and_200_before():
    first = call(dated)
    assert (first["statusCode"], first["headers"]["Last-Modified"]) == (200, CHANGED_DATE)
    same = call(dated, {"If-Modified-Since": CHANGED_DATE})
    assert (same["statusCode"], same["body"]) == (304, "")
    assert {name: same["headers"][name] for name in ("ETag", "Last-Modified", "Cache-Control", "Vary")} == {
        "ETag": first["headers"]["ETag"],
        "Last-Modified": CHANGED_DATE,
        "Cache-Control": "public, max-age=60",
        "Vary": "Accept-Language",
    }
    assert "Content-Type" not in same["headers"]
    assert call(dated, {"If-Modified-Since": "Mon, 02 Mar 2026 00:00:00 GMT"})["statusCode"] == 304
    earlier = call(dated, {"If-Modified-Since": "Sun, 01 Mar 2026 12:30:14 GMT"})
    assert earlier["statusCode"] == 200 and "привет" in earlier["body"]


def test_if_none_match_takes_precedence_over_if_modified_since():
    etag = call(dated)["headers"]["ETag"]
    assert call(dated, {"If-None-Match": '"other"', "If-Modified-Since": CHANGED_DATE})["statusCode"] == 200
    old_date = "Thu, 01 Jan 2026 00:00:00 GMT"
    assert call(dated, {"If-None-Match": etag, "If-Modified-Since": old_date})["statusCode"] == 304


@pytest.mark.parametrize(
    ("handler", "headers", "method"),
    [
        (dated, {"If-Modified-Since": "yesterday"}, "GET"),  # not an HTTP-date
        (cached, {"If-Modified-Since": CHANGED_DATE}, "GET"),  # a reply without a date
        (dated, {"If-Modified-Since": CHANGED_DATE}, "POST"),  # §13.1.3: only GET and HEAD
    ],
    ids=["not a date", "no Last-Modified", "POST"],
)
def test_if_modified_since_is_ignored_where_rfc_9110_says_so(handler, headers, method):
    assert call(handler, headers, method)["statusCode"] == 200
