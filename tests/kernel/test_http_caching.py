"""Cacheable replies (issues 8-10): strong ETag, 304 on If-None-Match, the route's Cache-Control and Vary."""

from pydantic import BaseModel

from local.invoke import context
from ott.http.caching import NO_STORE, CachePolicy, matches, strong_etag
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


def call(handler, headers=None):
    event = {"path": "/x.json", "httpMethod": "GET", "headers": headers or {}, "queryStringParameters": None}
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
