"""Kodi with the IPTV Simple client, headless under Xvfb, for the player tests (issue 19): it is given only a
playlist URL, and what it loaded is read through its JSON-RPC over its web server on loopback, and the ratings
from its EPG database."""

import os
import shutil
import signal
import sqlite3
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from xml.sax.saxutils import escape

import pytest
import requests

from local.stack import free_port

KODI = "/usr/bin/kodi"
XVFB_RUN = "/usr/bin/xvfb-run"
IPTV_SIMPLE = Path("/usr/share/kodi/addons/pvr.iptvsimple")
# The web server's credentials: Kodi refuses to serve JSON-RPC over HTTP without a password.
USER, PASSWORD = "kodi", "kodi-test"
STARTING_AT_MOST = 180  # seconds: Kodi's first start writes its databases


class NotYet(Exception):
    """Kodi answered with an error: a PVR method before the add-on has loaded, say."""


class Kodi:
    def __init__(self, url: str, home: Path) -> None:
        self.url = url
        self.home = home

    def call(self, method: str, **params: object) -> dict:
        request = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
        reply = requests.post(self.url, json=request, auth=(USER, PASSWORD), timeout=60).json()
        if "error" in reply:
            raise NotYet(f"{method}: {reply['error']}")
        return reply["result"]

    def wait_for(self, method: str, ready, **params: object) -> dict:
        deadline = time.monotonic() + STARTING_AT_MOST
        while time.monotonic() < deadline:
            try:
                result = self.call(method, **params)
                if ready(result):
                    return result
            except (requests.ConnectionError, NotYet):
                pass
            time.sleep(1)
        raise AssertionError(f"Kodi never answered {method} as expected")


def write_settings(home: Path, port: int, playlist_url: str) -> None:
    """Kodi's web server on a free port, and IPTV Simple's remote M3U: nothing else (the guide comes from the
    playlist's url-tvg)."""
    userdata = home / ".kodi" / "userdata"
    (userdata / "addon_data" / "pvr.iptvsimple").mkdir(parents=True)
    (userdata / "guisettings.xml").write_text(
        '<settings version="2">'
        '<setting id="services.webserver">true</setting>'
        f'<setting id="services.webserverport">{port}</setting>'
        '<setting id="services.webserverauthentication">true</setting>'
        f'<setting id="services.webserverusername">{USER}</setting>'
        f'<setting id="services.webserverpassword">{PASSWORD}</setting>'
        "</settings>",
        encoding="utf-8",
    )
    (userdata / "addon_data" / "pvr.iptvsimple" / "settings.xml").write_text(
        '<settings version="2">'
        '<setting id="m3uPathType">1</setting>'  # a remote path (URL)
        f'<setting id="m3uUrl">{escape(playlist_url)}</setting>'
        "</settings>",
        encoding="utf-8",
    )


@contextmanager
def running_kodi(playlist_url: str, home: Path) -> Iterator[Kodi]:
    """Kodi in `home` with IPTV Simple given `playlist_url`, until the block ends (about ten seconds to start)."""
    missing = [str(path) for path in (Path(KODI), Path(XVFB_RUN), IPTV_SIMPLE) if not path.exists()]
    if missing:
        if "CI" in os.environ:
            pytest.fail(f"{', '.join(missing)} missing: .ci/run should have installed kodi, kodi-pvr-iptvsimple, xvfb")
        pytest.skip("install Debian's kodi, kodi-pvr-iptvsimple and xvfb (done by .ci/run)")
    port = free_port()
    write_settings(home, port, playlist_url)
    env = {**os.environ, "HOME": str(home), "KODI_AE_SINK": "NULL"}  # no sound card here
    log = (home / "console.log").open("w")
    process = subprocess.Popen(  # noqa: S603 - fixed programs, the paths above
        [XVFB_RUN, "-a", "-s", "-screen 0 1280x720x24", KODI],
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,  # its own process group: Xvfb and Kodi end together
    )
    player = Kodi(f"http://127.0.0.1:{port}/jsonrpc", home / ".kodi")
    try:
        player.wait_for("JSONRPC.Ping", lambda result: result == "pong")
        # Debian installs the add-on disabled; a person enables it once, as this does.
        player.call("Addons.SetAddonEnabled", addonid="pvr.iptvsimple", enabled=True)
        yield player
    finally:
        try:
            player.call("Application.Quit")
            process.wait(timeout=30)
        except (requests.RequestException, NotYet, subprocess.TimeoutExpired):
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        log.close()
        shutil.rmtree(home, ignore_errors=True)


def rating_codes_stored(kodi: Kodi) -> set[tuple[str, str]]:
    """(title, parental rating code) of the programmes in Kodi's EPG database. Kodi 20's JSON-RPC has only the
    numeric `parentalrating`, which IPTV Simple leaves 0; the add-on gives Kodi the XMLTV rating as a code
    (`system-value`), which Kodi keeps in `epgtags.sParentalRatingCode` and shows in the programme's details."""
    found: set[tuple[str, str]] = set()
    for database in (kodi.home / "userdata" / "Database").glob("Epg*.db"):
        with sqlite3.connect(f"file:{database}?mode=ro", uri=True) as connection:
            found.update(connection.execute("SELECT sTitle, sParentalRatingCode FROM epgtags"))
    return found
