"""The Pave feeder and miner under test: handlers called directly, against the session's local
AWS and a fake Pave (its clock injected; processing after a number of polls, never a sleep).
Every Pave call goes over HTTP to the fake through the real client. Helpers: ``support.py``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from chalicelib.peers.pave import reset_pave
from ops.fakes.pave import FakePave
from tests.insight.pave.support import NOW
from tests.pave.conftest import Clock


@pytest.fixture(scope="session")
def session_pave() -> Iterator[FakePave]:
    with FakePave() as fake:
        yield fake


@pytest.fixture
def clock() -> Clock:
    return Clock(NOW)


@pytest.fixture
def pave(session_pave: FakePave, clock: Clock, override_settings: Any, aws_endpoint: str) -> Iterator[FakePave]:
    """The fake Pave, emptied, on this test's clock, processing a request at its first poll;
    the app's client aimed at it with no inline wait for a 429 and polls without delay."""
    session_pave.reset()
    session_pave.now = clock
    session_pave.set_processing(polls=1, seconds=0)
    override_settings(
        **session_pave.env(),
        PAVE_POLL_DELAY_SECONDS="0",
        PAVE_MAX_RETRY_AFTER_SECONDS="0",
        PAVE_BACKOFF_SECONDS="0.01",
        PAVE_BACKOFF_MAX_SECONDS="0.02",
    )
    reset_pave()
    yield session_pave
    session_pave.wait_idle()
    reset_pave()
