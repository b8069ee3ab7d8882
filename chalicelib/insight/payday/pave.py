"""Pave: the payday Pave's cached income insight gives, when there is one.

The insight (cached by the Pave side of the service) carries a next income date, its cadence
and the income source. It answers only with a date after ``as_of``; no insight, no date or a
date already past (a stale cache) is :class:`PaveUnavailableError` and the chain moves on.
The following paydays, for the extended collection date, are projected from that date and
cadence with the Fed calendar (a semi-monthly date is paired with the 15th and the last day,
or with the day 15 apart).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from chalicelib.insight.calendar import last_day_of_month, previous_business_day
from chalicelib.insight.payday.collection import collection_dates
from chalicelib.insight.payday.types import NO_CADENCE, Detection, PaveUnavailableError, PaydayPrediction
from chalicelib.insight.schedule import LAST_DAY, Cadence, Schedule


@dataclass(frozen=True, slots=True)
class PaveIncome:
    """Pave's income insight as the cache holds it."""

    next_date: date | None
    cadence: str | None
    source: str | None = None
    confidence: float = 0.9


def _schedule(cadence: str, day: date) -> Schedule | None:
    """A schedule through ``day`` with ``cadence`` (the rule Pave's one date suggests)."""
    last_business = day == previous_business_day(last_day_of_month(day.year, day.month))
    if cadence == Cadence.WEEKLY:
        return Schedule.weekly(day.weekday())
    if cadence == Cadence.BIWEEKLY:
        return Schedule.biweekly(day)
    if cadence == Cadence.FOUR_WEEKLY:
        return Schedule.four_weekly(day)
    if cadence == Cadence.MONTHLY:
        return Schedule.last_business_day() if last_business else Schedule.monthly(day.day)
    if cadence == Cadence.SEMI_MONTHLY:
        if last_business or day.day in (14, 15):
            return Schedule.semi_monthly(15, LAST_DAY)
        return (
            Schedule.semi_monthly(day.day, day.day + 15)
            if day.day <= 15
            else Schedule.semi_monthly(day.day - 15, day.day)
        )
    return None


def predict(insight: PaveIncome | None, as_of: date) -> PaydayPrediction:
    if insight is None:
        raise PaveUnavailableError("no Pave income insight cached")
    if insight.next_date is None:
        raise PaveUnavailableError("the Pave income insight has no next income date")
    if insight.next_date <= as_of:
        raise PaveUnavailableError(f"the Pave income insight is stale (next date {insight.next_date.isoformat()})")
    cadence = (insight.cadence or NO_CADENCE).upper()
    schedule = _schedule(cadence, insight.next_date)
    upcoming = [insight.next_date, *(schedule.next_dates(insight.next_date, 2) if schedule else [])]
    return PaydayPrediction(
        Detection.PAVE,
        insight.next_date,
        cadence if schedule else NO_CADENCE,
        insight.confidence,
        source=insight.source,
        collection=collection_dates(upcoming),
        upcoming=tuple(upcoming),
        schedule=schedule.describe() if schedule else None,
    )
