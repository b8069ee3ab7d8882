"""Fixtures for the Pave client: the fake Pave on an ephemeral port, a client aimed at it, a clock.

One fake serves the session, emptied before each test (user ids are unique per test anyway);
a test that stalls or stops a server gets its own, so a stalled request can never land in
another test's recordings. The fake's clock is injected, so "processed after N seconds" is a
clock move, not a sleep. Timeouts and backoff are short so
failure paths run in well under a second; the production values are in ``chalicelib.settings``.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta

import pytest

from chalicelib.data.transactions import Transaction
from chalicelib.peers.pave import PaveClient, pave_from
from ops.fakes.pave import FakePave

#: The fake's "now": insights and payday estimates are computed as of this instant.
NOW = datetime(2024, 6, 14, 15, 30, tzinfo=UTC)
TODAY = NOW.date()
#: Client read timeout in tests; a stall of STALL_SECONDS is sure to exceed it (teardown cuts the stall short).
READ_TIMEOUT = 0.3
STALL_SECONDS = 5.0
MAX_ATTEMPTS = 3


class Clock:
    """A settable clock for the fake (time moves only when a test says so)."""

    def __init__(self, now: datetime = NOW) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture(scope="session")
def shared_pave() -> Iterator[FakePave]:
    with FakePave() as fake:
        yield fake


@pytest.fixture
def pave(shared_pave: FakePave, clock: Clock) -> Iterator[FakePave]:
    """The session's fake, emptied and set to this test's clock and default processing.

    Stopping a server waits out its poll interval, so one fake serves the whole session; tests
    that stop it or stall it past the client's timeout start their own (:func:`own_pave`).
    """
    shared_pave.reset()
    shared_pave.now = clock
    shared_pave.set_processing(polls=1, seconds=0)
    yield shared_pave
    shared_pave.wait_idle()
    shared_pave.reset()


@pytest.fixture
def own_pave(clock: Clock) -> Iterator[FakePave]:
    """A fake of this test's own, stopped at the end (which also cuts a stalled request short)."""
    with FakePave(now=clock) as fake:
        yield fake


@pytest.fixture
def client(pave: FakePave) -> PaveClient:
    return pave_from(
        pave.config(
            connect_timeout_seconds=0.5,
            read_timeout_seconds=READ_TIMEOUT,
            max_attempts=MAX_ATTEMPTS,
            backoff_seconds=0.01,
            backoff_max_seconds=0.02,
            max_retry_after_seconds=0.5,
        )
    )


@pytest.fixture
def user_id() -> str:
    """A user id of the form Auth0 gives (``|`` must be path-escaped)."""
    return f"auth0|{uuid.uuid4().hex[:12]}"


def txn(
    user_id: str,
    txn_id: str,
    cents: int,
    day: date,
    *,
    name: str = "",
    merchant: str | None = None,
    pending: bool = False,
    removed: bool = False,
) -> Transaction:
    """A stored transaction row (cents, positive = money out), as the feeder reads them."""
    return Transaction(
        user_id=user_id,
        acct_id="acct-checking",
        txn_id=txn_id,
        amount=cents,
        txn_date=day,
        name=name or (merchant or txn_id).upper(),
        merchant_name=merchant,
        pending=pending,
        iso_currency_code="USD",
        removed=removed,
    )


def history(user_id: str, today: date = TODAY) -> list[Transaction]:
    """Six months of a realistic user: a monthly subscription, rent, biweekly pay, weekly coffee."""
    rows: list[Transaction] = []
    for i in range(6):
        rows.append(txn(user_id, f"netflix-{i}", 1549, _months_back(today, i, 3), merchant="Netflix"))
        rows.append(txn(user_id, f"rent-{i}", 145000, _months_back(today, i, 1), name="ACH RENT PMT 8812 OAKWOOD"))
    for i in range(12):
        rows.append(txn(user_id, f"pay-{i}", -212345, today - timedelta(days=14 * i + 4), name="ACME CORP PAYROLL PPD"))
    for i in range(10):
        rows.append(
            txn(user_id, f"coffee-{i}", 350 + 90 * (i % 4), today - timedelta(days=7 * i + 2), merchant="Blue Bottle")
        )
    return rows


def _months_back(today: date, months: int, day: int) -> date:
    month = today.month - 1 - months
    return date(today.year + month // 12, month % 12 + 1, day)
