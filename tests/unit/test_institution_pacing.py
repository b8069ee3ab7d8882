"""The institution sync's pacing: Plaid's 50 requests per minute, and backoff after a failure."""

from __future__ import annotations

import pytest

from chalicelib.pipeline.institution_sync import RequestPacer, SyncPolicy


class FakeClock:
    """A monotonic clock that only moves when something sleeps."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


def test_calls_are_spaced_so_no_minute_holds_more_than_fifty() -> None:
    # GIVEN a pacer for 50 calls a minute
    clock = FakeClock()
    pacer = RequestPacer(50, clock=clock, sleep=clock.sleep)
    starts: list[float] = []
    # WHEN 120 calls go through it back to back
    for _ in range(120):
        pacer.wait()
        starts.append(clock.now)
    # THEN the first call did not wait, and any 60-second window holds at most 50 starts
    assert clock.sleeps[0] == pytest.approx(1.2)
    assert len(clock.sleeps) == 119
    for i, start in enumerate(starts):
        assert sum(1 for s in starts[i:] if s < start + 60) <= 50


def test_time_already_spent_counts_toward_the_spacing() -> None:
    # GIVEN a call, then 1 second of work
    clock = FakeClock()
    pacer = RequestPacer(50, clock=clock, sleep=clock.sleep)
    pacer.wait()
    clock.now += 1.0
    # WHEN the next call waits
    pacer.wait()
    # THEN it only waits the remaining 0.2 s; after a long pause it does not wait at all
    assert clock.sleeps == [pytest.approx(0.2)]
    clock.now += 5
    pacer.wait()
    assert len(clock.sleeps) == 1


def test_backoff_doubles_up_to_its_cap() -> None:
    policy = SyncPolicy(backoff_seconds=10, backoff_max_seconds=60)
    assert [policy.backoff(n) for n in range(1, 6)] == [10, 20, 40, 60, 60]


def test_a_pacer_needs_a_positive_rate() -> None:
    with pytest.raises(ValueError):
        RequestPacer(0, clock=FakeClock(), sleep=lambda s: None)
