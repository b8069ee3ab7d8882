"""Pipeline tests share the suite-wide fixtures in ``tests/conftest.py`` and the session's stack
(:mod:`tests.stack`); the sync tests add the harness that drives the handlers directly."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from chalicelib.settings import get_settings
from ops.fakes.plaid import FakePlaid
from tests.conftest import empty_queue
from tests.pipeline.sync_support import SyncHarness


@pytest.fixture
def harness(
    fake_plaid: FakePlaid, stack_env: dict[str, Any], user_id: str, override_settings: Callable[..., None]
) -> Iterator[SyncHarness]:
    """Direct handler calls over an empty throttle queue, sync pages of 40; the stream is read from now on."""
    override_settings(SYNC_PAGE_SIZE="40")
    fake_plaid.reset()
    empty_queue(get_settings().throttle_queue)
    yield SyncHarness(fake_plaid, user_id)
    empty_queue(get_settings().throttle_queue)
