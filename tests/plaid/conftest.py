"""Fixtures for the Plaid client layer: one fake Plaid per session (ephemeral port), reset per test."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from chalicelib.plaid.client import PlaidClient, reset_plaid
from chalicelib.plaid.webhook_verification import reset_webhook_keys
from chalicelib.settings import reset_settings
from ops.fakes.plaid import DEFAULT_CLIENT_ID, DEFAULT_SECRET, FakePlaid
from tests.plaid.factories import TEST_TIMEOUTS


@pytest.fixture(scope="session")
def fake_plaid() -> Iterator[FakePlaid]:
    with FakePlaid(port=0) as fake:
        yield fake


@pytest.fixture(autouse=True)
def _fresh_fake(fake_plaid: FakePlaid) -> Iterator[None]:
    """No fault or recorded call leaks from one test into the next."""
    fake_plaid.reset()
    yield
    fake_plaid.reset()


@pytest.fixture
def client(fake_plaid: FakePlaid) -> PlaidClient:
    return PlaidClient(fake_plaid.url, DEFAULT_CLIENT_ID, DEFAULT_SECRET, timeouts=TEST_TIMEOUTS)


@pytest.fixture
def plaid_env(fake_plaid: FakePlaid, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakePlaid]:
    """Settings point at the fake, so ``get_plaid()`` and the default webhook key cache use it."""
    monkeypatch.setenv("PLAID_BASE_URL", fake_plaid.url)
    monkeypatch.setenv("PLAID_CLIENT_ID", DEFAULT_CLIENT_ID)
    monkeypatch.setenv("PLAID_SECRET", DEFAULT_SECRET)
    monkeypatch.setenv("PLAID_TIMEOUT_SECONDS", "2")
    reset_settings()
    reset_plaid()
    reset_webhook_keys()
    yield fake_plaid
    monkeypatch.undo()
    reset_settings()
    reset_plaid()
    reset_webhook_keys()
