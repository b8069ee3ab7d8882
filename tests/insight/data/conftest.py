"""Fixtures for the insight data-layer tests: the session's local DynamoDB over HTTP."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

#: An injected clock: every test states its own "now" (never the wall clock).
NOW = datetime(2026, 11, 20, 12, 30, 0, 123456, tzinfo=UTC)


@pytest.fixture
def ddb(aws_endpoint: str) -> str:
    """The local AWS endpoint with every declared table (moto server over HTTP)."""
    return aws_endpoint


def stored(table: Any, key: dict[str, str]) -> dict[str, Any] | None:
    """A row exactly as stored, read around the data layer."""
    return table.get_item(Key=key, ConsistentRead=True).get("Item")  # type: ignore[no-any-return]
