"""Every error the app itself answers has one shape, ``{"error": {"code", "message"}}``: the
typed errors a view raises, and the errors Chalice answers before any view runs."""

from __future__ import annotations

import pytest
import requests
import yaml

from chalicelib.api.errors import CHALICE_CODES, STATUS_BY_ERROR
from tests.api.conftest import OPENAPI, Api, error_code

pytestmark = pytest.mark.integration

ITEMS = "/v1/users/{user_id}/items"


def test_an_unsupported_content_type_on_the_webhook_gets_the_envelope(api: Api) -> None:
    # WHEN Plaid's webhook route receives XML
    response = api.post("/v1/plaid", data=b"<webhook/>", headers={"Content-Type": "application/xml"})
    # THEN Chalice's own 415 is answered in the service's format (the contract is checked by Api)
    assert response.status_code == 415
    assert response.headers["Content-Type"] == "application/json"
    assert error_code(response) == "unsupported_media_type"
    assert "application/xml" in response.json()["error"]["message"]
    assert "Code" not in response.json()


def test_an_unsupported_content_type_on_an_api_route_gets_the_envelope(api: Api, user_id: str) -> None:
    # WHEN a JSON route receives a form body
    response = api.post(ITEMS, path={"user_id": user_id}, data="public_token=x", headers={"Content-Type": "text/plain"})
    # THEN 415 in the envelope, before any view (or its authorization) ran
    assert response.status_code == 415
    assert error_code(response) == "unsupported_media_type"


def test_an_undeclared_method_gets_the_envelope_with_allow(app_url: str, user_id: str) -> None:
    # WHEN a method the route does not declare reaches the app (locally; API Gateway answers
    # an undeclared method itself, see docs/api.md)
    response = requests.patch(f"{app_url}/v1/users/{user_id}/items", json={}, timeout=30)
    # THEN 405 in the envelope, naming the methods that exist
    assert response.status_code == 405
    assert response.json() == {"error": {"code": "method_not_allowed", "message": "Unsupported method: PATCH"}}
    assert set(response.headers["Allow"].replace(" ", "").split(",")) == {"GET", "POST"}


def test_a_typed_error_in_a_view_gets_the_envelope(app_url: str, user_id: str) -> None:
    # WHEN a protected route is called without a token
    response = requests.get(f"{app_url}/v1/users/{user_id}/items", timeout=30)
    # THEN the route helper mapped the typed error: 401 in the envelope
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "unauthorized"
    assert response.headers["WWW-Authenticate"] == "Bearer"


def test_the_document_lists_every_error_code_the_app_answers() -> None:
    # GIVEN the codes the mapping can produce (typed errors, Chalice's own, the 500 fallback)
    answered = {code for _, _, code in STATUS_BY_ERROR} | set(CHALICE_CODES.values()) | {"internal_error"}
    # THEN the document's Error schema names exactly those
    document = yaml.safe_load(OPENAPI.read_text())
    assert set(document["components"]["schemas"]["Error"]["properties"]["error"]["properties"]["code"]["enum"]) == (
        answered
    )
