"""`make run`: the registry served over real HTTP from template.yaml's routes, with demo data."""

import re
import signal
import socket
import time
from concurrent.futures import ThreadPoolExecutor
from email.utils import parsedate_to_datetime

import pytest
import requests
from openapi_spec_validator import validate

from local.template import TEMPLATE as TEMPLATE_FILE
from tests.conftest import TEMPLATE
from tests.fixtures.stack import SHARED_STACK_SETTINGS, start_stack

PARALLEL = 50


def test_the_banner_names_the_base_url_and_every_service(stack):
    banner = stack.output.read_text()
    assert f"OTT platform local stack on {stack.url}" in banner
    assert f"{stack.url}/registry/" in banner


def raw_get(url: str, target: bytes) -> requests.Response:
    """A GET whose request line carries `target` byte for byte, as curl sends a URL typed with Cyrillic in it
    (requests would percent-encode it)."""
    host, port = url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=30) as connection:
        connection.sendall(b"GET " + target + b" HTTP/1.1\r\nHost: " + host.encode() + b"\r\nConnection: close\r\n\r\n")
        reply = b"".join(iter(lambda: connection.recv(65536), b""))
    head, _, body = reply.partition(b"\r\n\r\n")
    answer = requests.Response()
    answer.status_code = int(head.split()[1])
    answer._content = body
    return answer


def test_raw_utf8_in_a_query_is_read_as_api_gateway_reads_it(stack):
    """The README's own example: `territories.xml?q=королев` typed as is finds Королёв, as the percent-encoded
    query does (the request line reached the gateway as latin-1 and found nothing)."""
    encoded = requests.get(
        f"{stack.url}/registry/2/territories.json?q=%D0%BA%D0%BE%D1%80%D0%BE%D0%BB%D0%B5%D0%B2&parents=2", timeout=30
    )
    raw = raw_get(stack.url, "/registry/2/territories.json?q=королев&parents=2".encode())
    assert raw.status_code == encoded.status_code == 200
    assert raw.json() == encoded.json()
    assert [territory["name"] for territory in raw.json()["territories"]] == ["Королёв"]
    xml = raw_get(stack.url, "/registry/2/territories.xml?q=королев&parents=2".encode())
    assert "<name>Королёв</name>" in xml.content.decode()


def test_the_console_prints_a_line_per_request_and_no_metrics_unless_asked(stack):
    requests.get(f"{stack.url}/registry/2/whereami.json", timeout=30)
    requests.get(f"{stack.url}/nowhere/at-all", timeout=30)
    console = stack.output.read_text()
    whereami = next(f.logical_id for f in TEMPLATE.functions() if f.module == "functions.registry.whereami.app")
    assert re.search(rf"^GET /registry/2/whereami\.json 200 \d+ ms {whereami}$", console, re.MULTILINE)
    assert re.search(r"^GET /nowhere/at-all 404 \d+ ms gateway MISSING_AUTHENTICATION_TOKEN$", console, re.MULTILINE)
    assert '"_aws"' not in console  # CloudWatch metric blobs: only with LOG_LEVEL=DEBUG


def test_whereami_maps_the_local_machine_to_the_demo_contractor(stack):
    reply = requests.get(f"{stack.url}/registry/2/whereami.json", timeout=10)
    assert reply.status_code == 200
    answer = reply.json()
    assert answer["contractor"]["brandName"] == "Демо ТВ"
    assert answer["territories"][0]["name"] == "Москва"
    assert answer["ipAddress"] == "127.0.0.1"
    # The registry points at the services of this very stack.
    locations = {s["type"]: s["apiVersions"][0]["location"] for s in answer["services"]}
    assert locations["registry"] == f"{stack.url}/registry/2/"
    assert locations["auth"] == f"{stack.url}/auth/2/"


def test_every_reply_carries_a_date_header(stack):
    for path in ["/registry/2/territories.xml", "/registry/2/prefixes.json", "/registry/2/nothing.json", "/nowhere"]:
        reply = requests.get(f"{stack.url}{path}", timeout=10)
        assert parsedate_to_datetime(reply.headers["Date"]).tzinfo is not None, path
    assert requests.get(f"{stack.url}/nowhere", timeout=10).status_code == 404


def test_known_info_over_http_in_xml(stack):
    # knownInfo is limited per address: this test's caller has an address of its own (the shared stack believes
    # X-Forwarded-For from loopback), where every other test is 127.0.0.1.
    assert stack.trusts_forwarded_for
    body = "<KnownInfo><contractorName>Новый</contractorName><parentTerritoryId>1</parentTerritoryId></KnownInfo>"
    own = {"X-Forwarded-For": "198.51.100.201"}
    reply = requests.post(f"{stack.url}/registry/2/knownInfo.xml", data=body.encode(), headers=own, timeout=60)
    assert reply.status_code == 201
    assert "<KnownInfoReceipt><id>" in reply.text


def test_the_openapi_document_is_valid_and_covers_every_route(stack):
    document = requests.get(f"{stack.url}/openapi.json", timeout=10).json()
    validate(document)
    routes = {route.path.replace("+", "") for f in TEMPLATE.functions() for route in f.routes}
    assert routes == set(document["paths"])


@pytest.mark.parametrize("signal_number", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_ctrl_c_or_sigterm_stops_everything_within_two_seconds(tmp_path, signal_number):
    # As soon as it answers: the other services' demo data are loading meanwhile, and the stop waits for none.
    stack = start_stack(tmp_path / "output.log", loaded=False)
    port = int(stack.url.rsplit(":", 1)[1])
    assert stack.stop(signal_number, timeout=2) == 0  # the bound: raises TimeoutExpired beyond it
    with socket.socket() as probe:
        assert probe.connect_ex(("127.0.0.1", port)) != 0


def test_the_bearer_authorizer_answers_with_the_templates_gateway_responses(stack):
    account = f"{stack.url}/auth/2/account"
    missing = requests.get(account, timeout=10)
    assert missing.status_code == 401
    assert missing.headers["WWW-Authenticate"] == 'Bearer realm="ott"'  # no `error` when no token was sent
    wrong = requests.get(account, headers={"Authorization": "Bearer wrong"}, timeout=10)
    assert wrong.status_code == 401
    assert wrong.headers["WWW-Authenticate"] == 'Bearer realm="ott", error="invalid_token"'
    form = {"grant_type": "vendor:anonymous", "client_id": "demo-tv", "client_secret": "demo-tv-secret"}
    issued = requests.post(f"{stack.url}/auth/2/token", data=form, timeout=10).json()
    valid = requests.get(account, params={"access_token": issued["access_token"]}, timeout=10)
    assert valid.status_code == 200 and valid.json()["account_id"] > 0


def test_a_stale_token_on_a_public_route_is_answered_as_for_an_anonymous_caller(stack):
    stale = {"Authorization": "Bearer expired-or-wrong"}
    for path in ["/registry/2/whereami.json", "/registry/2/whereami.xml"]:
        anonymous = requests.get(f"{stack.url}{path}", timeout=10)
        with_stale = requests.get(f"{stack.url}{path}", headers=stale, timeout=10)
        assert with_stale.status_code == 200, with_stale.text
        assert with_stale.headers["Content-Type"] == anonymous.headers["Content-Type"]
    assert "<WhereAmI>" in with_stale.text


def test_gateway_errors_come_in_xml_to_a_client_that_accepts_it(stack):
    reply = requests.get(
        f"{stack.url}/auth/2/account",
        headers={"Authorization": "Bearer wrong", "Accept": "application/xml"},
        timeout=10,
    )
    assert reply.status_code == 401
    assert reply.headers["Content-Type"].startswith("application/xml")
    assert "<error>invalid_token</error>" in reply.text


def test_phone_confirmation_runs_end_to_end_and_the_outbox_shows_what_was_sent(stack):
    form = {"grant_type": "vendor:anonymous", "client_id": "demo-tv", "client_secret": "demo-tv-secret"}
    token = requests.post(f"{stack.url}/auth/2/token", data=form, timeout=10).json()["access_token"]
    bearer = {"Authorization": f"Bearer {token}"}
    started = requests.post(
        f"{stack.url}/phoneconfirm/2/confirm", json={"phone": "+79990000002"}, headers=bearer, timeout=10
    )
    request_id = started.json()["request_id"]
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        messages = requests.get(f"{stack.url}/_dev/outbox", params={"phone": "79990000002"}, timeout=10).json()[
            "messages"
        ]
        if messages:
            break
        time.sleep(0.2)
    latest = messages[0]
    assert (latest["channel"], latest["provider"]) == ("sms", "fake-sms-1") and len(latest["code"]) == 4
    checked = requests.post(
        f"{stack.url}/phoneconfirm/2/checkCode",
        json={"request_id": request_id, "code": latest["code"]},
        headers=bearer,
        timeout=10,
    )
    assert checked.json() == {"result": "ok"}
    assert requests.get(f"{stack.url}/_dev/outbox", params={"phone": "123"}, timeout=10).status_code == 400


def test_nothing_of_dev_is_in_the_deployed_template():
    assert "/_dev" not in (TEMPLATE_FILE).read_text()
    assert not any(route.path.startswith("/_dev") for f in TEMPLATE.functions() for route in f.routes)


def test_concurrent_requests_never_get_a_server_error(stack):
    # The shared stack has room for 50 anonymous accounts from 127.0.0.1 (tests.fixtures.stack.SHARED_STACK_SETTINGS).
    assert int(SHARED_STACK_SETTINGS["ANONYMOUS_ACCOUNTS_PER_IP_PER_HOUR"]) >= 1000
    form = {"grant_type": "vendor:anonymous", "client_id": "demo-tv", "client_secret": "demo-tv-secret"}

    def grant(_: int) -> requests.Response:
        return requests.post(f"{stack.url}/auth/2/token", data=form, timeout=60)

    def patch(token: str, volume: int) -> requests.Response:
        bearer = {"Authorization": f"Bearer {token}"}
        return requests.patch(
            f"{stack.url}/auth/2/account/data", json={"tree": {"volume": volume}}, headers=bearer, timeout=60
        )

    def refresh(issued: dict) -> requests.Response:
        fields = {**form, "grant_type": "refresh_token", "refresh_token": issued["refresh_token"]}
        return requests.post(f"{stack.url}/auth/2/token", data=fields, timeout=60)

    with ThreadPoolExecutor(max_workers=PARALLEL) as pool:
        grants = list(pool.map(grant, range(PARALLEL)))
        issued = [reply.json() for reply in grants if reply.status_code == 200]
        own_trees = [pool.submit(patch, token["access_token"], 7) for token in issued]
        one_tree = [pool.submit(patch, issued[0]["access_token"], volume) for volume in range(PARALLEL)]
        refreshes = [pool.submit(refresh, token) for token in issued]
        replies = [*grants, *(future.result() for future in [*own_trees, *one_tree, *refreshes])]
    assert len(issued) == PARALLEL
    assert [reply.status_code for reply in replies if reply.status_code >= 500] == []
