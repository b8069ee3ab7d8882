"""Schedule expressions and scheduled handlers (no AWS: moto never fires scheduled rules)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from chalice import Chalice, Cron, Rate

from ops.runtime import EventRuntime
from ops.runtime.errors import ScheduleExpressionError, UnknownFunctionError
from ops.runtime.schedules import parse_schedule
from tests.runtime.factories import declaration_for

WEDNESDAY_NOON = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)
SATURDAY_MIDNIGHT = datetime(2026, 11, 28, 0, 0, tzinfo=UTC)


def next_after(expression: str, moment: datetime, anchor: datetime = WEDNESDAY_NOON) -> datetime | None:
    return parse_schedule(expression, anchor).next_after(moment)


def test_weekly_cron_with_day_name_fires_next_saturday_midnight() -> None:
    # GIVEN the institution sync's schedule, as Chalice renders Cron(0, 0, '?', '*', 'SAT', '*')
    expression = Cron(0, 0, "?", "*", "SAT", "*").to_string()
    # WHEN asked on a Wednesday THEN it fires on Saturday 00:00 UTC, and a week later after that
    assert next_after(expression, WEDNESDAY_NOON) == SATURDAY_MIDNIGHT
    assert next_after(expression, SATURDAY_MIDNIGHT) == SATURDAY_MIDNIGHT + timedelta(days=7)
    assert next_after(expression, SATURDAY_MIDNIGHT - timedelta(seconds=1)) == SATURDAY_MIDNIGHT


@pytest.mark.parametrize(
    ("expression", "after", "expected"),
    [
        ("cron(*/15 9-17 ? * MON-FRI *)", datetime(2026, 11, 27, 17, 50), datetime(2026, 11, 30, 9, 0)),
        ("cron(*/15 9-17 ? * MON-FRI *)", datetime(2026, 11, 27, 10, 1), datetime(2026, 11, 27, 10, 15)),
        ("cron(0 12 1 JAN,JUL ? *)", datetime(2026, 11, 25), datetime(2027, 1, 1, 12, 0)),
        ("cron(30 6 ? * 1 *)", datetime(2026, 11, 25), datetime(2026, 11, 29, 6, 30)),  # 1 = Sunday
        ("cron(0 0 29 2 ? *)", datetime(2026, 11, 25), datetime(2028, 2, 29, 0, 0)),
        ("cron(5 4 1 1 ? 2030)", datetime(2026, 11, 25), datetime(2030, 1, 1, 4, 5)),
        ("cron(0/20 * * * ? *)", datetime(2026, 11, 25, 3, 41), datetime(2026, 11, 25, 4, 0)),
    ],
)
def test_cron_next_fire_times(expression: str, after: datetime, expected: datetime) -> None:
    assert next_after(expression, after.replace(tzinfo=UTC)) == expected.replace(tzinfo=UTC)


def test_cron_that_cannot_fire_again_returns_none() -> None:
    assert next_after("cron(0 0 1 1 ? 2020)", WEDNESDAY_NOON) is None


def test_rate_fires_every_period_from_its_anchor() -> None:
    # GIVEN rate(5 minutes) created at Wednesday noon
    anchor = WEDNESDAY_NOON
    # THEN it fires at +5, +10 ... minutes, never at the anchor itself
    assert next_after("rate(5 minutes)", anchor, anchor) == anchor + timedelta(minutes=5)
    assert next_after("rate(5 minutes)", anchor + timedelta(minutes=7), anchor) == anchor + timedelta(minutes=10)
    assert next_after(Rate(1, Rate.HOURS).to_string(), anchor, anchor) == anchor + timedelta(hours=1)
    assert next_after("rate(2 days)", anchor - timedelta(days=1), anchor) == anchor + timedelta(days=2)


@pytest.mark.parametrize(
    "expression",
    [
        "cron(0 0 * * * *)",  # both day fields set
        "cron(0 0 ? * ? *)",  # neither
        "cron(0 0 L * ? *)",
        "cron(0 0 ? * 6#3 *)",
        "cron(0 0 1W * ? *)",
        "cron(0 0 ? * SAT)",  # five fields
        "cron(60 0 ? * SAT *)",
        "cron(0 24 ? * SAT *)",
        "cron(0 0 ? * XYZ *)",
        "cron(0 0 ? * 5-2 *)",
        "cron(*/0 0 ? * SAT *)",
        "rate(0 minutes)",
        "rate(5 weeks)",
        "every saturday",
    ],
)
def test_invalid_expressions_are_rejected(expression: str) -> None:
    with pytest.raises(ScheduleExpressionError):
        parse_schedule(expression, WEDNESDAY_NOON)


# --- scheduled handlers in the runtime ------------------------------------------------


def schedule_app(received: list[dict[str, Any]], failures: list[int]) -> Chalice:
    app = Chalice(app_name="rt-sched", configure_logs=False)

    @app.schedule(Cron(0, 0, "?", "*", "SAT", "*"), name="weekly")
    def weekly(event: Any) -> dict[str, str]:
        received.append({"detail_type": event.detail_type, "time": event.time, **event.to_dict()})
        if failures:
            failures.pop()
            raise RuntimeError("institution API down")
        return {"status": "synced"}

    return app


def clock_at(moment: datetime) -> Any:
    return moment.timestamp


def test_fire_schedule_invokes_the_handler_with_a_scheduled_event() -> None:
    # GIVEN an app with a weekly schedule and a runtime
    received: list[dict[str, Any]] = []
    runtime = EventRuntime(schedule_app(received, []), declaration_for("sched"), clock=clock_at(WEDNESDAY_NOON))
    # WHEN the schedule is fired on demand
    result = runtime.fire_schedule("weekly", SATURDAY_MIDNIGHT)
    # THEN the handler got EventBridge's "Scheduled Event" (parsed by Chalice) and its result comes back
    assert result == {"status": "synced"}
    (event,) = received
    assert event["detail_type"] == "Scheduled Event"
    assert event["source"] == "aws.events"
    assert event["time"] == "2026-11-28T00:00:00Z"
    assert event["detail"] == {}
    assert event["resources"] == ["arn:aws:events:us-east-1:123456789012:rule/rt-sched-dev-weekly"]
    with pytest.raises(UnknownFunctionError):
        runtime.fire_schedule("nightly")


def test_schedules_fire_when_due_and_failures_are_retried_like_async_invocations() -> None:
    # GIVEN a runtime created on Wednesday whose handler fails twice, then succeeds
    received: list[dict[str, Any]] = []
    runtime = EventRuntime(
        schedule_app(received, [1, 1]),
        declaration_for("sched"),
        clock=clock_at(WEDNESDAY_NOON),
        async_retry_delays=(60.0, 120.0),
    )
    assert runtime.next_fire("weekly") == SATURDAY_MIDNIGHT
    # WHEN time passes without reaching Saturday THEN nothing fires
    assert runtime.tick_schedules(SATURDAY_MIDNIGHT - timedelta(minutes=1)) == []
    # WHEN Saturday comes THEN it fires (and fails), then is retried after 60 s and 120 s more
    assert runtime.tick_schedules(SATURDAY_MIDNIGHT) == ["weekly"]
    assert runtime.tick_schedules(SATURDAY_MIDNIGHT + timedelta(seconds=30)) == []
    assert runtime.tick_schedules(SATURDAY_MIDNIGHT + timedelta(seconds=60)) == ["weekly"]
    assert runtime.tick_schedules(SATURDAY_MIDNIGHT + timedelta(seconds=180)) == ["weekly"]
    assert runtime.tick_schedules(SATURDAY_MIDNIGHT + timedelta(seconds=600)) == []
    # THEN every attempt carried the same fire time, and the next fire is a week later
    assert [e["time"] for e in received] == ["2026-11-28T00:00:00Z"] * 3
    assert runtime.next_fire("weekly") == SATURDAY_MIDNIGHT + timedelta(days=7)
    assert runtime.stats["weekly"].invocations == 3
    assert runtime.stats["weekly"].errors == 2


def test_missed_fires_are_skipped_not_backfilled() -> None:
    received: list[dict[str, Any]] = []
    runtime = EventRuntime(schedule_app(received, []), declaration_for("sched"), clock=clock_at(WEDNESDAY_NOON))
    # WHEN the runtime looks again three weeks later THEN it fires once, not three times
    assert runtime.tick_schedules(SATURDAY_MIDNIGHT + timedelta(days=15)) == ["weekly"]
    assert len(received) == 1
    assert runtime.next_fire("weekly") == SATURDAY_MIDNIGHT + timedelta(days=21)
