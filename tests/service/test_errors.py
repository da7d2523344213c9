"""The app's error handlers in-process (no Ray: the lifespan is not entered): anything
unexpected is a logged JSON 500 with a request id, never plain text."""

from __future__ import annotations

import logging

from fastapi.testclient import TestClient

from deltamatch.service.app import create_app
from deltamatch.service.config import ServiceConfig


def test_an_unexpected_exception_is_a_json_500_logged_with_its_request_id(caplog, tmp_path):
    app = create_app(ServiceConfig(data_dir=str(tmp_path)))

    @app.get("/boom")
    async def boom():
        raise RuntimeError("the unexpected")

    with caplog.at_level(logging.ERROR, logger="deltamatch.service"):
        r = TestClient(app, raise_server_exceptions=False).get("/boom")
    assert r.status_code == 500 and r.headers["content-type"] == "application/json"
    request_id = r.headers["x-request-id"]
    assert r.json() == {"detail": f"internal error (request id {request_id})"}
    assert any(request_id in rec.getMessage() and rec.exc_info for rec in caplog.records)


def test_calls_before_the_service_is_ready_are_json_503(tmp_path):
    client = TestClient(create_app(ServiceConfig(data_dir=str(tmp_path))))
    for method, path in (("GET", "/v1/cluster"), ("GET", "/v1/patterns"), ("POST", "/v1/updates")):
        r = client.request(method, path)
        assert r.status_code == 503 and r.json()["detail"] == "service is starting"
    r = client.get("/readyz")
    assert r.status_code == 503 and r.json() == {"ready": False, "detail": "starting"}
