"""The OpenAPI document against the real service: schemathesis sends generated requests to every
operation (the SSE stream excluded: it never ends) and checks there is no 5xx, that every status,
content type and JSON body is the one the document declares."""

from __future__ import annotations

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from deltamatch.service.app import create_app
from deltamatch.service.config import ServiceConfig
from tests.service.conftest import ServiceProcess

pytestmark = pytest.mark.timeout(300)
TOKEN = "openapi-token"
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]


@pytest.fixture(scope="module")
def own_service(ray_address, tmp_path_factory):
    """A service of its own: generated requests change its graph and patterns freely."""
    tmp = tmp_path_factory.mktemp("openapi")
    (tmp / "edges.txt").write_text("1 2\n2 3\n")
    svc = ServiceProcess(tmp / "data", ray_address, tmp / "serve.log", DELTAMATCH_TOKEN=TOKEN,
                         DELTAMATCH_MAX_BATCH="200", DELTAMATCH_MAX_REQUEST_BYTES=str(64 << 10),
                         DELTAMATCH_MAX_PATTERN_VERTICES="5", DELTAMATCH_MAX_PATTERNS="8",
                         DELTAMATCH_LOAD_DIR=str(tmp))
    svc.start()
    yield svc
    svc.stop()


KNOWN_GOOD = [  # (method, path, Case arguments, status): success answers checked against the document too
    ("POST", "/v1/patterns", {"body": {"name": "triangle"}, "media_type": "application/json"}, 201),
    ("POST", "/v1/patterns", {"body": {"edges": [[0, 1], [1, 2]], "induced": True},
                              "media_type": "application/json"}, 201),
    ("POST", "/v1/updates", {"body": {"insert": [[1, 2], [2, 3], [1, 3]], "batch_id": "b1"},
                             "media_type": "application/json"}, 200),
    ("POST", "/v1/updates", {"body": {"insert": [[7, 8]], "batch_id": "b1"},  # a duplicate
                             "media_type": "application/json"}, 200),
    ("POST", "/v1/graph/load", {"body": {"edges": [[3, 4]]}, "media_type": "application/json"}, 200),
    ("POST", "/v1/graph/load", {"body": {"path": "edges.txt"}, "media_type": "application/json"}, 200),
    ("GET", "/v1/patterns/{pid}", {"path_parameters": {"pid": 1}}, 200),
    ("GET", "/v1/patterns/{pid}/matches", {"path_parameters": {"pid": 1}, "query": {"limit": 5}}, 200),
    ("GET", "/v1/patterns", {}, 200),
    ("GET", "/v1/cluster", {}, 200),
    ("GET", "/readyz", {}, 200),
    ("GET", "/metrics", {}, 200),
]


def test_every_answer_is_declared_and_none_is_a_server_error(own_service):
    # the operations are driven by hand: schemathesis' pytest plugin does not run on pytest 9
    schema = schemathesis.openapi.from_url(f"{own_service.url}/openapi.json")
    schema = schema.exclude(path="/v1/patterns/{pid}/deltas")
    auth = {"Authorization": f"Bearer {TOKEN}"}
    for method, path, arguments, status in KNOWN_GOOD:
        case = schema[path][method].Case(**arguments)
        assert case.call_and_validate(headers=auth, checks=CHECKS, timeout=30).status_code == status
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) >= 10
    failures, statuses = {}, []
    for operation in operations:

        @given(case=operation.as_strategy())
        @settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck), database=None)
        def check(case) -> None:
            response = case.call_and_validate(headers=auth, checks=CHECKS, timeout=30)
            statuses.append(response.status_code)

        try:
            check()
        except Exception as exc:  # one operation's failure must not hide the others'
            failures[f"{operation.method.upper()} {operation.path}"] = str(exc)[:2000]
    assert failures == {}
    assert len(statuses) >= 60 and {200, 404, 422} <= set(statuses)


def test_the_document_declares_the_error_model_and_the_real_content_types():
    doc = create_app(ServiceConfig()).openapi()
    for path, operations in doc["paths"].items():
        for method, op in operations.items():
            for status, answer in op["responses"].items():
                if status.startswith(("4", "5")):
                    ref = answer["content"]["application/json"]["schema"]["$ref"]
                    assert ref.rsplit("/", 1)[1] in ("ErrorDetail", "NotReady"), (method, path, status)
    assert doc["components"]["schemas"]["ErrorDetail"]["properties"] == {"detail": {"title": "Detail",
                                                                                   "type": "string"}}
    assert list(doc["paths"]["/metrics"]["get"]["responses"]["200"]["content"]) == ["text/plain"]
    stream = doc["paths"]["/v1/patterns/{pid}/deltas"]["get"]["responses"]["200"]["content"]
    assert list(stream) == ["text/event-stream"]
    assert "HTTPValidationError" not in doc["components"]["schemas"]
