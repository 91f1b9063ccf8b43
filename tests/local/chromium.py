"""Debian's Chromium, headless, for the tests that drive a page as a person does."""

import os
from pathlib import Path

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.chrome.webdriver import WebDriver

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
# Headless, no sandbox (root in a container), and nothing that reaches the network on its own.
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]


def start_chromium(profile: Path, *flags: str) -> WebDriver:
    """Debian's Chromium and its driver, named explicitly so that Selenium Manager never downloads anything."""
    missing = [path for path in (CHROMIUM, CHROMEDRIVER) if not Path(path).is_file()]
    if missing:
        if "CI" in os.environ:
            pytest.fail(f"{' and '.join(missing)} missing: .ci/run should have installed chromium and chromium-driver")
        pytest.skip("install Debian's chromium and chromium-driver (done by .ci/run)")
    options = Options()
    options.binary_location = CHROMIUM
    for flag in [*FLAGS, f"--user-data-dir={profile}", *flags]:
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(30)
    return driver
