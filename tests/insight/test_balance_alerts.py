"""Balance alerts: when one is due, at most one per 7 days, and exactly one whatever fails or races.

The code under test runs unchanged against the session's local DynamoDB (atomic requests)
and a fake Segment over HTTP. Failures are injected at the boundaries only: the fake's
error injection and holds, and a botocore hook on the one client factory
(:func:`tests.faults.aws_fault`). Time is injected; races use real threads.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest

from chalicelib.errors import TransientAWSError
from chalicelib.insight.balance_alerts import AlertOutcome, alert_message_id
from chalicelib.insight.balance_tracker import handle_balance_updates, track_user
from chalicelib.insight.balance_updates import BalanceUpdate, BalanceUpdateSource
from chalicelib.insight.data import alerts, keys
from chalicelib.insight.data.locks import get_lock
from chalicelib.insight.locker import Locker, LockLostError
from chalicelib.peers import LOW_BALANCE_ALERT, SegmentError, SegmentTracker
from chalicelib.peers.config import LOCAL_SEGMENT_WRITE_KEY
from chalicelib.peers.transport import RetryPolicy, Timeouts
from chalicelib.settings import get_settings
from ops.fakes.peers import FakeSegment
from tests.factories import uid
from tests.faults import aws_fault
from tests.insight.balances import (
    START,
    FakeClock,
    SeededUser,
    TickingClock,
    balances,
    seed_user,
    set_main_balance,
    set_threshold,
    sqs_record,
)

pytestmark = pytest.mark.integration

READ_TIMEOUT = 0.5


@pytest.fixture
def segment() -> Iterator[FakeSegment]:
    with FakeSegment() as fake:
        yield fake


@pytest.fixture
def tracker(segment: FakeSegment) -> SegmentTracker:
    return SegmentTracker(
        LOCAL_SEGMENT_WRITE_KEY, segment.url, timeouts=Timeouts(connect=0.5, read=READ_TIMEOUT), retry=RetryPolicy(1)
    )


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def locker(clock: FakeClock) -> Locker:
    return Locker(clock=clock, sleep=clock.sleep, heartbeat=timedelta(milliseconds=250))


@pytest.fixture
def low_user(aws_endpoint: str, user_id: str) -> SeededUser:
    """$20.00 available on the main account, a $50 threshold: an alert is due."""
    return seed_user(user_id, checking=balances(2_000, 2_500), threshold_dollars=50)


def alerts_of(segment: FakeSegment, user_id: str) -> list[dict[str, Any]]:
    """Every low-balance message Segment received for the user, duplicates included."""
    return [m for m in segment.messages if m.get("event") == LOW_BALANCE_ALERT and m["userId"] == user_id]


def notified(segment: FakeSegment, user_id: str) -> list[dict[str, Any]]:
    """Distinct notifications: Segment keeps one message per messageId."""
    return [t for t in segment.tracks(LOW_BALANCE_ALERT) if t["userId"] == user_id]


def update_for(user_id: str) -> str:
    return BalanceUpdate(user_id, BalanceUpdateSource.REFINER, "2026-11-20T12:30:00.000000Z").to_json()


def deliver(user_id: str, locker: Locker, tracker: SegmentTracker) -> AlertOutcome:
    return track_user(user_id, locker=locker, tracker=tracker).alert


# --- when an alert is due ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("threshold", "expected"),
    [(None, AlertOutcome.OFF), ("20.00", AlertOutcome.NOT_LOW), ("20.01", AlertOutcome.SENT)],
    ids=["off", "at", "below"],
)
def test_the_threshold_off_at_and_below(
    aws_endpoint: str,
    user_id: str,
    threshold: str | None,
    expected: AlertOutcome,
    locker: Locker,
    tracker: SegmentTracker,
    segment: FakeSegment,
) -> None:
    # GIVEN $20.00 available on the main account and a threshold: none, $20.00, $20.01
    seed_user(user_id, checking=balances(2_000, 2_500), threshold_dollars=threshold)
    # WHEN the balances are tracked THEN only a balance strictly below the threshold alerts
    assert deliver(user_id, locker, tracker) is expected
    assert len(notified(segment, user_id)) == (1 if expected is AlertOutcome.SENT else 0)
    # AND nothing but an alert takes the user's lock
    assert (get_lock(keys.balance_alert_lock_key(user_id)) is not None) is (expected is AlertOutcome.SENT)


def test_a_user_without_settings_gets_no_alert(
    aws_endpoint: str, user_id: str, locker: Locker, tracker: SegmentTracker
) -> None:
    seed_user(user_id, checking=balances(1), settings=False)
    assert deliver(user_id, locker, tracker) is AlertOutcome.OFF


def test_the_alert_names_the_account_its_balances_and_the_threshold(
    low_user: SeededUser, locker: Locker, tracker: SegmentTracker, segment: FakeSegment
) -> None:
    assert deliver(low_user.user_id, locker, tracker) is AlertOutcome.SENT
    [track] = notified(segment, low_user.user_id)
    assert track["properties"] == {
        "account_id": low_user.checking_id,
        "balance": 2_000,
        "balance_source": "available",
        "threshold": 5_000,
        "available_balance": 2_000,
        "current_balance": 2_500,
    }
    assert track["timestamp"].startswith("2026-11-20T12:30:00.123")
    state = alerts.get_alert(low_user.user_id)
    assert state is not None and state.alert_sent and state.updated_date == START
    assert track["messageId"] == alert_message_id(alerts.Claim(low_user.user_id, START, resumed=False))


@pytest.mark.parametrize(
    ("available", "current", "expected", "source"),
    [
        (None, 4_000, AlertOutcome.SENT, "current"),  # available not reported: current decides
        (6_000, 4_000, AlertOutcome.NOT_LOW, None),  # available reported and fine: current is not used
        (4_000, 6_000, AlertOutcome.SENT, "available"),
        (None, None, AlertOutcome.NO_BALANCE, None),
    ],
    ids=["current-fallback", "available-wins", "available-low", "nothing-reported"],
)
def test_available_balance_else_current(
    aws_endpoint: str,
    user_id: str,
    available: int | None,
    current: int | None,
    expected: AlertOutcome,
    source: str | None,
    locker: Locker,
    tracker: SegmentTracker,
    segment: FakeSegment,
) -> None:
    seed_user(user_id, checking=balances(available, current), threshold_dollars=50)
    assert deliver(user_id, locker, tracker) is expected
    sources = [t["properties"]["balance_source"] for t in notified(segment, user_id)]
    assert sources == ([source] if source else [])


def test_at_most_one_alert_per_seven_days(
    low_user: SeededUser, clock: FakeClock, locker: Locker, tracker: SegmentTracker, segment: FakeSegment
) -> None:
    assert deliver(low_user.user_id, locker, tracker) is AlertOutcome.SENT
    # WHEN the balance is still low six days later THEN the cooldown holds (without taking the lock)
    clock.advance(timedelta(days=6, hours=23).total_seconds())
    released = get_lock(keys.balance_alert_lock_key(low_user.user_id))
    assert deliver(low_user.user_id, locker, tracker) is AlertOutcome.COOLING_DOWN
    assert get_lock(keys.balance_alert_lock_key(low_user.user_id)) == released
    # AND seven days after the first, a new alert goes out as a new message
    clock.advance(timedelta(hours=1).total_seconds())
    assert deliver(low_user.user_id, locker, tracker) is AlertOutcome.SENT
    first, second = notified(segment, low_user.user_id)
    assert first["messageId"] != second["messageId"]


# --- a crash at each step -----------------------------------------------------------------


def _is_alert_mark(params: dict[str, Any]) -> bool:
    return params.get("TableName") == get_settings().pave_table and "alert_sent = :true" in str(
        params.get("UpdateExpression")
    )


def _is_claim(params: dict[str, Any]) -> bool:
    return params.get("TableName") == get_settings().pave_table and "updated_date = :now" in str(
        params.get("UpdateExpression")
    )


def _is_lock_put(params: dict[str, Any]) -> bool:
    return params.get("TableName") == get_settings().locks_table


def _is_savings_put(params: dict[str, Any]) -> bool:
    return params.get("TableName") == get_settings().pave_table


@pytest.mark.parametrize(
    ("operation", "when", "sent_before_crash"),
    [
        ("PutItem", _is_savings_put, False),
        ("PutItem", _is_lock_put, False),
        ("UpdateItem", _is_claim, False),
        ("UpdateItem", _is_alert_mark, True),
    ],
    ids=["writing-the-savings-month", "acquiring-the-lock", "claiming-the-cooldown", "marking-it-sent"],
)
def test_a_crash_at_a_dynamodb_step_is_finished_by_the_redelivery(
    low_user: SeededUser,
    operation: str,
    when: Any,
    sent_before_crash: bool,
    locker: Locker,
    tracker: SegmentTracker,
    segment: FakeSegment,
) -> None:
    user = low_user.user_id
    # GIVEN the step fails once
    with aws_fault("dynamodb", operation, when=when) as fault, pytest.raises(TransientAWSError):
        deliver(user, locker, tracker)
    assert fault.hits == 1
    state = alerts.get_alert(user)
    assert (state is not None and not state.alert_sent) is (operation == "UpdateItem" and sent_before_crash)
    # WHEN the message is delivered again
    outcome = deliver(user, locker, tracker)
    # THEN the alert is complete and the user was notified once (a resend carries the same messageId)
    assert outcome is (AlertOutcome.RESUMED if sent_before_crash else AlertOutcome.SENT)
    assert len(notified(segment, user)) == 1
    assert len({m["messageId"] for m in alerts_of(segment, user)}) == 1
    state = alerts.get_alert(user)
    assert state is not None and state.alert_sent
    # AND a third delivery changes nothing
    assert deliver(user, locker, tracker) is AlertOutcome.COOLING_DOWN
    assert len(notified(segment, user)) == 1


def test_segment_failing_leaves_a_claimed_alert_that_the_redelivery_sends(
    low_user: SeededUser, locker: Locker, tracker: SegmentTracker, segment: FakeSegment
) -> None:
    user = low_user.user_id
    # GIVEN Segment answers 500 to the notification
    segment.fail_next(1, 500)
    with pytest.raises(SegmentError):
        deliver(user, locker, tracker)
    # THEN the cooldown is claimed, nothing was sent
    state = alerts.get_alert(user)
    assert state is not None and not state.alert_sent and notified(segment, user) == []
    # WHEN the balance recovers before the redelivery THEN the claimed alert is still completed, as claimed
    set_main_balance(low_user, balances(900_000, 900_000))
    assert deliver(user, locker, tracker) is AlertOutcome.RESUMED
    [track] = notified(segment, user)
    assert track["properties"]["balance"] == 2_000


def test_a_notification_answered_too_late_is_not_sent_twice(
    low_user: SeededUser, locker: Locker, tracker: SegmentTracker, segment: FakeSegment
) -> None:
    user = low_user.user_id
    # GIVEN Segment takes the notification but answers only after the client gave up
    late = segment.hold_next()
    with pytest.raises(SegmentError, match="failed"):
        deliver(user, locker, tracker)
    late.release()
    segment.wait_idle()
    assert len(alerts_of(segment, user)) == 1
    # WHEN the message is delivered again THEN the same message goes out and Segment keeps one
    assert deliver(user, locker, tracker) is AlertOutcome.RESUMED
    assert len(alerts_of(segment, user)) == 2
    assert len(notified(segment, user)) == 1


def test_a_failed_release_lets_the_lease_lapse(
    low_user: SeededUser, clock: FakeClock, locker: Locker, tracker: SegmentTracker
) -> None:
    user = low_user.user_id
    key = keys.balance_alert_lock_key(user)

    def is_release(params: dict[str, Any]) -> bool:
        return params.get("TableName") == get_settings().locks_table and "#released" in str(
            params.get("UpdateExpression")
        )

    # GIVEN the release fails: the alert is done anyway, and the row still names its holder
    with aws_fault("dynamodb", "UpdateItem", when=is_release) as fault:
        assert deliver(user, locker, tracker) is AlertOutcome.SENT
    assert fault.hits == 1
    row = get_lock(key)
    assert row is not None and not row.is_released
    # WHEN its lease has passed THEN the next holder takes it at once
    clock.advance(60.5)
    held = Locker(clock=clock, busy_wait=timedelta(0)).acquire(key)
    assert held.fence > int(row.additional["fence"])


# --- duplicates, races and a stalled holder ------------------------------------------------


def test_duplicates_in_one_batch_are_handled_once(
    low_user: SeededUser, clock: FakeClock, locker: Locker, tracker: SegmentTracker, segment: FakeSegment
) -> None:
    body = update_for(low_user.user_id)
    records = [sqs_record(body), sqs_record(body), sqs_record("not json")]
    response = handle_balance_updates(records, clock=clock, locker=locker, tracker=tracker)
    assert response == {"batchItemFailures": []}
    assert len(alerts_of(segment, low_user.user_id)) == 1


def test_a_failing_user_fails_only_their_own_messages(
    aws_endpoint: str, clock: FakeClock, locker: Locker, tracker: SegmentTracker, segment: FakeSegment
) -> None:
    # GIVEN a batch with two messages for user A and one for user B, and A's claim fails
    user_a, user_b = uid("user"), uid("user")
    for user in (user_a, user_b):
        seed_user(user, checking=balances(100), threshold_dollars=50)
    a1, a2, b1 = (sqs_record(update_for(u)) for u in (user_a, user_a, user_b))

    def claim_of_a(params: dict[str, Any]) -> bool:
        return _is_claim(params) and keys.alert_key(user_a)["PK"] in str(params.get("Key"))

    with aws_fault("dynamodb", "UpdateItem", when=claim_of_a):
        response = handle_balance_updates([a1, b1, a2], clock=clock, locker=locker, tracker=tracker)
    # THEN both of A's messages are reported for a retry, and B was alerted
    assert response == {"batchItemFailures": [{"itemIdentifier": a1["messageId"]}, {"itemIdentifier": a2["messageId"]}]}
    assert len(notified(segment, user_b)) == 1 and notified(segment, user_a) == []


def test_concurrent_deliveries_notify_once(low_user: SeededUser, tracker: SegmentTracker, segment: FakeSegment) -> None:
    # GIVEN six copies of the update delivered at once to six concurrent handlers (real threads and time)
    locker = Locker(clock=TickingClock(), refresh=timedelta(milliseconds=50), heartbeat=timedelta(milliseconds=250))
    body = update_for(low_user.user_id)
    start = threading.Barrier(6)
    responses: list[dict[str, Any]] = []

    def handler() -> None:
        start.wait()
        responses.append(handle_balance_updates([sqs_record(body)], locker=locker, tracker=tracker))

    threads = [threading.Thread(target=handler) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    # THEN exactly one notification was ever sent, and every handler finished (none had to retry)
    assert len(alerts_of(segment, low_user.user_id)) == 1
    assert responses == [{"batchItemFailures": []}] * 6
    state = alerts.get_alert(low_user.user_id)
    assert state is not None and state.alert_sent


def test_a_holder_stalled_past_its_lease_cannot_write_after_its_successor(
    low_user: SeededUser, clock: FakeClock, tracker: SegmentTracker, segment: FakeSegment
) -> None:
    user = low_user.user_id
    key = keys.balance_alert_lock_key(user)
    holder_a = Locker(clock=clock, sleep=clock.sleep, heartbeat=timedelta(milliseconds=100))
    holder_b = Locker(clock=clock, sleep=clock.sleep, heartbeat=timedelta(milliseconds=100))
    # GIVEN holder A claimed the alert and stalls inside the notification call, for as long as the
    # test holds it (its client waits: the stall ends when the test says, not when a timeout fires)
    hold = segment.hold_next()
    patient = SegmentTracker(
        LOCAL_SEGMENT_WRITE_KEY, segment.url, timeouts=Timeouts(connect=0.5, read=60), retry=RetryPolicy(1)
    )
    outcome_a: list[BaseException | AlertOutcome] = []

    def run_a() -> None:
        try:
            outcome_a.append(deliver(user, holder_a, patient))
        except BaseException as exc:  # noqa: BLE001 - the test inspects it
            outcome_a.append(exc)

    thread_a = threading.Thread(target=run_a)
    thread_a.start()
    assert hold.wait_arrived(5)
    row_a = get_lock(key)
    assert row_a is not None
    fence_a = int(row_a.additional["fence"])

    def from_a(params: dict[str, Any]) -> bool:
        owner = (params.get("ExpressionAttributeValues") or {}).get(":owner")
        return owner in (row_a.owner_name, {"S": row_a.owner_name})

    # AND its heartbeats stop reaching DynamoDB, until its lease has passed
    with aws_fault("dynamodb", "UpdateItem", times=10**6, when=from_a):
        clock.advance(61)
        # WHEN the redelivered message reaches holder B
        outcome_b = deliver(user, holder_b, tracker)
        # THEN B took the lease over with a newer token and completed A's claim
        assert outcome_b is AlertOutcome.RESUMED
        # AND when A wakes up, its write is refused by the fence: it learns it lost the lock
        hold.release()
        thread_a.join(timeout=10)
    [result_a] = outcome_a
    assert isinstance(result_a, LockLostError), result_a
    state = alerts.get_alert(user)
    assert state is not None and state.alert_sent and state.fence is not None and state.fence > fence_a
    # AND the user was notified once: both sends carried the claim's messageId
    assert len(alerts_of(segment, user)) == 2
    assert len(notified(segment, user)) == 1


def test_a_threshold_switched_off_stops_new_alerts(
    low_user: SeededUser, clock: FakeClock, locker: Locker, tracker: SegmentTracker
) -> None:
    assert deliver(low_user.user_id, locker, tracker) is AlertOutcome.SENT
    set_threshold(low_user.user_id, None)
    clock.advance(timedelta(days=8).total_seconds())
    assert deliver(low_user.user_id, locker, tracker) is AlertOutcome.OFF
