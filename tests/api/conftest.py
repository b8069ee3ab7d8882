"""The API under test: the app over HTTP (moto, fake Plaid, fake peers) and a fake Auth0.

The stack fixtures (the app over HTTP, the fakes, the runtime) are the session's, from
:mod:`tests.stack`. Every response a test receives through :class:`Api` is
checked against the OpenAPI document first: a test that passes proves the contract too.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path
from typing import Any

import pytest
import requests
import schemathesis
from schemathesis.specs.openapi.schemas import OpenApiSchema

from chalicelib.api.jwks import reset_jwks
from chalicelib.settings import reset_settings
from ops.fakes.auth0 import FakeAuth0
from ops.fakes.peers import FakeSegment

ROOT = Path(__file__).resolve().parents[2]
OPENAPI = ROOT / "chalicelib" / "api" / "openapi.yaml"


@lru_cache(maxsize=1)
def development_issuer() -> FakeAuth0:
    """The session's issuer, started on first use (schemathesis asks for a token at collection)."""
    return FakeAuth0().start()


@pytest.fixture(scope="session")
def auth0(stack_env: dict[str, Any]) -> Iterator[FakeAuth0]:
    """The development issuer, with the app's settings pointing at it."""
    mp = pytest.MonkeyPatch()
    issuer = development_issuer()
    for key, value in issuer.env().items():
        mp.setenv(key, value)
    reset_settings()
    reset_jwks()
    yield issuer
    mp.undo()
    issuer.stop()
    development_issuer.cache_clear()
    reset_settings()
    reset_jwks()


@pytest.fixture(scope="session")
def contract() -> OpenApiSchema:
    return schemathesis.openapi.from_path(OPENAPI)


class Api:
    """HTTP calls to the app as one caller, each response validated against the document."""

    def __init__(self, base_url: str, contract: OpenApiSchema, token: str | None) -> None:
        self.base_url = base_url
        self.contract = contract
        self.token = token
        self.session = requests.Session()

    def as_token(self, token: str | None) -> Api:
        return Api(self.base_url, self.contract, token)

    def call(self, method: str, template: str, *, path: dict[str, str] | None = None, **kwargs: Any) -> Any:
        headers = dict(kwargs.pop("headers", {}))
        if self.token is not None:
            headers.setdefault("Authorization", f"Bearer {self.token}")
        url = self.base_url + template.format(**(path or {}))
        response = self.session.request(method, url, headers=headers, timeout=60, **kwargs)
        self.contract[template][method.upper()].validate_response(response)
        return response

    def get(self, template: str, **kwargs: Any) -> Any:
        return self.call("GET", template, **kwargs)

    def post(self, template: str, **kwargs: Any) -> Any:
        return self.call("POST", template, **kwargs)

    def put(self, template: str, **kwargs: Any) -> Any:
        return self.call("PUT", template, **kwargs)

    def delete(self, template: str, **kwargs: Any) -> Any:
        return self.call("DELETE", template, **kwargs)


@pytest.fixture
def api(app_url: str, auth0: FakeAuth0, contract: OpenApiSchema, user_id: str) -> Api:
    """The app as ``user_id`` (a user token)."""
    return Api(app_url, contract, auth0.user_token(user_id))


@pytest.fixture
def service_api(app_url: str, auth0: FakeAuth0, contract: OpenApiSchema) -> Api:
    """The app as a back-office service (acts for any user)."""
    return Api(app_url, contract, auth0.service_token())


def error_code(response: Any) -> str:
    return str(response.json()["error"]["code"])


@pytest.fixture
def routes_at_now(monkeypatch: pytest.MonkeyPatch) -> None:
    """The insight routes read ``tests.api.insight_rows.NOW`` (the auth clock is left alone)."""
    from tests.api.insight_rows import NOW

    # The routes first: one imported now binds ``ttl.utcnow`` as it is, which must be the real one.
    for route in ("savings", "pave_insights", "income"):
        monkeypatch.setattr(f"chalicelib.api.routes.{route}.utcnow", lambda: NOW)
    monkeypatch.setattr("chalicelib.data.ttl.utcnow", lambda: NOW)


@pytest.fixture
def segment() -> Iterator[FakeSegment]:
    """A fake Segment of the test's own, for handlers that notify users."""
    with FakeSegment() as fake:
        yield fake
