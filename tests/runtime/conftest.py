"""Fixtures for the local event runtime tests.

Every test gets its own queue (+DLQ), Kinesis stream and streamed TTL table, created by
the real bootstrap from a test declaration with unique names, so tests never consume
each other's (or other areas') messages on the shared moto server.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

import pytest

from chalicelib.infra.declaration import Infrastructure
from tests.runtime.factories import Recorder, declaration_for


@pytest.fixture
def make_infra(aws_endpoint: str) -> Callable[..., Infrastructure]:
    """Create (on moto) a private declaration; keyword arguments go to ``declaration_for``."""
    from chalicelib.infra.bootstrap import bootstrap

    def make(**options: Any) -> Infrastructure:
        declaration = declaration_for(uuid.uuid4().hex[:10], **options)
        bootstrap(declaration)
        return declaration

    return make


@pytest.fixture
def infra(make_infra: Callable[..., Infrastructure]) -> Infrastructure:
    return make_infra()


@pytest.fixture
def recorder() -> Recorder:
    return Recorder()
