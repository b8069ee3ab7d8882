"""EventBridge schedule expressions: when ``rate(...)`` and ``cron(...)`` rules fire.

moto accepts scheduled rules but never fires them, so the runtime computes the fire
times itself. Cron follows AWS's six-field form ``cron(min hour day-of-month month
day-of-week year)`` in UTC: ``,`` ``-`` ``*`` ``/`` and ``?``, month names (JAN-DEC) and
day-of-week names (SUN-SAT, 1 = Sunday). Exactly one of the day fields must be ``?``,
as AWS requires. ``L``, ``W`` and ``#`` are rejected rather than guessed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Protocol

from ops.runtime.errors import ScheduleExpressionError

_MONTHS = {
    m: i for i, m in enumerate(("JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"), 1)
}
_DAYS = {d: i for i, d in enumerate(("SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"), 1)}
_RATE = re.compile(r"^rate\(\s*(\d+)\s+(minute|minutes|hour|hours|day|days)\s*\)$")
_CRON = re.compile(r"^cron\((.*)\)$")
_NAME = re.compile(r"[A-Z]{3}")
_UNIT_SECONDS = {"minute": 60, "hour": 3600, "day": 86400}
#: How far ahead a cron search looks before deciding the expression never fires.
_HORIZON_DAYS = 366 * 8


class Schedule(Protocol):
    @property
    def expression(self) -> str: ...

    def next_after(self, moment: datetime) -> datetime | None:
        """The first fire time strictly after ``moment`` (None if it never fires again)."""
        ...


def parse_schedule(expression: str, anchor: datetime) -> Schedule:
    """Parse ``expression``; ``anchor`` is when a rate schedule's period starts counting."""
    text = expression.strip()
    rate = _RATE.match(text)
    if rate:
        value, unit = int(rate.group(1)), rate.group(2).rstrip("s")
        if value <= 0:
            raise ScheduleExpressionError(f"{expression}: the rate must be positive")
        return RateSchedule(text, timedelta(seconds=value * _UNIT_SECONDS[unit]), _utc(anchor))
    cron = _CRON.match(text)
    if cron:
        return CronSchedule.parse(text, cron.group(1))
    raise ScheduleExpressionError(f"{expression!r} is neither rate(...) nor cron(...)")


@dataclass(frozen=True)
class RateSchedule:
    expression: str
    period: timedelta
    anchor: datetime

    def next_after(self, moment: datetime) -> datetime:
        moment = _utc(moment)
        if moment < self.anchor:
            return self.anchor + self.period
        periods = (moment - self.anchor) // self.period + 1
        return self.anchor + periods * self.period


@dataclass(frozen=True)
class CronSchedule:
    expression: str
    minutes: tuple[int, ...]
    hours: tuple[int, ...]
    days_of_month: frozenset[int] | None  # None: '?'
    months: frozenset[int]
    days_of_week: frozenset[int] | None  # 1 = Sunday; None: '?'
    years: frozenset[int]

    @classmethod
    def parse(cls, expression: str, body: str) -> CronSchedule:
        fields = body.split()
        if len(fields) != 6:
            raise ScheduleExpressionError(f"{expression}: cron takes 6 fields, got {len(fields)}")
        minute, hour, dom, month, dow, year = fields
        if (dom == "?") == (dow == "?"):
            raise ScheduleExpressionError(f"{expression}: exactly one of day-of-month and day-of-week must be '?'")
        return cls(
            expression,
            tuple(sorted(_field(expression, minute, 0, 59))),
            tuple(sorted(_field(expression, hour, 0, 23))),
            None if dom == "?" else frozenset(_field(expression, dom, 1, 31)),
            frozenset(_field(expression, month, 1, 12, _MONTHS)),
            None if dow == "?" else frozenset(_field(expression, dow, 1, 7, _DAYS)),
            frozenset(_field(expression, year, 1970, 2199)),
        )

    def next_after(self, moment: datetime) -> datetime | None:
        start = _utc(moment).replace(second=0, microsecond=0) + timedelta(minutes=1)
        day = start.date()
        for _ in range(_HORIZON_DAYS):
            if self._day_matches(day):
                earliest = (start.hour, start.minute) if day == start.date() else (0, 0)
                for hour in self.hours:
                    for minute in self.minutes:
                        if (hour, minute) >= earliest:
                            return datetime(day.year, day.month, day.day, hour, minute, tzinfo=UTC)
            day += timedelta(days=1)
        return None

    def _day_matches(self, day: date) -> bool:
        if day.year not in self.years or day.month not in self.months:
            return False
        if self.days_of_month is not None:
            return day.day in self.days_of_month
        assert self.days_of_week is not None
        return (day.weekday() + 1) % 7 + 1 in self.days_of_week


def _field(expression: str, text: str, low: int, high: int, names: dict[str, int] | None = None) -> set[int]:
    values: set[int] = set()
    known = names or {}
    for raw in text.upper().split(","):
        part = _NAME.sub(lambda m: str(known.get(m.group(), m.group())), raw)
        if any(token in part for token in ("L", "W", "#")):
            raise ScheduleExpressionError(f"{expression}: {raw!r} (L, W, #) is not supported locally")
        values |= _part(expression, part, low, high)
    return values


def _part(expression: str, part: str, low: int, high: int) -> set[int]:
    range_text, _, step_text = part.partition("/")
    step = _number(expression, step_text) if step_text else 1
    if step <= 0:
        raise ScheduleExpressionError(f"{expression}: step must be positive in {part!r}")
    if range_text in ("*", "?"):
        first, last = low, high
    elif "-" in range_text:
        a, b = range_text.split("-", 1)
        first, last = _number(expression, a), _number(expression, b)
    else:
        first = _number(expression, range_text)
        last = high if step_text else first
    if not (low <= first <= high and low <= last <= high and first <= last):
        raise ScheduleExpressionError(f"{expression}: {part!r} is outside {low}-{high}")
    return set(range(first, last + 1, step))


def _number(expression: str, text: str) -> int:
    if not text.isdigit():
        raise ScheduleExpressionError(f"{expression}: {text!r} is not a number")
    return int(text)


def _utc(moment: datetime) -> datetime:
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)
