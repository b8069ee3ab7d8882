"""Pipeline tests share the suite-wide fixtures in ``tests/conftest.py``; the sync tests add a
fake Plaid the app's settings point at, and the harness that drives the handlers directly."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime

import pytest

from chalicelib.aws.clients import reset_clients
from chalicelib.aws.messaging import queue_url
from chalicelib.plaid.client import reset_plaid
from chalicelib.settings import get_settings, reset_settings
from ops.fakes.plaid import FakePlaid
from tests.conftest import empty_queue
from tests.pipeline.sync_support import SyncHarness

#: The tests' clock, read once: every handler gets this instant and the fake Plaid's "today" is its
#: date, so a run that crosses midnight UTC sees one day. (Readers of WEBHOOK_INFO drop rows whose
#: ttl has passed by the wall clock, so it must be near the wall clock.)
NOW = datetime.now(UTC).replace(microsecond=0)


def _refresh() -> None:
    reset_settings()
    reset_clients()
    reset_plaid()
    queue_url.cache_clear()


@pytest.fixture(scope="module")
def sync_plaid(aws_endpoint: str) -> Iterator[FakePlaid]:
    """A fake Plaid on its own port; the app's settings point at it, with small sync pages."""
    mp = pytest.MonkeyPatch()
    with FakePlaid(today=NOW.date()) as plaid:
        for key, value in {
            "PLAID_BASE_URL": plaid.url,
            "THROTTLE_DELAY_SECONDS": "0",
            "SYNC_PAGE_SIZE": "40",
        }.items():
            mp.setenv(key, value)
        _refresh()
        yield plaid
        mp.undo()
    _refresh()


@pytest.fixture
def harness(sync_plaid: FakePlaid, user_id: str) -> Iterator[SyncHarness]:
    """Direct handler calls over an empty throttle queue; the stream is read from now on."""
    sync_plaid.reset()
    empty_queue(get_settings().throttle_queue)
    yield SyncHarness(sync_plaid, user_id, NOW)
    empty_queue(get_settings().throttle_queue)
