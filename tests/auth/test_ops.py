"""The auth service's operator commands against the emulated account."""

import json

import pytest

from ops.auth import clients as auth_clients
from ops.auth import legacy_import as auth_legacy_import
from ops.auth import users as auth_users
from ott.auth.crypto import token_hash
from ott.auth.records import AccessToken, Client, Credentials
from ott.auth.store import auth_store
from tests.fixtures.moto import invoke

TARGET = ["--table", "AuthTable", "--audit-table", "AuditTable"]


def test_a_client_is_created_and_its_secret_shown_once_and_stored_as_a_hash(aws, capsys):
    argv = ["tv-android", "--name", "TV app", "--grant", "vendor:anonymous", "--grant", "refresh_token"]
    assert auth_clients.main([*argv, *TARGET]) == 0
    secret = capsys.readouterr().out.split("client_secret: ")[1].split()[0]
    stored = auth_store().get(Client, "tv-android")
    assert stored.secret_hash == token_hash(secret) and secret not in repr(stored)
    assert auth_clients.main([*argv, *TARGET]) == 2  # exists already
    form = f"grant_type=vendor%3Aanonymous&client_id=tv-android&client_secret={secret}"
    assert invoke("auth/token", body=form)["statusCode"] == 200


def test_a_client_needs_a_redirect_uri_for_codes(aws, capsys):
    assert auth_clients.main(["web-site", "--name", "Web", "--grant", "authorization_code", *TARGET]) == 2
    assert "redirect URI" in capsys.readouterr().err


def test_a_resource_server_is_registered_without_grants_and_may_introspect(aws, capsys):
    """Issue 19: the stream-authorization component only asks about tokens; a client without grants is refused
    unless it is a resource server."""
    with pytest.raises(SystemExit):
        auth_clients.main(["stream-auth", "--name", "Streams", *TARGET])
    assert "--resource-server" in capsys.readouterr().err
    argv = ["stream-auth", "--name", "Streams", "--resource-server", *TARGET]
    assert auth_clients.main(argv) == 0
    secret = capsys.readouterr().out.split("client_secret: ")[1].split()[0]
    stored = auth_store().get(Client, "stream-auth")
    assert stored.resource_server and stored.grant_types == []
    reply = invoke("auth/introspect", body=f"token=nothing&client_id=stream-auth&client_secret={secret}")
    assert reply["statusCode"] == 200 and reply["body"] == '{"active":false}'


def test_a_user_is_created_with_a_password_read_from_the_terminal(aws, monkeypatch, capsys):
    monkeypatch.setattr(auth_users.getpass, "getpass", lambda prompt: "correct horse battery")
    assert auth_users.main(["someone@example.com", "--cid", "42", *TARGET]) == 0
    credentials = auth_store().get(Credentials, "someone@example.com")
    assert credentials.password_hash.startswith("scrypt$") and "correct horse" not in credentials.password_hash


def test_an_accounts_staff_scopes_and_home_are_changed_without_a_password(aws, monkeypatch, capsys):
    from ott.auth.records import Account

    monkeypatch.setattr(auth_users.getpass, "getpass", lambda prompt: "correct horse battery")
    target = TARGET
    assert (
        auth_users.main(["mod@example.com", "--staff-scope", "launcher_moderation", "--contractor", "1", *target]) == 0
    )
    monkeypatch.setattr(auth_users.getpass, "getpass", lambda prompt: pytest.fail("no password is asked"))
    assert auth_users.main(["MOD@example.com", "--update", "--territory", "5", "--no-staff-scope", *target]) == 0
    account_id = auth_store().get(Credentials, "mod@example.com").account_id
    account = auth_store().get(Account, str(account_id))
    assert (account.contractor_id, account.territory_id, account.staff_scopes) == (1, 5, [])
    assert (
        auth_users.main(["mod@example.com", "--update", "--no-home", "--staff-scope", "launcher_moderation", *target])
        == 0
    )
    account = auth_store().get(Account, str(account_id))
    assert (account.contractor_id, account.territory_id, account.staff_scopes) == (None, None, ["launcher_moderation"])
    assert auth_users.main(["nobody@example.com", "--update", "--no-home", *target]) == 2
    assert "no account signs in as nobody@example.com" in capsys.readouterr().err


def test_legacy_tokens_are_imported_and_convert_on_first_refresh(demo, tmp_path, capsys):
    legacy = tmp_path / "v1.jsonl"
    lines = [
        {"token": "v1-token-without-expiry", "account_id": 1001, "client_id": "demo-tv"},
        {"token": "v1-token-with-expiry", "account_id": 1002, "client_id": "demo-tv", "expires_at": 4_102_444_800},
    ]
    legacy.write_text("\n".join(json.dumps(line) for line in lines), encoding="utf-8")
    assert auth_legacy_import.main([str(legacy), *TARGET]) == 0
    assert "imported 2 tokens" in capsys.readouterr().out
    assert auth_store().get(AccessToken, token_hash("v1-token-without-expiry")).expires_at is None

    def refresh(token):
        body = f"grant_type=refresh_token&client_id=demo-tv&client_secret=demo-tv-secret&refresh_token={token}"
        return invoke("auth/token", body=body)

    converted = refresh("v1-token-without-expiry")
    assert converted["statusCode"] == 200
    assert json.loads(converted["body"])["refresh_token"] == "v1-token-without-expiry"
    assert auth_store().get(AccessToken, token_hash("v1-token-without-expiry")) is None
    assert refresh("v1-token-with-expiry")["statusCode"] == 401


def test_a_broken_legacy_file_imports_nothing(aws, tmp_path, capsys):
    legacy = tmp_path / "v1.jsonl"
    legacy.write_text('{"token": "a", "account_id": 1, "client_id": "x"}\n{"token": ', encoding="utf-8")
    assert auth_legacy_import.main([str(legacy), *TARGET]) == 2
    assert "line 2" in capsys.readouterr().err
    assert auth_store().get(AccessToken, token_hash("a")) is None


def test_operator_text_an_xml_reply_cannot_carry_is_refused(aws, monkeypatch, tmp_path, capsys):
    argv = ["tv-android", "--name", "TV\x00app", "--grant", "vendor:anonymous", *TARGET]
    assert auth_clients.main(argv) == 2
    assert "name: character U+0000 is not allowed" in capsys.readouterr().err
    assert auth_store().get(Client, "tv-android") is None
    monkeypatch.setattr(auth_users.getpass, "getpass", lambda prompt: "correct horse battery")
    assert auth_users.main(["some\x1bone@example.com", *TARGET]) == 2
    legacy = tmp_path / "v1.jsonl"
    legacy.write_text('{"token": "a", "account_id": 1, "client_id": "tv\\ufffe"}\n', encoding="utf-8")
    assert auth_legacy_import.main([str(legacy), *TARGET]) == 2
    assert "U+FFFE" in capsys.readouterr().err
    assert auth_store().get(AccessToken, token_hash("a")) is None


def test_the_operator_sets_an_account_s_limit_of_concurrent_streams_audited(demo, capsys):
    """Issue 29: the demo subscriber's limit, 2 by default, set to 3 and back, each change in the audit trail."""
    from local.seed import demo_xtream_login
    from ops.auth import xtream_limit
    from ott.audit import audit_log
    from ott.staff import Area

    account_id = auth_store().get(Credentials, "demo@example.com").account_id
    target = ["--table", "AuthTable", "--audit-table", "AuditTable", "--by", "ops-person"]
    assert xtream_limit.main([str(account_id), "--max", "3", *target]) == 0
    username, password = demo_xtream_login()
    info = json.loads(invoke("channels/xtream_player_api", query={"username": username, "password": password})["body"])
    assert info["user_info"]["max_connections"] == "3"
    assert xtream_limit.main([str(account_id), "--default", *target]) == 0
    info = json.loads(invoke("channels/xtream_player_api", query={"username": username, "password": password})["body"])
    assert info["user_info"]["max_connections"] == "2"
    entries = audit_log().entries(Area.CHANNELS, 10).entries
    assert [(entry.actor, entry.after) for entry in entries] == [
        ("ops-person", {"max_connections": None}),
        ("ops-person", {"max_connections": 3}),
    ]
    assert xtream_limit.main(["12345", "--max", "3", *target]) == 2
    assert "no account 12345" in capsys.readouterr().err
