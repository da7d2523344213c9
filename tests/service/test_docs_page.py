"""/docs and /redoc render the API's operations in headless Chromium with every other host unreachable."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")

pytestmark = [
    pytest.mark.skipif(
        not (CHROMIUM.exists() and CHROMEDRIVER.exists()),
        reason="needs Debian's chromium and chromium-driver (/usr/bin/chromium, /usr/bin/chromedriver)",
    ),
    pytest.mark.timeout(180),
]

webdriver = pytest.importorskip("selenium.webdriver")
from selenium.webdriver.chrome.service import Service as ChromeService  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402


@pytest.fixture
def offline_browser(tmp_path):
    """Chromium that can resolve nothing but the loopback address: a CDN fetch would fail."""
    opts = webdriver.ChromeOptions()
    opts.binary_location = str(CHROMIUM)
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--window-size=1400,1000",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
                 f"--user-data-dir={tmp_path / 'profile'}"):
        opts.add_argument(flag)
    driver = webdriver.Chrome(options=opts, service=ChromeService(str(CHROMEDRIVER)))
    yield driver
    driver.quit()


def _operations(url: str) -> set[str]:
    spec = httpx.get(f"{url}/openapi.json").json()
    return {f"{method.upper()} {path}" for path, item in spec["paths"].items() for method in item}


def test_docs_and_redoc_render_every_operation_offline(make_service, offline_browser):
    svc = make_service()
    svc.start()
    expected = _operations(svc.url)
    assert "DELETE /v1/graph" in expected and "POST /v1/updates" in expected
    page = svc.url

    offline_browser.get(f"{page}/docs")
    blocks = WebDriverWait(offline_browser, 30).until(
        lambda d: d.find_elements(By.CSS_SELECTOR, ".opblock-summary") or None)
    shown = set()
    for b in blocks:
        method = b.find_element(By.CSS_SELECTOR, ".opblock-summary-method").text
        path = b.find_element(By.CSS_SELECTOR, ".opblock-summary-path").get_attribute("data-path")
        shown.add(f"{method} {path}")
    assert shown == expected
    scripts = [s.get_attribute("src") for s in offline_browser.find_elements(By.TAG_NAME, "script")]
    assert any(src.startswith(page) and src.endswith("swagger-ui-bundle.js") for src in scripts if src)

    offline_browser.get(f"{page}/redoc")
    WebDriverWait(offline_browser, 30).until(
        lambda d: len(d.find_elements(By.CSS_SELECTOR, "[data-section-id^='operation/']")) >= len(expected))
