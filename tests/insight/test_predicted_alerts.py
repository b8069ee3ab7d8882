"""The predicted low-balance alert: when the forecast says the balance will likely go below the
threshold before payday, one ``low_balance_predicted``, under today's alert's lock, cooldown and
exactly-once rules.

Runs against the session's local DynamoDB and a fake Segment over HTTP; time is injected (the
forecast reads the injected clock's day). Failures are injected at the boundaries only.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest

from chalicelib.errors import TransientAWSError
from chalicelib.insight.balance_alerts import AlertOutcome
from chalicelib.insight.balance_tracker import TrackOutcome, track_user
from chalicelib.insight.data import alerts, keys
from chalicelib.insight.data.alerts import AlertKind
from chalicelib.insight.data.locks import get_lock
from chalicelib.insight.locker import Locker
from chalicelib.insight.predicted_alerts import PredictedOutcome, predicted_message_id
from chalicelib.peers import LOW_BALANCE_ALERT, LOW_BALANCE_PREDICTED, SegmentError, SegmentTracker
from chalicelib.peers.config import LOCAL_SEGMENT_WRITE_KEY
from chalicelib.peers.transport import RetryPolicy, Timeouts
from chalicelib.settings import get_settings
from ops.fakes.peers import FakeSegment
from tests.faults import aws_fault
from tests.insight.balances import START, FakeClock, SeededUser, balances, set_main_balance
from tests.insight.forecast_users import ForecastUser, store_forecast_user

pytestmark = pytest.mark.integration

TODAY = START.date()  # a Friday; the user is paid every other Friday, next on 2026-11-27


@pytest.fixture
def segment() -> Iterator[FakeSegment]:
    with FakeSegment() as fake:
        yield fake


@pytest.fixture
def tracker(segment: FakeSegment) -> SegmentTracker:
    return SegmentTracker(LOCAL_SEGMENT_WRITE_KEY, segment.url, timeouts=Timeouts(0.5, 0.5), retry=RetryPolicy(1))


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def locker(clock: FakeClock) -> Locker:
    return Locker(clock=clock, sleep=clock.sleep, heartbeat=timedelta(milliseconds=250))


def store(user_id: str, available: int, threshold: int | None = 100) -> ForecastUser:
    return store_forecast_user(user_id, TODAY, START, available=available, threshold_dollars=threshold)


@pytest.fixture
def heading_low(aws_endpoint: str, user_id: str) -> ForecastUser:
    """$150 in checking, a $100 threshold, $25 of groceries a day and payday a week away."""
    return store(user_id, 15_000)


def deliver(user: ForecastUser, locker: Locker, tracker: SegmentTracker) -> TrackOutcome:
    return track_user(user.user_id, locker=locker, tracker=tracker)


def predicted(segment: FakeSegment, user_id: str) -> list[dict[str, Any]]:
    """Distinct predicted alerts (Segment keeps one message per messageId)."""
    return [t for t in segment.tracks(LOW_BALANCE_PREDICTED) if t["userId"] == user_id]


def received(segment: FakeSegment, user_id: str) -> list[dict[str, Any]]:
    """Every predicted-alert message Segment received, duplicates included."""
    return [m for m in segment.messages if m.get("event") == LOW_BALANCE_PREDICTED and m["userId"] == user_id]


# --- when one is due ------------------------------------------------------------------------


def test_a_balance_heading_below_the_threshold_before_payday_is_alerted_once(
    heading_low: ForecastUser, locker: Locker, tracker: SegmentTracker, segment: FakeSegment
) -> None:
    # WHEN a balance update arrives while the balance is still above the threshold
    outcome = deliver(heading_low, locker, tracker)
    # THEN today's alert has nothing to say, and the predicted one goes out
    assert (outcome.alert, outcome.predicted) == (AlertOutcome.NOT_LOW, PredictedOutcome.SENT)
    assert [t for t in segment.tracks(LOW_BALANCE_ALERT) if t["userId"] == heading_low.user_id] == []
    [track] = predicted(segment, heading_low.user_id)
    # AND it names the lowest day before payday (the eve of payday: six days of $25) and its balance
    assert track["properties"] == {
        "account_id": heading_low.checking_id,
        "predicted_date": "2026-11-26",
        "predicted_balance": 15_000 - 6 * 2_500,
        "probability": 1.0,
        "threshold": 10_000,
        "next_payday": "2026-11-27",
        "balance": 15_000,
        "balance_source": "available",
    }
    state = alerts.get_alert(heading_low.user_id, AlertKind.PREDICTED)
    assert state is not None and state.alert_sent
    claim = alerts.Claim(heading_low.user_id, state.updated_date, resumed=False, kind=AlertKind.PREDICTED)
    assert track["messageId"] == predicted_message_id(claim)
    # AND the low-balance alert's own row is untouched
    assert alerts.get_alert(heading_low.user_id) is None


def test_at_most_one_predicted_alert_per_seven_days(
    heading_low: ForecastUser, clock: FakeClock, locker: Locker, tracker: SegmentTracker, segment: FakeSegment
) -> None:
    assert deliver(heading_low, locker, tracker).predicted is PredictedOutcome.SENT
    # WHEN more updates arrive within the 7 days THEN the cooldown holds, without the lock
    clock.advance(timedelta(days=6, hours=23).total_seconds())
    released = get_lock(keys.balance_alert_lock_key(heading_low.user_id))
    assert deliver(heading_low, locker, tracker).predicted is PredictedOutcome.COOLING_DOWN
    assert get_lock(keys.balance_alert_lock_key(heading_low.user_id)) == released
    assert len(predicted(segment, heading_low.user_id)) == 1


@pytest.mark.parametrize(
    ("available", "threshold", "expected"),
    [
        (500_000, 100, (AlertOutcome.NOT_LOW, PredictedOutcome.UNLIKELY)),
        (5_000, 100, (AlertOutcome.SENT, PredictedOutcome.NOT_CHECKED)),
        (15_000, None, (AlertOutcome.OFF, PredictedOutcome.NOT_CHECKED)),
    ],
    ids=["plenty-until-payday", "already-low", "alerts-off"],
)
def test_no_predicted_alert_when_unlikely_low_now_or_off(
    aws_endpoint: str,
    user_id: str,
    available: int,
    threshold: int | None,
    expected: tuple[AlertOutcome, PredictedOutcome],
    locker: Locker,
    tracker: SegmentTracker,
    segment: FakeSegment,
) -> None:
    user = store(user_id, available, threshold)
    outcome = deliver(user, locker, tracker)
    assert (outcome.alert, outcome.predicted) == expected
    assert predicted(segment, user_id) == []


def test_a_user_the_forecast_cannot_project_gets_no_predicted_alert(
    aws_endpoint: str, user_id: str, locker: Locker, tracker: SegmentTracker, segment: FakeSegment
) -> None:
    from tests.insight.balances import seed_user

    seed_user(user_id, checking=balances(15_000, 15_000), threshold_dollars=100)  # no transactions at all
    outcome = track_user(user_id, locker=locker, tracker=tracker)
    assert (outcome.alert, outcome.predicted) == (AlertOutcome.NOT_LOW, PredictedOutcome.NO_FORECAST)
    assert predicted(segment, user_id) == []


def test_the_configured_level_decides(
    heading_low: ForecastUser, override_settings: Any, locker: Locker, tracker: SegmentTracker, segment: FakeSegment
) -> None:
    override_settings(LOW_BALANCE_PREDICTION_LEVEL="1")  # a probability never exceeds 1: off
    assert get_settings().low_balance_prediction_level == 1.0
    assert deliver(heading_low, locker, tracker).predicted is PredictedOutcome.UNLIKELY
    assert predicted(segment, heading_low.user_id) == []


# --- exactly once, whatever fails -----------------------------------------------------------


def _is_predicted_mark(params: dict[str, Any]) -> bool:
    return "PREDICTED" in str(params.get("Key")) and "alert_sent = :true" in str(params.get("UpdateExpression"))


def _is_predicted_claim(params: dict[str, Any]) -> bool:
    return "PREDICTED" in str(params.get("Key")) and "updated_date = :now" in str(params.get("UpdateExpression"))


@pytest.mark.parametrize(
    ("when", "sent_before_crash"),
    [(_is_predicted_claim, False), (_is_predicted_mark, True)],
    ids=["claiming-the-cooldown", "marking-it-sent"],
)
def test_a_crash_is_finished_by_the_redelivery(
    heading_low: ForecastUser,
    when: Any,
    sent_before_crash: bool,
    locker: Locker,
    tracker: SegmentTracker,
    segment: FakeSegment,
) -> None:
    user = heading_low.user_id
    # GIVEN the step fails once
    with aws_fault("dynamodb", "UpdateItem", when=when) as fault, pytest.raises(TransientAWSError):
        deliver(heading_low, locker, tracker)
    assert fault.hits == 1
    # WHEN the message is delivered again
    outcome = deliver(heading_low, locker, tracker).predicted
    # THEN the alert is complete and the user was told once (a resend carries the same messageId)
    assert outcome is (PredictedOutcome.RESUMED if sent_before_crash else PredictedOutcome.SENT)
    assert len(predicted(segment, user)) == 1
    assert len({m["messageId"] for m in received(segment, user)}) == 1
    # AND a third delivery changes nothing
    assert deliver(heading_low, locker, tracker).predicted is PredictedOutcome.COOLING_DOWN
    assert len(predicted(segment, user)) == 1


def test_segment_failing_leaves_a_claim_that_the_redelivery_sends_as_claimed(
    heading_low: ForecastUser, locker: Locker, tracker: SegmentTracker, segment: FakeSegment
) -> None:
    user = heading_low.user_id
    # GIVEN Segment answers 500 to the notification
    segment.fail_next(1, 500)
    with pytest.raises(SegmentError):
        deliver(heading_low, locker, tracker)
    state = alerts.get_alert(user, AlertKind.PREDICTED)
    assert state is not None and not state.alert_sent and predicted(segment, user) == []
    # WHEN payday came early and the balance is fine by the redelivery
    set_main_balance(SeededUser(user, heading_low.item_id, heading_low.checking_id), balances(900_000, 900_000))
    # THEN the claimed alert is still completed, with what the claim recorded
    assert deliver(heading_low, locker, tracker).predicted is PredictedOutcome.RESUMED
    [track] = predicted(segment, user)
    assert (track["properties"]["balance"], track["properties"]["predicted_balance"]) == (15_000, 0)
