"""Test helper: Debian's headless Chromium under selenium, as the browser tests start it."""

from __future__ import annotations

from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
needs_chromium = pytest.mark.skipif(
    not (CHROMIUM.exists() and CHROMEDRIVER.exists()),
    reason="needs Debian's chromium and chromium-driver (/usr/bin/chromium, /usr/bin/chromedriver)",
)
# Quiet on a closed network: no background fetches, no updates, no sync.
BASE_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
              "--disable-background-networking", "--disable-component-update", "--disable-sync")


def start_chromium(profile: Path, *flags: str):
    """A selenium driver of headless Chromium with its own profile directory and `flags` added;
    the caller quits it."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service as ChromeService

    opts = webdriver.ChromeOptions()
    opts.binary_location = str(CHROMIUM)
    for flag in (*BASE_FLAGS, *flags, f"--user-data-dir={profile}"):
        opts.add_argument(flag)
    return webdriver.Chrome(options=opts, service=ChromeService(str(CHROMEDRIVER)))
