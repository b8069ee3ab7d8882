"""Fixtures for the data-layer tests: the local DynamoDB (log capture is suite-wide)."""

from __future__ import annotations

import pytest


@pytest.fixture
def ddb(aws_endpoint: str) -> str:
    """The local AWS endpoint with every declared table (moto server over HTTP)."""
    return aws_endpoint
