"""The one clock the service, the local fakes and the tests read.

Code that needs the current instant asks :func:`utcnow` (or :func:`today`,
:func:`epoch_seconds`), never ``datetime.now``/``time.time``, so one call to
:func:`set_clock` (or ``with using(clock):``) moves the whole process: handlers, the fake
Plaid's "today", signed webhooks, tokens. That is how a test proves a run that crosses
midnight UTC still passes. The default is the system clock. Durations and timeouts use
``time.monotonic`` and are not this clock's business.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, date, datetime

#: A clock answers the current instant as an aware UTC ``datetime``.
Clock = Callable[[], datetime]


def system_clock() -> datetime:
    return datetime.now(UTC)


_clock: Clock = system_clock


def utcnow() -> datetime:
    """The current instant, timezone-aware, in UTC."""
    return _clock()


def today() -> date:
    """The current UTC date."""
    return _clock().date()


def epoch_seconds() -> float:
    """The current instant as seconds since the epoch (what JWT claims and TTLs count in)."""
    return _clock().timestamp()


def set_clock(clock: Clock | None) -> None:
    """Make ``clock`` the process's clock (``None``: the system clock again)."""
    global _clock  # noqa: PLW0603 - one clock per process is the point
    _clock = clock or system_clock


@contextmanager
def using(clock: Clock) -> Iterator[Clock]:
    """Read ``clock`` for the duration of the block, then whatever was there before."""
    previous = _clock
    set_clock(clock)
    try:
        yield clock
    finally:
        set_clock(previous)
