"""The lease locker on the shared ``locks`` table: layout, heartbeat, takeover, fencing, and Go lockers.

Every test runs against the session's local DynamoDB, whose requests are atomic as in AWS.
Time is injected (:class:`FakeClock`, whose ``sleep`` moves it), so waiting out a 60 s lease
takes no wall time; heartbeat threads run with a short real period.
"""

from __future__ import annotations

import threading
from datetime import timedelta
from typing import Any

import pytest

from chalicelib.insight.data import tables
from chalicelib.insight.data.locks import get_lock
from chalicelib.insight.locker import LockBusyError, Locker, LockLostError, describe, our_expiry
from tests.factories import uid
from tests.faults import aws_fault
from tests.insight.balances import START, FakeClock, GoLocker

pytestmark = pytest.mark.integration

LEASE = timedelta(seconds=60)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


def locker(clock: FakeClock, **options: Any) -> Locker:
    settings: dict[str, Any] = {"heartbeat": timedelta(milliseconds=20), "refresh": timedelta(seconds=1)}
    settings.update(options)
    return Locker(clock=clock, sleep=clock.sleep, **settings)


@pytest.fixture
def key() -> str:
    return f"balance-alert:user_id:{uid('user')}"


def stored(key: str) -> dict[str, Any]:
    row = tables.locks().get_item(Key={"key": key}, ConsistentRead=True).get("Item")
    assert row is not None
    return dict(row)


def test_an_acquired_lock_has_dynamolocks_layout_and_a_fence(aws_endpoint: str, clock: FakeClock, key: str) -> None:
    # WHEN a free lock is acquired
    held = locker(clock).acquire(key)
    # THEN the row is dynamolock's: owner, Go duration text, an RVN (ours carries its expiry), and our fence
    row = stored(key)
    assert set(row) == {"key", "ownerName", "leaseDuration", "recordVersionNumber", "fence"}
    assert (row["ownerName"], row["leaseDuration"]) == (held.owner_name, "1m0s")
    assert our_expiry(row["recordVersionNumber"]) == held.expires_at.replace(microsecond=123000)
    assert held.expires_at == START + LEASE
    # AND the fence is no smaller than the acquisition instant in microseconds
    assert int(row["fence"]) == held.fence >= int(START.timestamp() * 1_000_000)
    # WHEN it is released THEN the row stays, marked released the way dynamolock marks it
    assert locker(clock).release(held) is True
    assert stored(key)["isReleased"] == "1"
    assert describe(get_lock(key), clock())["state"] == "released"


def test_a_held_lease_is_renewed_by_its_heartbeat(aws_endpoint: str, clock: FakeClock, key: str) -> None:
    lock = locker(clock)
    with lock.hold(key) as held:
        first = held.record_version_number
        clock.advance(30)
        # WHEN two heartbeats have gone out
        assert held.wait_renewals(2, timeout=5)
        # THEN the row carries a new RVN and an expiry a lease after the renewal
        row = stored(key)
        assert row["recordVersionNumber"] == held.record_version_number != first
        assert held.expires_at == START + timedelta(seconds=30) + LEASE
        assert row["ownerName"] == held.owner_name
    assert stored(key)["isReleased"] == "1"


def test_a_live_holder_keeps_the_lock(aws_endpoint: str, clock: FakeClock, key: str) -> None:
    # GIVEN a holder inside its lease
    held = locker(clock).acquire(key)
    # WHEN another process tries THEN it waits its busy_wait (5 s of the injected clock) and gives up
    with pytest.raises(LockBusyError):
        locker(clock).acquire(key)
    assert stored(key)["ownerName"] == held.owner_name
    assert clock() - START >= timedelta(seconds=5)


def test_an_expired_lease_of_ours_is_taken_over_at_once_and_the_old_holder_is_fenced(
    aws_endpoint: str, clock: FakeClock, key: str
) -> None:
    # GIVEN a holder that stopped renewing
    old_lock = locker(clock)
    old = old_lock.acquire(key)
    # WHEN its expiry has passed
    clock.advance(60.001)
    new = locker(clock).acquire(key)
    # THEN the new holder got it without waiting, with a larger fencing token
    assert clock() == START + timedelta(seconds=60.001)
    assert new.fence > old.fence
    assert stored(key)["ownerName"] == new.owner_name
    # AND the old holder learns it on its next heartbeat, and its release changes nothing
    with pytest.raises(LockLostError):
        old_lock.heartbeat(old)
    with pytest.raises(LockLostError):
        old_lock.ensure_held(old)
    assert old_lock.release(old) is False
    assert stored(key)["ownerName"] == new.owner_name
    assert "isReleased" not in stored(key)


def test_concurrent_acquirers_get_the_lease_one_at_a_time(aws_endpoint: str, key: str) -> None:
    # GIVEN eight threads racing for one free lock (real time, atomic conditional puts)
    start, winners, busy = threading.Barrier(8), [], []
    lock = Locker(busy_wait=timedelta(0))

    def race() -> None:
        start.wait()
        try:
            winners.append(lock.acquire(key))
        except LockBusyError:
            busy.append(1)

    threads = [threading.Thread(target=race) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    # THEN exactly one holds it and the others were told it is busy
    assert len(winners) == 1 and len(busy) == 7
    assert stored(key)["ownerName"] == winners[0].owner_name


def test_the_fence_keeps_rising_when_the_row_is_deleted(aws_endpoint: str, clock: FakeClock, key: str) -> None:
    # GIVEN a lock acquired and released twice: the counter goes up by one while the row lives
    lock = locker(clock)
    first = lock.acquire(key)
    lock.release(first)
    second = lock.acquire(key)
    assert second.fence == first.fence + 1
    lock.release(second)
    # WHEN an operator deletes the row and a second later the lock is taken again
    tables.locks().delete_item(Key={"key": key})
    clock.advance(1)
    third = lock.acquire(key)
    # THEN the token is still larger than any before it
    assert third.fence > second.fence


# --- Go lockers (cirello.io/dynamolock) on the same rows ------------------------------


def test_a_go_holder_that_heartbeats_keeps_the_lock_from_us(aws_endpoint: str, clock: FakeClock, key: str) -> None:
    # GIVEN a Go service holding the lock and renewing it
    go = GoLocker()
    assert go.acquire(key)

    def beating(seconds: float) -> None:
        clock.advance(seconds)
        assert go.heartbeat(key)

    lock = Locker(clock=clock, sleep=beating, refresh=timedelta(seconds=1))
    # WHEN we try THEN we see its RVN change, know it alive, and give up after busy_wait
    with pytest.raises(LockBusyError):
        lock.acquire(key)
    assert stored(key)["ownerName"] == go.owner
    assert clock() - START < LEASE


def test_a_silent_go_holder_is_taken_over_after_its_rvn_stood_still_a_whole_lease(
    aws_endpoint: str, clock: FakeClock, key: str
) -> None:
    # GIVEN a Go holder (with data and its own attribute) that crashed: its RVN never changes again
    go = GoLocker()
    assert go.acquire(key, data=b"go-payload")
    tables.locks().update_item(
        Key={"key": key}, UpdateExpression="SET team = :r", ExpressionAttributeValues={":r": "payments"}
    )
    # WHEN we acquire (looking every 5 s)
    held = locker(clock, refresh=timedelta(seconds=5)).acquire(key)
    # THEN we waited one lease of our own clock watching the same RVN, as dynamolock does, then took it
    assert LEASE <= clock() - START <= LEASE + timedelta(seconds=5)
    row = stored(key)
    assert row["ownerName"] == held.owner_name
    # AND its data and attributes came along, as a Go acquirer would carry them
    assert bytes(row["data"].value) == b"go-payload" and row["team"] == "payments"


def test_go_and_our_holders_exclude_each_other_and_keep_the_fence(
    aws_endpoint: str, clock: FakeClock, key: str
) -> None:
    lock = locker(clock)
    go = GoLocker()
    # GIVEN we hold the lock and heartbeat it
    with lock.hold(key) as ours:
        # WHEN a Go locker tries: its first pass only watches, and our heartbeat changes the RVN
        assert go.acquire(key) is False
        assert ours.wait_renewals(ours.renewals + 1, timeout=5)
        # THEN after a whole Go lease it has still not seen the same RVN twice, so it cannot take it
        go.clock = lambda: START + timedelta(minutes=5)
        assert go.acquire(key) is False
        assert stored(key)["ownerName"] == ours.owner_name
    # WHEN we release THEN the Go locker acquires at once, keeping our fence as it keeps every attribute
    assert go.acquire(key) is True
    assert int(stored(key)["fence"]) == ours.fence
    # AND when it releases, our next holder's token is larger than ours was
    assert go.release(key)
    after = lock.acquire(key)
    assert after.fence == ours.fence + 1


def test_heartbeats_that_cannot_reach_dynamodb_for_a_lease_lose_the_lock(
    aws_endpoint: str, clock: FakeClock, key: str
) -> None:
    lock = locker(clock)
    held = lock.acquire(key)
    # GIVEN every heartbeat fails (a partition) WHEN a lease passes THEN the holder knows it lost the lease
    with aws_fault("dynamodb", "UpdateItem", times=10, code="InternalServerError"):
        clock.advance(61)
        with pytest.raises(LockLostError):
            lock.heartbeat(held)
    assert held.lost


def test_the_heartbeat_must_fit_twice_in_the_lease() -> None:
    with pytest.raises(ValueError, match="half the lease"):
        Locker(lease=timedelta(seconds=1), heartbeat=timedelta(seconds=0.6))


# --- the operator's tool ----------------------------------------------------------------


def test_the_operator_clears_only_a_lease_nobody_renews(aws_endpoint: str, capsys: pytest.CaptureFixture[str]) -> None:
    from ops import locks as tool

    user = uid("user")
    key = f"balance-alert:user_id:{user}"
    # GIVEN a live holder renewing every 20 ms: the tool sees the RVN move and refuses
    lock = Locker(heartbeat=timedelta(milliseconds=20))
    with lock.hold(key) as held:
        assert tool.main(["clear", user, "--watch", "0.3"]) == 1
        assert stored(key)["ownerName"] == held.owner_name and "isReleased" not in stored(key)
    # GIVEN a holder that died holding the lease (no heartbeat)
    dead = lock.acquire(key)
    capsys.readouterr()
    assert tool.main(["show", user]) == 0
    shown = capsys.readouterr().out
    assert f'"owner": "{dead.owner_name}"' in shown and '"state": "held"' in shown and f'"fence": {dead.fence}' in shown
    # WHEN the operator clears it THEN it is released, fence kept, and the next holder gets a larger token
    assert tool.main(["clear", user, "--watch", "0"]) == 0
    assert stored(key)["isReleased"] == "1" and int(stored(key)["fence"]) == dead.fence
    assert lock.acquire(key).fence > dead.fence
