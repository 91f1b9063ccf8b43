"""The launcher over HTTP, as `make run` serves it: every combination of the methods' parameters in json and
xml, with no token, a subscriber's, a moderator's and a bad one; clicks sent by the operator command reach the
statistics through the queue; loads and approvals with `--local` (issue 9)."""

import itertools
import time

import pytest
import requests
from defusedxml.ElementTree import fromstring

from local.sign_in import access_token
from tests.ops.test_commands_local import run_ops

TOKENS = ("none", "subscriber", "moderator", "bad")


@pytest.fixture(scope="module")
def tokens(stack) -> dict[str, str | None]:
    anonymous = {"grant_type": "vendor:anonymous", "client_id": "demo-tv", "client_secret": "demo-tv-secret"}
    subscriber = requests.post(f"{stack.url}/auth/2/token", data=anonymous, timeout=10).json()["access_token"]
    moderator = access_token(
        stack.url, "demo-staff", "demo-staff-secret", "moderator@example.com", "moderator-password"
    )
    return {"none": None, "subscriber": subscriber, "moderator": moderator, "bad": "wrong-token"}


def expected_status(token: str, moderation: bool, statistics: bool, time_travel: str | None) -> int:
    if token == "bad":
        return 401
    if time_travel is not None and not statistics:
        return 400
    if (moderation or statistics) and token != "moderator":
        return 403
    return 200


def posters_of(reply: requests.Response, fmt: str) -> list[dict]:
    """The posters of a reply (a collection's members for `poster`) as id -> whether they carry statistics
    and a moderation mark."""
    if fmt == "json":
        data = reply.json()
        top = data["posters"] if "posters" in data else [data, *data["attached_posters"], *data["related_posters"]]
        return [{"id": p["id"], "statistics": "statistics" in p, "moderation": "moderation" in p} for p in top]
    root = fromstring(reply.content)
    top = root.findall("posters") if root.tag == "PosterList" else [root, *root.findall("attached_posters")]
    return [
        {
            "id": int(p.findtext("id")),
            "statistics": p.find("statistics") is not None,
            "moderation": p.find("moderation") is not None,
        }
        for p in top
    ]


COMBINATIONS = list(
    itertools.product(
        ("posters", "poster"),
        ("json", "xml"),
        (False, True),  # moderation
        (False, True),  # statistics
        (None, "iso", "epoch"),  # time_travel
        TOKENS,
    )
)


@pytest.mark.parametrize(("method", "fmt", "moderation", "statistics", "travel", "token"), COMBINATIONS)
def test_every_parameter_combination_in_json_and_xml(stack, tokens, method, fmt, moderation, statistics, travel, token):
    query: dict[str, str] = {"id": "5"} if method == "poster" else {}
    if moderation:
        query["moderation"] = "true"
    if statistics:
        query["statistics"] = "true"
    moment = {None: None, "iso": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "epoch": str(int(time.time()))}[
        travel
    ]
    if moment is not None:
        query["time_travel"] = moment
    headers = {"Authorization": f"Bearer {tokens[token]}"} if tokens[token] else {}
    reply = requests.get(f"{stack.url}/launcher/1/{method}.{fmt}", params=query, headers=headers, timeout=30)
    status = expected_status(token, moderation, statistics, moment)
    assert reply.status_code == status, reply.text
    assert reply.headers["Content-Type"].startswith(f"application/{fmt}")
    if status == 401:
        assert 'error="invalid_token"' in reply.headers["WWW-Authenticate"]
        return
    if status == 403:
        assert 'error="insufficient_scope"' in reply.headers["WWW-Authenticate"]
        return
    if status != 200:
        return
    shown = posters_of(reply, fmt)
    assert all(poster["statistics"] == statistics for poster in shown)
    waiting = [poster for poster in shown if poster["id"] == 7]
    assert bool(waiting) == moderation  # the poster awaiting moderation, for moderators only
    assert all(poster["moderation"] == (poster["id"] == 7) for poster in shown)
    assert ("X-Snapshot-Taken-At" in reply.headers) == (moment is not None)
    private = moderation or statistics
    assert reply.headers["Cache-Control"] == ("private, no-store" if private else "private, max-age=60")
    assert reply.headers["ETag"] == f'"{reply.headers["X-Snapshot-Hash"]}"'


def test_a_public_reply_is_304_for_the_client_holding_it(stack):
    first = requests.get(f"{stack.url}/launcher/1/posters.json", timeout=10)
    again = requests.get(
        f"{stack.url}/launcher/1/posters.json", headers={"If-None-Match": first.headers["ETag"]}, timeout=10
    )
    assert again.status_code == 304 and again.content == b""


def test_the_token_may_come_as_the_access_token_parameter_without_its_staff_scope(stack, tokens):
    """RFC 6750's query parameter identifies the caller, but a staff scope comes only in the Authorization header
    (issue 28, finding 9: a URL ends up in logs and histories); the header opens the moderation view."""
    moderation = {"moderation": "true"}
    reply = requests.get(
        f"{stack.url}/launcher/1/posters.json", params={"access_token": tokens["moderator"], **moderation}, timeout=10
    )
    assert reply.status_code == 403
    header = {"Authorization": f"Bearer {tokens['moderator']}"}
    reply = requests.get(f"{stack.url}/launcher/1/posters.json", params=moderation, headers=header, timeout=10)
    assert reply.status_code == 200 and 7 in [poster["id"] for poster in reply.json()["posters"]]
    bad = requests.get(f"{stack.url}/launcher/1/posters.xml", params={"access_token": "expired"}, timeout=10)
    assert bad.status_code == 401 and fromstring(bad.content).findtext("error") == "invalid_token"


def test_the_demo_telecast_poster_opens_the_demo_guide_s_next_news(stack):
    """Issue 9, demo data: a telecast of the demo guide, which a client opens from the poster."""
    poster = requests.get(f"{stack.url}/launcher/1/posters.json", timeout=10).json()["posters"][0]
    assert poster["type"] == "TELECAST"
    info = requests.get(
        f"{stack.url}/tvguide/2/telecastInfo.json", params={"telecast": poster["telecast_id"]}, timeout=10
    ).json()
    (telecast,) = info["telecastsList"]
    assert telecast["title"] == poster["title"] and telecast["channel"]["channelId"] == poster["channel_id"]


def statistics_of(stack, tokens, poster_id: int) -> dict:
    reply = requests.get(
        f"{stack.url}/launcher/1/posters.json",
        params={"statistics": "true"},
        headers={"Authorization": f"Bearer {tokens['moderator']}"},
        timeout=10,
    )
    return next(poster["statistics"] for poster in reply.json()["posters"] if poster["id"] == poster_id)


def test_clicks_sent_by_the_operator_command_reach_the_statistics_through_the_queue(stack, tokens):
    shown = requests.get(f"{stack.url}/launcher/1/posters.json", timeout=10).headers["X-Snapshot-Hash"]
    before = statistics_of(stack, tokens, 10)
    sent = run_ops(stack, "ops.launcher.clicks", "--poster", "10", "--snapshot", shown, "--count", "3", "--local")
    assert sent.returncode == 0, sent.stderr
    deadline = time.monotonic() + 30
    while statistics_of(stack, tokens, 10)["count_total"] < before["count_total"] + 3 and time.monotonic() < deadline:
        time.sleep(0.2)
    after = statistics_of(stack, tokens, 10)
    assert after["count_total"] == before["count_total"] + 3
    assert after["count_daily"] == before["count_daily"] + 3
    assert after["count_hash"] == before["count_hash"] + 3  # the moderator's home sees what 127.0.0.1 sees
    refused = run_ops(stack, "ops.launcher.clicks", "--poster", "10", "--snapshot", "short", "--local")
    assert refused.returncode == 2 and "nothing sent" in refused.stderr


@pytest.mark.slow
def test_load_check_moderate_with_local(stack, tmp_path):
    from tests.conftest import ROOT

    broken = tmp_path / "broken.yaml"
    broken.write_text("posters:\n  - {id: 1, type: FILM}\n  - {id: 1, type: COLLECTION, attached_posters: [9]}\n")
    refused = run_ops(stack, "ops.launcher.load", str(broken), "--local")
    assert refused.returncode == 2
    assert "posters[0].film_id" in refused.stderr and "posters[1].attached_posters: unknown poster 9" in refused.stderr
    checked = run_ops(stack, "ops.launcher.load", str(ROOT / "local/demo/launcher.yaml"), "--check", "--local")
    assert checked.returncode == 0 and "valid: 12 posters" in checked.stdout, checked.stderr
    pending = run_ops(stack, "ops.launcher.moderate", "pending", "--local")
    assert pending.returncode == 0 and pending.stdout.startswith("7\tNOTIFICATION")
    approved = run_ops(stack, "ops.launcher.moderate", "approve", "7", "--by", "olga", "--local")
    assert approved.returncode == 0, approved.stderr
    assert 7 in [p["id"] for p in requests.get(f"{stack.url}/launcher/1/posters.json", timeout=10).json()["posters"]]
    reloaded = run_ops(stack, "ops.launcher.load", str(ROOT / "local/demo/launcher.yaml"), "--local")
    assert reloaded.returncode == 0 and "loaded: 12 posters" in reloaded.stdout, reloaded.stderr
    assert "approved by olga" in run_ops(stack, "ops.launcher.moderate", "pending", "--local").stdout
