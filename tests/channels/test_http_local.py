"""GET /channels over HTTP as `make run` serves it (issue 10): API keys enforced as API Gateway does, the
demo configuration, ETag and 304, and the operator's loader and rollback with --local."""

import pytest
import requests
import yaml

from tests.conftest import ROOT
from tests.ops.test_commands_local import run_ops

DEMO_KEYS = yaml.safe_load((ROOT / "local" / "demo" / "api_keys.yaml").read_text(encoding="utf-8"))["keys"]
STREAM_AUTH_KEY = {"x-api-key": "demo-stream-auth-key"}


@pytest.mark.parametrize(
    "headers",
    [
        {},
        {"x-api-key": ""},
        {"x-api-key": "wrong-key"},
        {"x-api-key": "DEMO-STREAM-AUTH-KEY"},
        {"api-key": "demo-stream-auth-key"},
    ],
    ids=["no key", "empty key", "wrong key", "wrong case of the value", "another header"],
)
def test_a_key_required_route_is_403_without_a_valid_key(stack, headers):
    reply = requests.get(f"{stack.url}/channels", headers=headers, timeout=10)
    assert reply.status_code == 403
    assert reply.json() == {
        "error": "forbidden",
        "error_description": "a valid API key is required in the x-api-key header",
    }


def test_the_stream_authorization_key_opens_it_in_any_case_of_the_header_name(stack):
    for name in ("x-api-key", "X-API-Key"):
        reply = requests.get(f"{stack.url}/channels", headers={name: "demo-stream-auth-key"}, timeout=10)
        assert reply.status_code == 200, reply.text
        assert reply.headers["Content-Type"] == "application/json; charset=UTF-8"


def test_an_encoders_key_is_refused_on_channels(stack):
    """Security review: a valid key of the usage plan opens only its own service's routes."""
    reply = requests.get(f"{stack.url}/channels", headers={"x-api-key": "demo-encoder-key"}, timeout=10)
    assert reply.status_code == 403
    assert reply.json() == {"error": "forbidden", "error_description": "this API key is not allowed on this route"}


def test_routes_without_the_requirement_need_no_key(stack):
    assert requests.get(f"{stack.url}/registry/2/whereami.json", timeout=10).status_code == 200


def test_the_banner_prints_the_demo_keys(stack):
    banner = stack.output.read_text(encoding="utf-8")
    assert all(entry["value"] in banner for entry in DEMO_KEYS)
    assert f"curl -H 'x-api-key: demo-stream-auth-key' {stack.url}/channels" in banner


def test_the_demo_configuration_shares_the_shape_the_issue_asks_for(stack):
    reply = requests.get(f"{stack.url}/channels", headers=STREAM_AUTH_KEY, timeout=10).json()
    streams = [stream for channel in reply["channels"] for stream in channel["streams"]]
    assert len(reply["channels"]) >= 5
    assert {"HLS", "HLS_VARIANT", "UDP", "RAW"} <= {stream["type"] for stream in streams}
    assert any(s["type"] == "HLS" and s.get("has_timeshift") and s.get("recordable") for s in streams)
    assert any(s["type"] == "HLS_VARIANT" and len(s.get("substreams", [])) == 3 for s in streams)
    assert "TESTING" in {channel.get("status") for channel in reply["channels"]}
    assert len(reply["categories"]) >= 2 and reply["settings"]
    assert any("user_agents" in stream for stream in streams)


def test_etag_and_304_over_http(stack):
    first = requests.get(f"{stack.url}/channels", headers=STREAM_AUTH_KEY, timeout=10)
    etag = first.headers["ETag"]
    again = requests.get(f"{stack.url}/channels", headers={**STREAM_AUTH_KEY, "If-None-Match": etag}, timeout=10)
    assert again.status_code == 304
    assert again.content == b""
    assert again.headers["ETag"] == etag
    other = requests.get(f"{stack.url}/channels", headers={**STREAM_AUTH_KEY, "If-None-Match": '"other"'}, timeout=10)
    assert other.status_code == 200


@pytest.mark.slow
def test_a_load_with_local_is_served_and_rolled_back(stack, tmp_path):
    before = requests.get(f"{stack.url}/channels", headers=STREAM_AUTH_KEY, timeout=10)
    document = yaml.safe_load((ROOT / "local" / "demo" / "channels.yaml").read_text(encoding="utf-8"))
    document["title"] = "Загружено с --local"
    changed = tmp_path / "changed.yaml"
    changed.write_text(yaml.safe_dump(document, allow_unicode=True), encoding="utf-8")
    loaded = run_ops(stack, "ops.channels.load", str(changed), "--local")
    assert loaded.returncode == 0, loaded.stderr
    after = requests.get(
        f"{stack.url}/channels", headers={**STREAM_AUTH_KEY, "If-None-Match": before.headers["ETag"]}, timeout=10
    )
    assert after.status_code == 200
    assert after.json()["title"] == "Загружено с --local"
    rolled = run_ops(stack, "ops.channels.load", "--rollback", "--local")
    assert rolled.returncode == 0, rolled.stderr
    restored = requests.get(f"{stack.url}/channels", headers=STREAM_AUTH_KEY, timeout=10)
    assert restored.content == before.content
    assert restored.headers["ETag"] == before.headers["ETag"]
