"""The live page (deltamatch/service/static) in real headless Chromium against a real `deltamatch serve`."""

from __future__ import annotations

import contextlib
import os
import random
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest
from chromium import needs_chromium, start_chromium

TOKEN = "ui-test-token"
RETENTION = 8  # events the service keeps per pattern: small, so a test can fall behind it
WAIT_S = 30

pytestmark = [
    needs_chromium,
    pytest.mark.timeout(240),
]

webdriver = pytest.importorskip("selenium.webdriver")
from selenium.common.exceptions import StaleElementReferenceException  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class ServiceProcess:
    """`deltamatch serve` on a loopback port and a data dir that survive restarts."""

    def __init__(self, data_dir: Path, log_path: Path) -> None:
        self.port = free_port()
        self.data_dir = data_dir
        self.log_path = log_path
        self.proc: subprocess.Popen | None = None
        self.url = f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        env = {**os.environ, "DELTAMATCH_TOKEN": TOKEN, "DELTAMATCH_RETENTION": str(RETENTION),
               "RAY_USAGE_STATS_ENABLED": "0"}
        cmd = [sys.executable, "-m", "deltamatch.cli", "serve", "--port", str(self.port),
               "--workers", "2", "--data-dir", str(self.data_dir)]
        with open(self.log_path, "ab") as log:
            # Own process group, so stopping it also stops the embedded Ray it started.
            self.proc = subprocess.Popen(cmd, env=env, stdout=log, stderr=subprocess.STDOUT,
                                         start_new_session=True)
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"service exited with {self.proc.returncode}:\n{self.log_tail()}")
            try:
                if httpx.get(f"{self.url}/readyz", timeout=2).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            time.sleep(0.3)
        raise RuntimeError(f"service not ready after 90 s:\n{self.log_tail()}")

    def stop(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        os.killpg(self.proc.pid, signal.SIGTERM)
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=10)

    def log_tail(self) -> str:
        return self.log_path.read_text(errors="replace")[-4000:]


class Relay:
    """A loopback TCP relay in front of the service whose connections the test can cut."""

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}"
        self.open = threading.Event()
        self.open.set()
        self.lock = threading.Lock()
        self.sockets: set[socket.socket] = set()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            upstream = None
            if self.open.is_set():
                upstream = socket.create_connection(("127.0.0.1", self.target_port))
            with self.lock:
                if upstream is None or not self.open.is_set():
                    # An empty answer is a network error, so EventSource retries by itself.
                    for s in (client, upstream):
                        if s is not None:
                            s.close()
                    continue
                self.sockets.update((client, upstream))
            threading.Thread(target=self._serve, args=(client, upstream), daemon=True).start()

    def _serve(self, client: socket.socket, upstream: socket.socket) -> None:
        back = threading.Thread(target=self._pump, args=(upstream, client), daemon=True)
        back.start()
        self._pump(client, upstream)
        back.join()
        with self.lock:
            self.sockets.difference_update((client, upstream))
        client.close()
        upstream.close()

    @staticmethod
    def _pump(src: socket.socket, dst: socket.socket) -> None:
        with contextlib.suppress(OSError):
            while data := src.recv(65536):
                dst.sendall(data)
        for s in (src, dst):  # shutdown, not close: it also wakes the other direction's recv
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)

    def cut(self) -> None:
        """Drop every relayed connection and refuse new ones until `restore`."""
        with self.lock:
            self.open.clear()
            live = list(self.sockets)
        for s in live:
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)

    def restore(self) -> None:
        self.open.set()

    def close(self) -> None:
        self.listener.close()
        self.cut()


@pytest.fixture(scope="module")
def service(tmp_path_factory):
    root = tmp_path_factory.mktemp("ui-service")
    svc = ServiceProcess(root / "data", root / "service.log")
    svc.start()
    yield svc
    svc.stop()


@pytest.fixture(scope="module")
def api(service):
    with httpx.Client(base_url=service.url, timeout=30,
                      headers={"Authorization": f"Bearer {TOKEN}"}) as client:
        yield client


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    driver = start_chromium(tmp_path_factory.mktemp("chromium-profile"), "--window-size=1500,1000")
    yield driver
    driver.quit()


@pytest.fixture
def relay(service):
    r = Relay(service.port)
    yield r
    r.close()


@pytest.fixture
def page(browser, service):
    """The page freshly loaded from the service's `/`, with the bearer token entered."""
    browser.get(f"{service.url}/")
    wait(browser, lambda d: d.find_element(By.ID, "service-status").get_attribute("data-state") == "online")
    set_token(browser, TOKEN)
    return browser


def wait(driver, condition, timeout: float = WAIT_S):
    """Poll `condition` until truthy; the page re-renders panels, so stale elements retry."""
    return WebDriverWait(driver, timeout, poll_frequency=0.1,
                         ignored_exceptions=(StaleElementReferenceException,)).until(condition)


def set_token(driver, token: str) -> None:
    field = driver.find_element(By.ID, "token-input")
    field.clear()
    if token:
        field.send_keys(token)
    driver.find_element(By.CSS_SELECTOR, "#token-form button").click()


def pattern_ids(api) -> set[str]:
    return {str(p["id"]) for p in api.get("/v1/patterns").json()}


def submit_pattern(driver, spec: str, induced: bool = False, label: str = "") -> None:
    for field_id, text in (("pattern-spec", spec), ("pattern-label", label)):
        field = driver.find_element(By.ID, field_id)
        field.clear()
        field.send_keys(text)
    box = driver.find_element(By.ID, "pattern-induced")
    if box.is_selected() != induced:
        box.click()
    driver.find_element(By.ID, "register-button").click()


def register_through_form(driver, api, spec: str, induced: bool = False, label: str = "") -> str:
    """Register `spec` with the page's form; return the id the service gave it."""
    before = pattern_ids(api)
    submit_pattern(driver, spec, induced, label)
    wait(driver, lambda d: d.find_element(By.ID, "form-ok").is_displayed())
    new_id = driver.execute_script("return window.deltamatchUI.lastRegistered()")
    assert pattern_ids(api) - before == {new_id}
    wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, f'.pattern[data-id="{new_id}"]'))
    return new_id


def push_batches(api, rng: random.Random, n: int, n_vertices: int = 24) -> dict:
    """Push n random batches (inserts plus some deletes of present edges); return the last answer."""
    answer = {}
    for _ in range(n):
        insert = [[u, v] for u, v in (rng.sample(range(n_vertices), 2) for _ in range(12))]
        delete = [[u, v] for u, v in (rng.sample(range(n_vertices), 2) for _ in range(4))]
        resp = api.post("/v1/updates", json={"insert": insert, "delete": delete})
        assert resp.status_code == 200, resp.text
        answer = resp.json()
    return answer


def texts(driver, css: str) -> list[str]:
    """The text of every element matching `css`, read in one step (the page re-renders often)."""
    return driver.execute_script(
        "return [...document.querySelectorAll(arguments[0])].map(e => e.textContent)", css)


def card_total(driver, pattern_id: str) -> str:
    return "".join(texts(driver, f'.pattern[data-id="{pattern_id}"] .total'))


def wait_for_total(driver, pattern_id: str, total: int) -> None:
    """Wait until the pattern's card shows `total`: the page draws on its next animation frame,
    so the card may lag the page state that the other waits read."""
    wait(driver, lambda d: card_total(d, pattern_id) == f"{total:,}")


def ui_state(driver, what: str, pattern_id: str):
    return driver.execute_script(f"return window.deltamatchUI.{what}(arguments[0])", pattern_id)


def test_form_registers_a_pattern_and_draws_its_shape(page, api):
    pid = register_through_form(page, api, "diamond")
    info = api.get(f"/v1/patterns/{pid}").json()
    card = page.find_element(By.CSS_SELECTOR, f'.pattern[data-id="{pid}"]')
    assert len(card.find_elements(By.CSS_SELECTOR, ".shape line")) == len(info["edges"]) == 5
    assert len(card.find_elements(By.CSS_SELECTOR, ".shape circle")) == info["k"] == 4
    wait_for_total(page, pid, info["total"])


def test_form_sends_an_edge_list_with_induced_and_label(page, api):
    pid = register_through_form(page, api, "0-1, 1-2, 2-3, 3-0", induced=True, label="square")
    info = api.get(f"/v1/patterns/{pid}").json()
    assert (info["name"], info["induced"], info["k"]) == ("square", True, 4)
    assert sorted(map(sorted, info["edges"])) == [[0, 1], [0, 3], [1, 2], [2, 3]]
    assert "square" in texts(page, f'.pattern[data-id="{pid}"] .pname')


def test_total_on_the_page_reaches_the_api_total(page, api):
    pid = register_through_form(page, api, "triangle")
    last = push_batches(api, random.Random(1), 6)
    expected = last["deltas"][pid]["total"]
    assert expected == api.get(f"/v1/patterns/{pid}").json()["total"]
    wait(page, lambda d: ui_state(d, "total", pid) == expected and card_total(d, pid) == f"{expected:,}")
    assert page.find_element(By.ID, "detail-title").text.endswith(f"total {expected:,}")


def test_recent_matches_are_listed_newest_first(page, api):
    pid = register_through_form(page, api, "4-cycle")
    last = push_batches(api, random.Random(2), 4)
    wait(page, lambda d: ui_state(d, "versions", pid)[-1] == last["version"])
    added, removed = texts(page, "#added-list li"), texts(page, "#removed-list li")
    assert added or removed, "no matches listed after four batches"
    for items in (added, removed):
        versions = [int(item.split()[0][1:]) for item in items]
        assert versions == sorted(versions, reverse=True)
        assert len(items) <= 30


@pytest.mark.parametrize("spec, body", [
    ("0-1,2-3", {"edges": [[0, 1], [2, 3]], "induced": False}),
    ("pentagram", {"name": "pentagram", "induced": False}),
])
def test_bad_pattern_shows_the_api_error_inline(page, api, spec, body):
    before = pattern_ids(api)
    submit_pattern(page, spec)
    error = wait(page, lambda d: d.find_element(By.ID, "form-error").is_displayed()
                 and d.find_element(By.ID, "form-error"))
    resp = api.post("/v1/patterns", json=body)
    assert resp.status_code in (400, 422)
    assert error.text == resp.json()["detail"]
    assert pattern_ids(api) == before


def test_register_without_token_asks_for_it(page, api):
    set_token(page, "")
    before = pattern_ids(api)
    submit_pattern(page, "4-path")
    wait(page, lambda d: "needed" in d.find_element(By.ID, "token-form").get_attribute("class"))
    assert page.find_element(By.ID, "form-error").is_displayed()
    assert pattern_ids(api) == before
    set_token(page, TOKEN)
    register_through_form(page, api, "4-path")


def test_cluster_panel_shows_workers_and_version(page, api):
    last = push_batches(api, random.Random(3), 2)
    cluster = api.get("/v1/cluster").json()
    backends = wait(page, lambda d: [r.get_attribute("data-backend")
                                     for r in d.find_elements(By.CSS_SELECTOR, "#workers tbody tr")])
    assert len(backends) == len(cluster["workers"]) == 2
    assert set(backends) == {w["backend"] for w in cluster["workers"]}
    wait(page, lambda d: d.find_element(By.CSS_SELECTOR, 'dd[data-stat="version"]').text
         == f"{last['version']:,}")


def test_stream_resumes_with_last_event_id_after_a_dropped_connection(browser, api, relay):
    browser.get(f"{relay.url}/")
    set_token(browser, TOKEN)
    pid = register_through_form(browser, api, "3-star")
    start_version = ui_state(browser, "versions", pid)[0]
    rng = random.Random(5)
    before = push_batches(api, rng, 2)
    wait(browser, lambda d: ui_state(d, "versions", pid)[-1] == before["version"])
    relay.cut()
    wait(browser, lambda d: ui_state(d, "drops", pid) > 0)
    last = push_batches(api, rng, 3)
    relay.restore()
    wait(browser, lambda d: ui_state(d, "versions", pid)[-1] == last["version"])
    assert ui_state(browser, "versions", pid) == list(range(start_version, last["version"] + 1))
    assert ui_state(browser, "opens", pid) == 1  # EventSource's own reconnect, not the page's
    wait_for_total(browser, pid, last["deltas"][pid]["total"])


def test_page_takes_a_reset_when_it_fell_behind_the_retained_history(browser, api, relay):
    browser.get(f"{relay.url}/")
    set_token(browser, TOKEN)
    pid = register_through_form(browser, api, "triangle")
    seen = ui_state(browser, "versions", pid)[-1]
    relay.cut()
    wait(browser, lambda d: ui_state(d, "drops", pid) > 0)
    last = push_batches(api, random.Random(6), RETENTION + 2)
    relay.restore()
    wait(browser, lambda d: ui_state(d, "resets", pid) == [last["version"]])
    assert ui_state(browser, "gaps", pid) == [[seen + 1, last["version"] - 1]]
    wait_for_total(browser, pid, last["deltas"][pid]["total"])
    assert browser.find_elements(By.CSS_SELECTOR, "#detail-chart line.reset")
    meta = browser.find_element(By.ID, "detail-meta").text
    assert f"missed versions: {seen + 1}–{last['version'] - 1}" in meta


def test_stream_resumes_after_a_restart_without_missing_a_version(page, api, service):
    pid = register_through_form(page, api, "tailed-triangle")
    start_version = ui_state(page, "versions", pid)[0]
    rng = random.Random(4)
    before = push_batches(api, rng, 3)
    wait(page, lambda d: ui_state(d, "versions", pid)[-1] == before["version"])
    assert ui_state(page, "stream", pid) == "live"
    service.stop()
    wait(page, lambda d: ui_state(d, "drops", pid) > 0)
    service.start()
    last = push_batches(api, rng, 4)
    expected = last["deltas"][pid]["total"]
    wait(page, lambda d: ui_state(d, "versions", pid)[-1] == last["version"], timeout=45)
    assert ui_state(page, "versions", pid) == list(range(start_version, last["version"] + 1))
    wait_for_total(page, pid, expected)
    assert ui_state(page, "resets", pid) == []
    assert ui_state(page, "gaps", pid) == []
