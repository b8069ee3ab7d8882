"""Fixtures for the data-layer tests: the local DynamoDB and a log capture."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest


@pytest.fixture
def ddb(aws_endpoint: str) -> str:
    """The local AWS endpoint with every declared table (moto server over HTTP)."""
    return aws_endpoint


class _Collect(logging.Handler):
    def __init__(self) -> None:
        super().__init__(level=logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@pytest.fixture
def service_logs() -> Iterator[list[logging.LogRecord]]:
    """Records the service logger emits during the test (it does not propagate to root)."""
    from chalicelib.observability import SERVICE

    handler = _Collect()
    target = logging.getLogger(SERVICE)
    target.addHandler(handler)
    try:
        yield handler.records
    finally:
        target.removeHandler(handler)
