"""schemathesis against the app over HTTP: zero 5xx, and every response conforms to the document.

Each operation is exercised with generated valid and invalid inputs as a back-office service
(a service token acts for any generated ``user_id``, so requests reach the data layer and
fake Plaid instead of stopping at 403). All of schemathesis' default checks run, with the
exceptions configured below, each for a stated reason.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.config import SchemathesisConfig
from schemathesis.specs.openapi.checks import unsupported_method
from schemathesis.transport.requests import ManagedCookiesSession

from ops.fakes.auth0 import FakeAuth0
from tests.api.conftest import OPENAPI, development_issuer

pytestmark = [pytest.mark.integration, pytest.mark.slow]

MAX_EXAMPLES = int(os.environ.get("API_FUZZ_EXAMPLES", "25"))

#: Valid-looking inputs the document cannot declare invalid, refused with 400 by design:
#: a forged cursor (cursors are opaque), and start_date after end_date (a cross-parameter rule).
CROSS_PARAMETER_RULES = ("listTransactions", "getBalanceHistory")

CONFIG = SchemathesisConfig.from_dict(
    {
        # Undeclared methods (TRACE, PATCH...) are answered by the HTTP front (chalice local's
        # server, API Gateway in AWS) before the app: not the app's contract.
        "phases": {"coverage": {"unexpected-methods": []}},
        "operations": [
            {
                "include-operation-id": list(CROSS_PARAMETER_RULES),
                "checks": {"positive_data_acceptance": {"expected-statuses": ["2xx", "400", "401", "403", "404"]}},
            }
        ],
    }
)

schema = schemathesis.openapi.from_path(OPENAPI, config=CONFIG)


@schema.auth(retry_on=[])
class ServiceToken:
    """Credentials schemathesis knows about, so it can also drop them to test 401s."""

    def get(self, case: Any, context: Any) -> str:
        return development_issuer().service_token()

    def set(self, case: Any, data: str, context: Any) -> None:
        case.headers = case.headers or {}
        case.headers["Authorization"] = f"Bearer {data}"


@pytest.fixture(scope="session")
def http_session() -> Iterator[ManagedCookiesSession]:
    """One keep-alive session for every generated request of the worker, of the kind schemathesis
    builds per request (redirects within the host only, cookies dropped between requests).

    Without it each request opened a connection and a session that re-read the environment for
    proxies, about a fifth of the fuzz's CPU; the app is on loopback, so no proxy applies.
    """
    session = ManagedCookiesSession()
    session.trust_env = False
    yield session
    session.close()


@schema.parametrize()
@settings(
    max_examples=MAX_EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.function_scoped_fixture],
    derandomize=True,
)
def test_api_conforms_to_its_document(
    case: Any, app_url: str, auth0: FakeAuth0, http_session: ManagedCookiesSession
) -> None:
    # GIVEN a generated request / WHEN it is sent to the app over HTTP
    # THEN no check fails: no 5xx, status, content type, headers and body as documented,
    # invalid inputs refused, valid inputs accepted, missing credentials refused.
    case.call_and_validate(
        base_url=app_url,
        session=http_session,
        excluded_checks=[unsupported_method],  # see the coverage phase's note above
    )
