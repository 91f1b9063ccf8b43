"""The operator's console in a real browser (issue 20): Playwright driving Debian's Chromium against the worker's
scratch stack on the demo data. Each flow signs in through the auth service's login page (authorization code with
PKCE), does the thing, and sees its effect through the public API; a staff member without the area's scope cannot
do it. Every page passes axe-core without a serious or critical violation and without a CSP violation; the main
pages' screenshots are written to docs/console/ (linked from the README)."""

from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta

import pytest
import requests
import yaml
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import sync_playwright

from tests.conftest import DEMO_REGISTRY, ROOT
from tests.fixtures.stack import RunningStack

pytestmark = pytest.mark.browser
CHROMIUM = "/usr/bin/chromium"
SCREENSHOTS = ROOT / "docs" / "console"
STREAM_AUTH_KEY = {"x-api-key": "demo-stream-auth-key"}
DEMO_CHANNELS = ROOT / "local" / "demo" / "channels.yaml"


@pytest.fixture(scope="module")
def console_stack(scratch_stack) -> RunningStack:
    """The worker's scratch stack (tests/fixtures/stack.py), these flows first on it: they change the demo data (a
    poster approved, a channel version loaded) that the other local tests read."""
    return scratch_stack


@pytest.fixture(scope="module")
def browser() -> Iterator:
    with sync_playwright() as driver:
        launched = driver.chromium.launch(executable_path=CHROMIUM)
        yield launched
        launched.close()


class Console:
    """One staff member's browser tab on the console, collecting what the page's CSP refused."""

    def __init__(self, browser, url: str) -> None:
        self.context = browser.new_context(viewport={"width": 1280, "height": 900})
        self.page = self.context.new_page()
        self.url = url
        self.refused: list[str] = []
        self.bearer: str | None = None
        self.page.on("console", self._note_refusal)
        self.page.on("request", self._note_token)

    def _note_refusal(self, message) -> None:
        if "Content Security Policy" in message.text:
            self.refused.append(message.text)

    def _note_token(self, request) -> None:
        authorization = request.headers.get("authorization", "")
        if authorization.startswith("Bearer ") and "/staff/" in request.url:
            self.bearer = authorization

    def sign_in(self, username: str, password: str) -> None:
        self.page.goto(f"{self.url}/console/")
        self.page.get_by_role("button", name="Sign in").click()
        self.page.wait_for_url("**/auth/2/authorize**")
        self.page.fill("#login", username)
        self.page.fill("#password", password)
        self.page.click("button[value=login]")
        self.page.get_by_text("Signed in as").wait_for()
        assert "code=" not in self.page.url  # the code is spent and out of the address bar

    def check_accessibility(self, name: str | None = None) -> None:
        """No axe-core violation of impact serious or critical, no CSP refusal; a screenshot when named."""
        results = Axe().run(self.page)
        grave = [
            f"{violation['id']} ({violation['impact']}): {[node['target'] for node in violation['nodes']]}"
            for violation in results.response["violations"]
            if violation["impact"] in ("serious", "critical")
        ]
        assert grave == [], grave
        assert self.refused == []
        if name:
            SCREENSHOTS.mkdir(parents=True, exist_ok=True)
            self.page.screenshot(path=SCREENSHOTS / f"{name}.png", full_page=True)

    def close(self) -> None:
        self.context.close()


@pytest.fixture
def console(browser, console_stack) -> Iterator:
    opened: list[Console] = []

    def open_console() -> Console:
        opened.append(Console(browser, console_stack.url))
        return opened[-1]

    yield open_console
    for tab in opened:
        tab.close()


def served_title(url: str) -> str:
    return requests.get(f"{url}/channels", headers=STREAM_AUTH_KEY, timeout=30).json()["title"]


def test_the_sign_in_page_is_accessible_and_sends_no_token_anywhere(console):
    tab = console()
    tab.page.goto(f"{tab.url}/console/")
    tab.page.get_by_role("button", name="Sign in").wait_for()
    tab.check_accessibility("sign-in")
    assert tab.bearer is None


def test_signing_out_ends_the_sign_in_at_the_auth_service(console, console_stack):
    """Issue 28, finding 10: the console's sign-out revokes its refresh token (RFC 7009), so a copy of it taken
    from the browser before is worth nothing afterwards."""
    tab = console()
    with tab.page.expect_response(lambda reply: reply.url.endswith("/auth/2/token")) as issued:
        tab.sign_in("moderator@example.com", "moderator-password")
    refresh = issued.value.json()["refresh_token"]
    with tab.page.expect_response(lambda reply: reply.url.endswith("/auth/2/revoke")) as revoked:
        tab.page.get_by_role("button", name="Sign out").click()
    assert revoked.value.status == 200
    tab.page.get_by_role("button", name="Sign in").wait_for()
    form = {"grant_type": "refresh_token", "refresh_token": refresh, "client_id": "staff-console"}
    reply = requests.post(f"{console_stack.url}/auth/2/token", data=form, timeout=30)
    assert reply.status_code == 400 and reply.json()["error"] == "invalid_grant"


def test_a_moderator_approves_a_poster_and_the_public_sees_it(console, console_stack):
    public = requests.get(f"{console_stack.url}/launcher/1/posters.json", timeout=30).json()["posters"]
    assert 7 not in [poster["id"] for poster in public]
    tab = console()
    tab.sign_in("moderator@example.com", "moderator-password")
    card = tab.page.locator("li[data-poster='7']")
    card.get_by_text("Awaiting moderation").wait_for()
    tab.check_accessibility("launcher-moderation")
    card.get_by_label("Comment").fill("fine for the evening")
    card.get_by_role("button", name="Approve").click()
    card.get_by_text("Approved").wait_for()
    public = requests.get(f"{console_stack.url}/launcher/1/posters.json", timeout=30).json()["posters"]
    assert 7 in [poster["id"] for poster in public]

    tab.page.get_by_label("Contractor id").fill("1")
    tab.page.get_by_label("Territory id").fill("3")
    tab.page.get_by_role("button", name="Show the block").click()
    tab.page.get_by_role("button", name="Daily clicks of poster 3").click()
    tab.page.get_by_text("Clicks per day of poster 3").wait_for()
    tab.check_accessibility("launcher-audience")

    tab.page.goto(f"{tab.url}/console/#/launcher/audit")
    tab.page.get_by_role("cell", name="approve poster 7", exact=False).wait_for()
    tab.check_accessibility("launcher-audit")


def test_a_channel_engineer_loads_compares_and_rolls_back_and_get_channels_follows(console, console_stack, tmp_path):
    original = served_title(console_stack.url)
    document = yaml.safe_load(DEMO_CHANNELS.read_text(encoding="utf-8"))
    document["title"] = "Сетка из консоли"
    upload = tmp_path / "from-console.yaml"
    upload.write_text(yaml.safe_dump(document, allow_unicode=True), encoding="utf-8")
    broken = tmp_path / "broken.yaml"
    broken.write_text("title: x\ntitle: y\nchannels: []\n", encoding="utf-8")

    tab = console()
    tab.sign_in("channel-engineer@example.com", "channel-engineer-password")
    page = tab.page
    page.get_by_role("link", name="Channel configuration").wait_for()
    assert page.get_by_role("link", name="Launcher moderation").count() == 0  # not this staff member's area

    page.get_by_label("Configuration file").set_input_files(broken)
    page.get_by_role("button", name="Load as the new version").click()
    page.get_by_text("nothing was written").wait_for()
    page.get_by_text("key 'title' is written twice").wait_for()
    assert served_title(console_stack.url) == original

    page.get_by_label("Configuration file").set_input_files(upload)
    page.get_by_role("button", name="Load as the new version").click()
    page.get_by_text("Loaded as version 2").wait_for()
    assert served_title(console_stack.url) == "Сетка из консоли"
    page.get_by_role("button", name="Compare").click()
    page.get_by_text('"Сетка из консоли"').wait_for()
    tab.check_accessibility("channels")

    page.get_by_role("button", name="Make version 1 current").click()
    page.locator("tr[data-version='1']").get_by_text("(current)").wait_for()
    assert served_title(console_stack.url) == original
    page.goto(f"{tab.url}/console/#/channels/audit")
    page.get_by_role("cell", name="rollback version 1").wait_for()
    tab.check_accessibility("channels-audit")


def test_an_encoding_operator_retries_a_failed_item_and_encoders_are_given_it(console, console_stack):
    encoder = {"x-api-key": "demo-encoder-key"}
    listed = requests.get(f"{console_stack.url}/1/niche-content/list.json", headers=encoder, timeout=30).json()
    tab = console()
    tab.sign_in("encoding-operator@example.com", "encoding-operator-password")
    page = tab.page
    page.get_by_role("button", name="Failed, retried by the queue").click()
    row = page.locator("tr[data-item='demo-0056']")
    row.get_by_role("button", name="History of demo-0056").click()
    page.get_by_role("heading", name="History of demo-0056").wait_for()
    tab.check_accessibility("niche-content")
    row.get_by_role("button", name="Retry demo-0056").click()
    page.get_by_text("demo-0056 is awaiting encoding again.").wait_for()
    after = requests.get(f"{console_stack.url}/1/niche-content/list.json", headers=encoder, timeout=30).json()
    assert after["total"] == listed["total"] + 1


def test_a_guide_editor_sees_the_demo_zones_opens_a_report_and_creates_a_zone(console):
    tab = console()
    tab.sign_in("guide-editor@example.com", "guide-editor-password")
    page = tab.page
    moscow = page.locator("tr[data-zone='Europe/Moscow']")
    moscow.get_by_text("imported:").wait_for()  # its last import, from the demo guide
    moscow.get_by_role("button", name="Imports of Europe/Moscow").click()
    page.get_by_role("button", name="Report of Europe/Moscow/demo.xml").click()
    page.get_by_role("heading", name="Report of Europe/Moscow/demo.xml").wait_for()
    tab.check_accessibility("guide")

    page.get_by_label("Zone name", exact=True).fill("Europe/Minsk")
    page.get_by_role("button", name="Create the zone").click()
    page.get_by_text("Zone Europe/Minsk created (time zone Europe/Minsk).").wait_for()
    page.locator("tr[data-zone='Europe/Minsk']").get_by_text("none this week").wait_for()
    page.get_by_label("Zone name", exact=True).fill("Europe/Minsk")
    page.get_by_role("button", name="Create the zone").click()
    page.get_by_role("alert").get_by_text("zone 'Europe/Minsk' exists").wait_for()
    page.goto(f"{tab.url}/console/#/guide/audit")
    page.get_by_role("cell", name="create_zone zone Europe/Minsk").wait_for()
    tab.check_accessibility("guide-audit")


def test_a_guide_editor_opens_a_telecast_of_a_zones_day_grid_by_keyboard(console):
    tab = console()
    tab.sign_in("guide-editor@example.com", "guide-editor-password")
    page = tab.page
    page.get_by_role("link", name="Day grid").click()
    page.get_by_label("Zone", exact=True).select_option("Europe/Moscow")  # not the zones view's, still leaving
    page.get_by_text("Europe/Moscow on").wait_for()
    for channel in ("Perviy Demo", "Kinoyozhik", "Radio Mayak Demo"):  # the demo channels, titled in English
        page.get_by_role("rowheader", name=channel).wait_for()
    films = page.locator("tr[data-channel='103']")
    first = films.get_by_role("button", name="00:00 Yolki")
    first.focus()
    page.keyboard.press("Enter")
    details = page.get_by_role("dialog", name="Yolki")
    details.get_by_text("Новогодняя комедия").wait_for()
    details.get_by_text("00:00–01:50, 110 min").wait_for()
    details.get_by_text("6+").wait_for()
    tab.check_accessibility("guide-grid")
    page.keyboard.press("Escape")
    details.wait_for(state="detached")


def served_logo(url: str, channel: int) -> str | None:
    query = {"channel": channel, "fields": "logoURL"}
    return requests.get(f"{url}/tvguide/2/channels.json", params=query, timeout=30).json()["channels"][0].get("logoURL")


def test_a_guide_editor_saves_the_configuration_and_the_guide_serves_it(console, console_stack):
    logo = "https://static.demo-telecom.example/tv/103-edited.png"
    assert served_logo(console_stack.url, 103) != logo
    tab = console()
    tab.sign_in("guide-editor@example.com", "guide-editor-password")
    page = tab.page
    page.get_by_role("link", name="Configuration").click()
    page.get_by_text("Channel overrides: 7").wait_for()
    tab.check_accessibility("guide-configuration")
    page.get_by_label("XMLTV id of channel override 3", exact=True).wait_for()
    assert page.get_by_label("XMLTV id of channel override 3", exact=True).input_value() == "kinoyozh.demo"

    page.get_by_label("IANA time zone of zone 2", exact=True).fill("Mars/Olympus")
    page.get_by_label("Age of channel override 3", exact=True).fill("30")
    page.get_by_role("button", name="Save the configuration").click()
    problems = page.get_by_role("alert")
    problems.get_by_text("Not saved: 2 problems.").wait_for()
    problems.get_by_text("zones[1].timezone").wait_for()
    problems.get_by_text("channels[2].ageRestriction").wait_for()
    tab.check_accessibility()
    assert served_logo(console_stack.url, 103) != logo

    page.get_by_label("IANA time zone of zone 2", exact=True).fill("Europe/Moscow")
    page.get_by_label("Age of channel override 3", exact=True).fill("18")
    page.get_by_label("Logo URL of channel override 3", exact=True).fill(logo)
    page.get_by_role("button", name="Save the configuration").click()
    page.get_by_text("Saved as version").wait_for()
    assert served_logo(console_stack.url, 103) == logo

    other = console()  # a second editor saved meanwhile: this page's version is stale
    other.sign_in("chief@example.com", "chief-password")
    other.page.goto(f"{other.url}/console/#/guide/configuration")
    other.page.get_by_text("Channel overrides: 7").wait_for()
    page.get_by_role("button", name="Add a rubric").click()
    page.get_by_label("Id of rubric 5", exact=True).fill("5")
    page.get_by_label("Title of rubric 5", exact=True).fill("Спорт")
    page.get_by_role("button", name="Save the configuration").click()
    page.get_by_text("Saved as version 3.").wait_for()
    other.page.get_by_label("Title of rubric 4", exact=True).fill("Радио и подкасты")
    other.page.get_by_role("button", name="Save the configuration").click()
    other.page.get_by_role("alert").get_by_text("someone else saved the configuration").wait_for()


def uploaded_guide(path, day: date) -> None:
    """A guide of one programme on the demo's first channel at noon, Moscow time, on `day`."""
    start = f"{day:%Y%m%d}120000 +0300"
    stop = f"{day:%Y%m%d}130000 +0300"
    path.write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n<tv><channel id="perviy.demo"><display-name lang="ru">Первый демо'
        f'</display-name></channel><programme start="{start}" stop="{stop}" channel="perviy.demo">'
        '<title lang="ru">Загруженная передача</title></programme></tv>\n',
        encoding="utf-8",
    )


def scheduled_titles(url: str, day: date) -> list[str]:
    query = {"channel": 101, "geo": "Europe/Moscow", "dates": str(day)}
    telecasts = requests.get(f"{url}/tvguide/2/schedule.json", params=query, timeout=30).json()["telecastsList"]
    return [telecast.get("title") for telecast in telecasts]


def test_an_uploaded_guide_is_imported_followed_and_answers_schedule(console, console_stack, tmp_path):
    day = (datetime.now(UTC) + timedelta(hours=3)).date()  # Moscow's today (UTC+3 all year)
    assert "Загруженная передача" not in scheduled_titles(console_stack.url, day)
    guide = tmp_path / "uploaded.xml"
    uploaded_guide(guide, day)
    tab = console()
    tab.sign_in("guide-editor@example.com", "guide-editor-password")
    page = tab.page
    page.get_by_label("Into zone").select_option("Europe/Moscow")
    page.get_by_label("XMLTV file").set_input_files(guide)
    page.get_by_role("button", name="Upload and import").click()
    page.get_by_role("status").get_by_text("Imported: 1 channels, 1 telecasts.").wait_for(timeout=60_000)
    report = page.get_by_role("heading", name="Report of Europe/Moscow/")
    report.wait_for()
    assert report.inner_text().endswith("-uploaded.xml")
    tab.check_accessibility("guide-upload")
    assert "Загруженная передача" in scheduled_titles(console_stack.url, day)
    page.goto(f"{tab.url}/console/#/guide/audit")
    page.get_by_role("cell", name="upload_guide", exact=False).first.wait_for()


def test_a_registry_maintainer_browses_the_territories_and_a_contractors_prefixes(console):
    tab = console()
    tab.sign_in("registry-maintainer@example.com", "registry-maintainer-password")
    page = tab.page
    page.locator("summary", has_text="Россия").click()
    page.locator("summary", has_text="Центральный").wait_for()
    page.get_by_role("button", name="Демо Телеком").click()
    page.get_by_role("cell", name="127.0.0.0/8").wait_for()
    page.get_by_label("Registry file").set_input_files(DEMO_REGISTRY)
    page.get_by_role("button", name="Check only").click()
    page.get_by_text("Valid: 2 contractors, 9 territories").wait_for()
    tab.check_accessibility("registry")


def territory_name(url: str, territory_id: int) -> str:
    answer = requests.get(f"{url}/registry/2/territories.json", params={"id": territory_id}, timeout=30).json()
    return answer["territories"][0]["name"]


def test_a_registry_maintainer_loads_a_registry_file_and_clients_see_it(console, console_stack, tmp_path):
    document = yaml.safe_load(DEMO_REGISTRY.read_text(encoding="utf-8"))
    document["territories"][2]["name"] = "Москва из консоли"  # territory 3
    changed = tmp_path / "registry.yaml"
    changed.write_text(yaml.safe_dump(document, allow_unicode=True), encoding="utf-8")
    document["prefixes"].append({"CIDR": "192.0.2.0/24", "contractor": 42})
    broken = tmp_path / "broken.yaml"
    broken.write_text(yaml.safe_dump(document, allow_unicode=True), encoding="utf-8")

    tab = console()
    tab.sign_in("registry-maintainer@example.com", "registry-maintainer-password")
    page = tab.page
    page.get_by_label("Registry file").set_input_files(broken)
    page.get_by_role("button", name="Load as the registry").click()  # uploaded to the emulator's S3, then loaded
    page.get_by_text("The file has problems: nothing was written.").wait_for()
    page.get_by_text("unknown contractor 42").wait_for()
    assert territory_name(console_stack.url, 3) == "Москва"

    page.get_by_label("Registry file").set_input_files(changed)
    page.get_by_role("button", name="Load as the registry").click()
    page.get_by_text("Loaded: clients see the new registry.").wait_for(timeout=60_000)
    page.get_by_role("row", name="territories 9 9").wait_for()
    assert territory_name(console_stack.url, 3) == "Москва из консоли"
    tab.check_accessibility("registry-load")
    page.goto(f"{tab.url}/console/#/registry/audit")
    page.get_by_role("cell", name="load registry").wait_for()
    tab.check_accessibility()

    # A staff member without the registry scope: their own console's token is refused both routes.
    other = console()
    other.sign_in("channel-engineer@example.com", "channel-engineer-password")
    other.page.get_by_role("link", name="Channel configuration").wait_for()
    assert other.page.get_by_role("link", name="Registry").count() == 0
    for method, path in (("POST", "upload.json?source=r.yaml"), ("GET", "load.json?id=0123456789abcdef")):
        refused = requests.request(
            method, f"{console_stack.url}/staff/registry/{path}", headers={"Authorization": other.bearer}, timeout=30
        )
        assert refused.status_code == 403
        assert 'error="insufficient_scope", scope="registry_maintenance"' in refused.headers["WWW-Authenticate"]


def test_staff_without_the_areas_scope_cannot_do_it(console, console_stack):
    tab = console()
    tab.sign_in("moderator@example.com", "moderator-password")
    tab.page.goto(f"{tab.url}/console/#/channels")
    tab.page.get_by_role("heading", name="Launcher moderation").wait_for()  # the console shows only their areas
    assert tab.page.get_by_role("link", name="Channel configuration").count() == 0
    assert tab.bearer is not None
    for method, path in (("GET", "versions.json"), ("POST", "rollback.json")):
        refused = requests.request(
            method,
            f"{console_stack.url}/staff/channels/{path}",
            headers={"Authorization": tab.bearer},
            json={"version": 1},
            timeout=30,
        )
        assert refused.status_code == 403
        assert 'error="insufficient_scope", scope="channels_engineering"' in refused.headers["WWW-Authenticate"]
        assert refused.headers["Cache-Control"] == "no-store"
    guide_routes = (
        ("GET", "zones.json"),
        ("GET", "imports.json"),
        ("POST", "create-zone.json"),
        ("GET", "grid.json"),
        ("GET", "configuration.json"),
        ("POST", "configuration.json"),
        ("POST", "upload.json"),
    )
    for method, path in guide_routes:
        refused = requests.request(
            method,
            f"{console_stack.url}/staff/guide/{path}",
            headers={"Authorization": tab.bearer},
            json={"name": "Europe/Riga"},
            timeout=30,
        )
        assert refused.status_code == 403
        assert 'error="insufficient_scope", scope="guide_editing"' in refused.headers["WWW-Authenticate"]
