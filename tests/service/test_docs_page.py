"""/docs and /redoc render the API's operations in headless Chromium with every other host unreachable."""

from __future__ import annotations

import httpx
import pytest
from chromium import needs_chromium, start_chromium

pytestmark = [
    needs_chromium,
    pytest.mark.timeout(180),
]

webdriver = pytest.importorskip("selenium.webdriver")
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402


@pytest.fixture
def offline_browser(tmp_path):
    """Chromium that can resolve nothing but the loopback address: a CDN fetch would fail."""
    driver = start_chromium(tmp_path / "profile", "--window-size=1400,1000",
                            "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1")
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
