"""Calendar schedules: when a recurring payment is due, the day it posts, and which schedule a
series of observed dates follows.

A :class:`Schedule` is a calendar rule (every Friday; every other Friday; the 15th and the
last day; the last business day; the third Wednesday; a day of the quarter or of the year)
plus what the payer does when that day is not a Federal Reserve business day (roll to the
previous or the next one, or nothing, as a card charge does) plus how many business days
early the bank posts it (banks that "pay early" post a direct deposit when the file arrives,
one or two business days before the payday).

:func:`fit` enumerates the schedules that could have produced a series of dates and scores
each: the expected dates in the observed window are matched one to one with the observations
within ``tolerance`` days, and ``score = F1 - 0.05 · mean distance - prior``. A missed
occurrence lowers recall, an extra deposit lowers precision; neither breaks the fit. The
prior is a few thousandths for complexity (a non-default roll, an early-posting shift, a
rarer rule), so it only breaks ties the data leave open. It stays fast: a pre-filter on the
median gap keeps only the cadences the dates can support, and each observation votes for the
rule and posting variants that would have posted it on exactly that day, so only the few
candidates that explain the most observations are scored in full.

Everything here is pure and works on ordinals internally (``date.toordinal()``; ordinal 1 is
a Monday); the business-day test is a set lookup over the Fed holidays of the years touched.
"""

from __future__ import annotations

import itertools
import statistics
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import date
from enum import StrEnum
from functools import lru_cache

from chalicelib.insight.calendar import fed_holidays

__all__ = [
    "LAST_DAY",
    "PER_YEAR",
    "Cadence",
    "Fit",
    "Prior",
    "Roll",
    "Schedule",
    "business_days_between",
    "fit",
    "fit_schedules",
    "plausible_cadences",
    "shift_business_days",
]

#: A day of the month past the month's length means its last day: 31 is "the last day".
LAST_DAY = 31
_WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_ORDINAL_WORDS = {1: "first", 2: "second", 3: "third", 4: "fourth", -1: "last"}
_MONTHS = ("", "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")

#: Score penalty per day of mean distance between matched observed and expected dates.
RESIDUAL_WEIGHT = 0.05
#: How far (days) a posted date can sit from its nominal date: PREV roll over a weekend and a
#: Monday holiday plus two business days of early posting (nominal after observed), NEXT roll
#: over a weekend and a holiday (nominal before observed), plus the tolerance.
_NOMINAL_AFTER, _NOMINAL_BEFORE = 8, 5


class Cadence(StrEnum):
    WEEKLY = "WEEKLY"
    BIWEEKLY = "BIWEEKLY"
    FOUR_WEEKLY = "FOUR_WEEKLY"
    SEMI_MONTHLY = "SEMI_MONTHLY"
    MONTHLY = "MONTHLY"
    QUARTERLY = "QUARTERLY"
    ANNUALLY = "ANNUALLY"


class Roll(StrEnum):
    """What a payer does with a due date the Fed is closed on."""

    PREV = "PREV"  # pay on the business day before (payroll, government benefits)
    NEXT = "NEXT"  # pay on the business day after (many ACH bills)
    NONE = "NONE"  # keep the date (card charges post on weekends)


#: Nominal occurrences per year, for normalising amounts and projecting horizons.
PER_YEAR: dict[Cadence, float] = {
    Cadence.WEEKLY: 365.25 / 7,
    Cadence.BIWEEKLY: 365.25 / 14,
    Cadence.FOUR_WEEKLY: 365.25 / 28,
    Cadence.SEMI_MONTHLY: 24.0,
    Cadence.MONTHLY: 12.0,
    Cadence.QUARTERLY: 4.0,
    Cadence.ANNUALLY: 1.0,
}
_PERIOD_WEEKS = {Cadence.WEEKLY: 7, Cadence.BIWEEKLY: 14, Cadence.FOUR_WEEKLY: 28}

# --- the business-day test on ordinals ------------------------------------------------

_HOLIDAYS: set[int] = set()
_YEARS: set[int] = set()


def _load_years(first: int, last: int) -> None:
    for year in range(first, last + 1):
        if year not in _YEARS:
            _HOLIDAYS.update(d.toordinal() for d in fed_holidays(year))
            _YEARS.add(year)


def _load_span(lo: int, hi: int) -> None:
    _load_years(date.fromordinal(lo).year - 1, date.fromordinal(hi).year + 1)


def _is_business(o: int) -> bool:
    return (o - 1) % 7 < 5 and o not in _HOLIDAYS


@lru_cache(maxsize=1 << 16)
def _post(o: int, roll: Roll, shift: int) -> int:
    """The posting ordinal of nominal ordinal ``o``: rolled, then ``shift`` business days earlier.
    Cached, so the holidays of the years around ``o`` are loaded before the first answer."""
    _load_span(o - 40, o + 40)
    if roll is Roll.PREV:
        while not _is_business(o):
            o -= 1
    elif roll is Roll.NEXT:
        while not _is_business(o):
            o += 1
    step = -1 if shift > 0 else 1
    for _ in range(abs(shift)):
        o += step
        while not _is_business(o):
            o += step
    return o


def _posting(nominal: Iterable[int], roll: Roll, shift: int, lo: int, hi: int) -> list[int]:
    """The distinct posting ordinals in ``[lo, hi]`` of ``nominal`` ordinals, ascending."""
    return sorted({p for p in (_post(o, roll, shift) for o in nominal) if lo <= p <= hi})


def _days_in_month(year: int, month: int) -> int:
    if month == 2:
        return 29 if year % 4 == 0 and (year % 100 != 0 or year % 400 == 0) else 28
    return 30 if month in (4, 6, 9, 11) else 31


@lru_cache(maxsize=1024)
def _months(lo: int, hi: int) -> tuple[tuple[int, int], ...]:
    """The (year, month) pairs from ``lo``'s month to ``hi``'s (cached: a fit scores every
    schedule over one window)."""
    first, last = date.fromordinal(lo), date.fromordinal(hi)
    year, month = first.year, first.month
    out = []
    while (year, month) <= (last.year, last.month):
        out.append((year, month))
        year, month = (year + 1, 1) if month == 12 else (year, month + 1)
    return tuple(out)


@lru_cache(maxsize=4096)
def _month_start(year: int, month: int) -> int:
    return date(year, month, 1).toordinal()


def _day_ordinal(year: int, month: int, day: int) -> int:
    return _month_start(year, month) + min(day, _days_in_month(year, month)) - 1


def _nth_weekday_ordinal(year: int, month: int, nth: int, weekday: int) -> int:
    if nth > 0:
        first = _month_start(year, month)
        return first + (weekday - (first - 1) % 7) % 7 + 7 * (nth - 1)
    last = _month_start(year, month) + _days_in_month(year, month) - 1
    return last - ((last - 1) % 7 - weekday) % 7


# --- the schedule ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Schedule:
    """A calendar rule, a roll rule and an early-posting shift (see the module docstring).

    Build one with the class methods; the fields mean:
    ``days`` the day(s) of the month (31 is the last day, a day past a short month's end
    clamps to it); ``weekday`` 0 = Monday; ``nth`` the week of the month (1-4, -1 the last);
    ``phase`` an every-N-weeks rule's ordinal modulo its period; ``month`` the month of an
    annual rule or the first month (1-3) of a quarterly one; ``roll`` and ``shift`` (business
    days posted before the rolled date; negative is after) how the nominal date posts.
    """

    cadence: Cadence
    days: tuple[int, ...] = ()
    weekday: int | None = None
    nth: int | None = None
    phase: int | None = None
    month: int | None = None
    roll: Roll = Roll.PREV
    shift: int = 0

    # -- constructors --

    @classmethod
    def weekly(cls, weekday: int, *, roll: Roll = Roll.PREV, shift: int = 0) -> Schedule:
        return cls(Cadence.WEEKLY, weekday=weekday % 7, roll=roll, shift=shift)

    @classmethod
    def biweekly(cls, anchor: date, *, roll: Roll = Roll.PREV, shift: int = 0) -> Schedule:
        """Every other week, on ``anchor``'s weekday, in phase with ``anchor``."""
        return cls(Cadence.BIWEEKLY, phase=anchor.toordinal() % 14, roll=roll, shift=shift)

    @classmethod
    def four_weekly(cls, anchor: date, *, roll: Roll = Roll.PREV, shift: int = 0) -> Schedule:
        return cls(Cadence.FOUR_WEEKLY, phase=anchor.toordinal() % 28, roll=roll, shift=shift)

    @classmethod
    def semi_monthly(cls, first: int, second: int, *, roll: Roll = Roll.PREV, shift: int = 0) -> Schedule:
        """Twice a month: e.g. (1, 15), (15, 31) for the 15th and the last day, (5, 20)."""
        low, high = sorted((first, second))
        return cls(Cadence.SEMI_MONTHLY, days=(low, high), roll=roll, shift=shift)

    @classmethod
    def monthly(cls, day: int, *, roll: Roll = Roll.PREV, shift: int = 0) -> Schedule:
        return cls(Cadence.MONTHLY, days=(day,), roll=roll, shift=shift)

    @classmethod
    def last_day(cls, *, roll: Roll = Roll.PREV, shift: int = 0) -> Schedule:
        return cls.monthly(LAST_DAY, roll=roll, shift=shift)

    @classmethod
    def last_business_day(cls, *, shift: int = 0) -> Schedule:
        """The month's last business day: its last day, rolled back."""
        return cls.monthly(LAST_DAY, roll=Roll.PREV, shift=shift)

    @classmethod
    def nth_weekday(cls, nth: int, weekday: int, *, roll: Roll = Roll.PREV, shift: int = 0) -> Schedule:
        """The ``nth`` (1-4, -1 = last) ``weekday`` of every month: Social Security pays on the
        second, third or fourth Wednesday."""
        return cls(Cadence.MONTHLY, weekday=weekday, nth=nth, roll=roll, shift=shift)

    @classmethod
    def quarterly(cls, month: int, day: int, *, roll: Roll = Roll.PREV, shift: int = 0) -> Schedule:
        """Every three months on ``day``, in the months congruent to ``month`` (any month works)."""
        return cls(Cadence.QUARTERLY, days=(day,), month=(month - 1) % 3 + 1, roll=roll, shift=shift)

    @classmethod
    def annually(cls, month: int, day: int, *, roll: Roll = Roll.PREV, shift: int = 0) -> Schedule:
        return cls(Cadence.ANNUALLY, days=(day,), month=month, roll=roll, shift=shift)

    def posting(self, roll: Roll, shift: int) -> Schedule:
        """The same calendar rule with another roll rule and early-posting shift."""
        return Schedule(self.cadence, self.days, self.weekday, self.nth, self.phase, self.month, roll, shift)

    # -- dates --

    @property
    def per_year(self) -> float:
        return PER_YEAR[self.cadence]

    @property
    def period_days(self) -> float:
        return 365.25 / PER_YEAR[self.cadence]

    def _nominal(self, lo: int, hi: int) -> list[int]:
        """Nominal ordinals in ``[lo, hi]``, ascending."""
        cadence = self.cadence
        if cadence is Cadence.WEEKLY:
            assert self.weekday is not None
            return list(range(lo + (self.weekday - (lo - 1) % 7) % 7, hi + 1, 7))
        if cadence in _PERIOD_WEEKS:
            period, phase = _PERIOD_WEEKS[cadence], self.phase or 0
            return list(range(lo + (phase - lo) % period, hi + 1, period))
        if cadence is Cadence.MONTHLY and self.nth is None:  # (the commonest rule, inline)
            days = self.days
            return [o for y, m in _months(lo, hi) for d in days if lo <= (o := _day_ordinal(y, m, d)) <= hi]
        out: list[int] = []
        for year, month in _months(lo, hi):
            out.extend(self._in_month(year, month))
        return [o for o in out if lo <= o <= hi]

    def _in_month(self, year: int, month: int) -> list[int]:
        if self.cadence is Cadence.MONTHLY and self.nth is not None:
            assert self.weekday is not None
            return [_nth_weekday_ordinal(year, month, self.nth, self.weekday)]
        if self.cadence is Cadence.QUARTERLY and (month - (self.month or 1)) % 3:
            return []
        if self.cadence is Cadence.ANNUALLY and month != self.month:
            return []
        return [_day_ordinal(year, month, day) for day in self.days]

    def _posted(self, lo: int, hi: int) -> list[int]:
        """Posting ordinals in ``[lo, hi]``, ascending (nominal dates a little outside the
        range can post inside it)."""
        _load_span(lo, hi)
        return _posting(self._nominal(lo - _NOMINAL_BEFORE - 3, hi + 10), self.roll, self.shift, lo, hi)

    def dates(self, start: date, end: date) -> list[date]:
        """The days the payments post in ``[start, end]``."""
        return [date.fromordinal(o) for o in self._posted(start.toordinal(), end.toordinal())]

    def next_dates(self, after: date, count: int = 3) -> list[date]:
        """The next ``count`` posting days strictly after ``after``."""
        lo = after.toordinal() + 1
        hi = lo + int(self.period_days * (count + 1)) + 40
        return [date.fromordinal(o) for o in self._posted(lo, hi)[:count]]

    # -- description --

    def rule(self) -> str:
        """The calendar rule in words, e.g. ``"the 15th and the last day"``."""
        cadence = self.cadence
        if cadence is Cadence.WEEKLY:
            assert self.weekday is not None
            return f"every {_WEEKDAYS[self.weekday]}"
        if cadence in _PERIOD_WEEKS:
            anchor = date.fromordinal(738_000 + ((self.phase or 0) - 738_000) % _PERIOD_WEEKS[cadence])
            every = "other" if cadence is Cadence.BIWEEKLY else "fourth"
            return f"every {every} {_WEEKDAYS[anchor.weekday()]} (in phase with {anchor.isoformat()})"
        if self.nth is not None:
            assert self.weekday is not None
            return f"the {_ORDINAL_WORDS[self.nth]} {_WEEKDAYS[self.weekday]} of the month"
        days = " and ".join(_day_words(d) for d in self.days)
        if cadence is Cadence.QUARTERLY:
            return f"{days} of every third month from {_MONTHS[self.month or 1]}"
        if cadence is Cadence.ANNUALLY:
            return f"{days} of {_MONTHS[self.month or 1]}"
        return days

    def describe(self) -> str:
        """The whole schedule in words, for capture rows and explanations."""
        if self.cadence is Cadence.MONTHLY and self.days == (LAST_DAY,) and self.roll is Roll.PREV:
            text = "the last business day of the month"
        else:
            roll = {Roll.PREV: ", or the business day before", Roll.NEXT: ", or the business day after"}
            text = self.rule() + roll.get(self.roll, "")
        if self.shift:
            early = "early" if self.shift > 0 else "late"
            text += f"; posted {abs(self.shift)} business day{'s' if abs(self.shift) > 1 else ''} {early}"
        return text

    def to_dict(self) -> dict[str, object]:
        return {
            "cadence": self.cadence.value,
            "rule": self.rule(),
            "roll": self.roll.value,
            "shift": self.shift,
            "description": self.describe(),
        }


def _day_words(day: int) -> str:
    if day >= LAST_DAY:
        return "the last day"
    suffix = "th" if 10 <= day % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(day % 10, "th")
    return f"the {day}{suffix}"


# --- the fit ---------------------------------------------------------------------------

Prior = Callable[[Schedule], float]


@dataclass(frozen=True, slots=True)
class Fit:
    """How well one schedule explains the observed dates.

    ``pairs`` holds every expected posting date in the scored window with the observation
    matched to it (``None``: missed); ``unmatched`` the observations no expected date claimed;
    ``pending`` the expected dates within ``tolerance`` of the window's end that have not been
    seen yet (they may still arrive, so they count neither way).
    """

    schedule: Schedule
    score: float
    f1: float
    precision: float
    recall: float
    residual: float
    pairs: tuple[tuple[date, date | None], ...]
    unmatched: tuple[date, ...]
    pending: tuple[date, ...]
    end: date

    @property
    def cadence(self) -> Cadence:
        return self.schedule.cadence

    @property
    def expected(self) -> tuple[date, ...]:
        return tuple(e for e, _ in self.pairs)

    @property
    def matched(self) -> int:
        return sum(1 for _, o in self.pairs if o is not None)

    @property
    def exact(self) -> int:
        """Matches that landed on the expected day itself."""
        return sum(1 for e, o in self.pairs if o == e)

    @property
    def missed(self) -> tuple[date, ...]:
        return tuple(e for e, o in self.pairs if o is None)

    @property
    def offsets(self) -> tuple[int, ...]:
        """Signed days observed - expected of each match, oldest first (positive: posted late)."""
        return tuple((o - e).days for e, o in self.pairs if o is not None)

    @property
    def missed_since_last_match(self) -> int:
        """Expected dates after the last match that never came: 1 may be a missed check, more
        means the stream has probably stopped."""
        count = 0
        for _, observed in reversed(self.pairs):
            if observed is not None:
                break
            count += 1
        return count

    def next_dates(self, count: int = 3) -> list[date]:
        """The next ``count`` posting days strictly after the window's end."""
        return self.schedule.next_dates(self.end, count)


#: Median gap (days) ranges that make each cadence plausible; a gap twice as long (one
#: occurrence missed in between) also qualifies. A monthly rule posts up to 38 days apart (an
#: nth weekday five weeks on, the earlier one posted two business days early over a weekend and
#: a holiday Monday), and the fit tolerates two days more.
_GAP_RANGES: dict[Cadence, tuple[float, float]] = {
    Cadence.WEEKLY: (4, 10),
    Cadence.BIWEEKLY: (10, 18),
    Cadence.SEMI_MONTHLY: (10, 20),
    Cadence.FOUR_WEEKLY: (24, 32),
    Cadence.MONTHLY: (24, 40),
    Cadence.QUARTERLY: (75, 105),
    Cadence.ANNUALLY: (330, 400),
}


def plausible_cadences(days: Sequence[date]) -> set[Cadence]:
    """The cadences the gaps between distinct ``days`` support (the fit's pre-filter): a
    typical gap in a cadence's range, or twice its range (one occurrence missed in between).
    The typical gaps are the median, the shortest and the upper quartile (extra deposits
    split the gaps they fall in: two extras among eight monthly deposits make the median gap
    three weeks), and in a short series every gap and every gap over one date (an extra
    deposit or a missed one distorts the median of a few dates; an extra one in between hides
    the true gap)."""
    ordinals = sorted({d.toordinal() for d in days})
    if len(ordinals) < 2:
        return set()
    gaps = [b - a for a, b in itertools.pairwise(ordinals)]
    typical: set[float]
    if len(gaps) < 6:
        typical = set(gaps) | {c - a for a, c in zip(ordinals, ordinals[2:], strict=False)}
    else:
        typical = {statistics.median(gaps), min(gaps), sorted(gaps)[3 * len(gaps) // 4]}
    return {
        cadence
        for cadence, (low, high) in _GAP_RANGES.items()
        if any(low <= gap <= high or low <= gap / 2 <= high for gap in typical)
    }


def _default_prior(schedule: Schedule) -> float:
    """A few thousandths for rarer rules: the data decide, the prior breaks exact ties."""
    if schedule.nth is not None or schedule.cadence is Cadence.FOUR_WEEKLY:
        return 0.002
    if schedule.cadence is Cadence.SEMI_MONTHLY:
        return 0.001
    return 0.0


_Variant = tuple[Roll, int]


@lru_cache(maxsize=1 << 15)
def _rule_keys(cadence: Cadence, n: int) -> tuple[Schedule, ...]:
    """The calendar rules of ``cadence`` that have ordinal ``n`` as a nominal date (cached: the
    same days come back in every fit over the same months)."""
    if cadence is Cadence.WEEKLY:
        return (Schedule(cadence, weekday=(n - 1) % 7),)
    if cadence in _PERIOD_WEEKS:
        return (Schedule(cadence, phase=n % _PERIOD_WEEKS[cadence]),)
    day = date.fromordinal(n)
    dim = _days_in_month(day.year, day.month)
    days = list(range(day.day, LAST_DAY + 1)) if day.day == dim else [day.day]  # later days clamp to the last
    if cadence is Cadence.MONTHLY:
        rules = [Schedule(cadence, days=(d,)) for d in days]
        weekday = day.weekday()
        if weekday < 5 and day.day <= 28:
            rules.append(Schedule(cadence, nth=(day.day - 1) // 7 + 1, weekday=weekday))
        if weekday < 5 and day.day + 7 > dim:
            rules.append(Schedule(cadence, nth=-1, weekday=weekday))
        return tuple(rules)
    if cadence is Cadence.QUARTERLY:
        return tuple(Schedule(cadence, days=(d,), month=(day.month - 1) % 3 + 1) for d in days)
    if cadence is Cadence.ANNUALLY:
        return tuple(Schedule(cadence, days=(d,), month=day.month) for d in days)
    return tuple(Schedule(Cadence.MONTHLY, days=(d,)) for d in days)  # SEMI_MONTHLY: days, paired below


@lru_cache(maxsize=1 << 16)
def _nominals_posting_on(o: int, roll: Roll, shift: int) -> tuple[int, ...]:
    """The nominal ordinals near ``o`` (from ``_NOMINAL_AFTER`` days before it to
    ``_NOMINAL_BEFORE`` after) that post on ``o`` under ``roll`` and ``shift``."""
    return tuple(n for n in range(o - _NOMINAL_BEFORE, o + _NOMINAL_AFTER + 1) if _post(n, roll, shift) == o)


def _votes(
    cadence: Cadence, observed: Sequence[int], variants: Sequence[_Variant]
) -> dict[tuple[Schedule, _Variant], set[int]]:
    """For each calendar rule and posting variant, the observations it explains exactly: an
    observation ``o`` votes for every rule with a nominal date ``n`` that posts on ``o``."""
    votes: dict[tuple[Schedule, _Variant], set[int]] = {}
    for index, o in enumerate(observed):
        for variant in variants:
            for n in _nominals_posting_on(o, *variant):
                for rule in _rule_keys(cadence, n):
                    votes.setdefault((rule, variant), set()).add(index)
    if cadence is Cadence.SEMI_MONTHLY:
        return _pair_votes(votes)
    return votes


def _pair_votes(day_votes: dict[tuple[Schedule, _Variant], set[int]]) -> dict[tuple[Schedule, _Variant], set[int]]:
    """Semi-monthly rules from day votes: two days 13 to 17 apart, or a day from the 13th on
    paired with the last day."""
    by_variant: dict[_Variant, dict[int, set[int]]] = {}
    for (rule, variant), explained in day_votes.items():
        by_variant.setdefault(variant, {})[rule.days[0]] = explained
    votes: dict[tuple[Schedule, _Variant], set[int]] = {}
    for variant, days in by_variant.items():
        for a, first in days.items():
            if a > 16:
                continue
            for b, second in days.items():
                if a + 13 <= b <= a + 17 or (b == LAST_DAY and a >= 13):
                    votes[(Schedule(Cadence.SEMI_MONTHLY, days=(a, b)), variant)] = first | second
    return votes


def _match(expected: Sequence[float], observed: Sequence[float], tolerance: int) -> list[int]:
    """For each expected ordinal the index of its observation (-1: none), one to one, each
    expected date taking the nearest unused observation within ``tolerance``."""
    used: set[int] = set()
    out: list[int] = []
    start, count = 0, len(observed)
    for e in expected:
        while start < count and observed[start] < e - tolerance:
            start += 1
        best, best_distance = -1, float(tolerance + 1)
        k = start
        while k < count and observed[k] <= e + tolerance:
            distance = abs(observed[k] - e)
            if distance < best_distance and k not in used:
                best, best_distance = k, distance
            k += 1
        if best >= 0:
            used.add(best)
        out.append(best)
    return out


@dataclass(frozen=True, slots=True)
class _Clock:
    """Business days counted over a fit's window: :meth:`at` gives each ordinal's count of
    business days up to it (a day the bank is closed counts half a day after the business day
    before it), so that a deposit a business day late is one day off whatever weekend lies
    between (a Friday payday posted on Monday), and the matching tolerance counts business
    days. (An expected date not seen yet is still pending for ``tolerance`` calendar days: a
    feed's lag, not a payer's.)"""

    lo: int
    index: tuple[float, ...]

    @classmethod
    def over(cls, lo: int, hi: int) -> _Clock:
        _load_span(lo, hi)
        index: list[float] = []
        count = 0
        for o in range(lo, hi + 1):
            if _is_business(o):
                count += 1
                index.append(count)
            else:
                index.append(count + 0.5)
        return cls(lo, tuple(index))

    def at(self, ordinals: Sequence[int]) -> list[float]:
        index, lo = self.index, self.lo
        return [index[o - lo] for o in ordinals]


@dataclass(slots=True)
class _Scored:
    schedule: Schedule
    score: float
    f1: float
    precision: float
    recall: float
    residual: float
    expected: list[int]
    match: list[int]


def _score(
    schedule: Schedule,
    expected: list[int],
    observed: Sequence[int],
    hi: int,
    tolerance: int,
    prior: float,
    expected_at: Sequence[float],
    observed_at: Sequence[float],
) -> _Scored | None:
    """``expected_at`` and ``observed_at``: the ordinals where distances are measured (the
    ordinals themselves, or their business days)."""
    match = _match(expected_at, observed_at, tolerance)
    counted = [(i, m) for i, (e, m) in enumerate(zip(expected, match, strict=True)) if m >= 0 or e <= hi - tolerance]
    matched = [(i, m) for i, m in counted if m >= 0]
    if not matched:
        return None
    precision = len(matched) / len(observed)
    recall = len(matched) / len(counted)
    f1 = 2 * precision * recall / (precision + recall)
    residual = sum(abs(observed_at[m] - expected_at[i]) for i, m in matched) / len(matched)
    score = f1 - RESIDUAL_WEIGHT * residual - prior
    return _Scored(schedule, score, f1, precision, recall, residual, expected, match)


def _to_fit(s: _Scored, observed: Sequence[int], hi: int, tolerance: int) -> Fit:
    pairs: list[tuple[date, date | None]] = []
    pending: list[date] = []
    for e, m in zip(s.expected, s.match, strict=True):
        if m >= 0:
            pairs.append((date.fromordinal(e), date.fromordinal(observed[m])))
        elif e > hi - tolerance:
            pending.append(date.fromordinal(e))
        else:
            pairs.append((date.fromordinal(e), None))
    claimed = {m for m in s.match if m >= 0}
    unmatched = tuple(date.fromordinal(o) for i, o in enumerate(observed) if i not in claimed)
    return Fit(
        schedule=s.schedule,
        score=round(s.score, 6),
        f1=s.f1,
        precision=s.precision,
        recall=s.recall,
        residual=s.residual,
        pairs=tuple(pairs),
        unmatched=unmatched,
        pending=tuple(pending),
        end=date.fromordinal(hi),
    )


def _weekend_rule(rule: Schedule) -> bool:
    """An every-N-weeks rule on a Saturday or a Sunday."""
    if rule.cadence is Cadence.WEEKLY:
        return (rule.weekday or 0) >= 5
    if rule.cadence in _PERIOD_WEEKS:
        return ((rule.phase or 0) - 1) % 7 >= 5
    return False


def _candidates(
    cadence: Cadence,
    observed: Sequence[int],
    variants: Sequence[_Variant],
    keep: int,
    penalty: Callable[[Schedule], float],
) -> list[tuple[Schedule, float]]:
    """The ``keep`` schedules of ``cadence`` that explain the most observations exactly, the
    likelier (lower ``penalty``) first among equals, each with its penalty. Weekend weekdays
    are kept only unrolled: rolled, they are the Friday or Monday rule again."""
    ranked = []
    for (rule, (roll, shift)), explained in _votes(cadence, observed, variants).items():
        if _weekend_rule(rule) and roll is not Roll.NONE:
            continue
        schedule = rule.posting(roll, shift)
        cost = penalty(schedule)
        ranked.append((-len(explained), cost, _order(schedule), schedule))
    ranked.sort(key=lambda r: r[:3])
    return [(schedule, cost) for _, cost, _, schedule in ranked[:keep]]


def _order(s: Schedule) -> tuple[str, tuple[int, ...], int, int, int, int, str, int]:
    """A total order on schedules, so equal scores rank the same way every run."""
    return (s.cadence.value, s.days, s.weekday or 0, s.nth or 0, s.phase or 0, s.month or 0, s.roll.value, s.shift)


def fit(
    days: Iterable[date],
    *,
    end: date,
    start: date | None = None,
    cadences: Iterable[Cadence] | None = None,
    rolls: Iterable[Roll] = (Roll.PREV, Roll.NEXT, Roll.NONE),
    shifts: Iterable[int] = (0,),
    default_roll: Roll = Roll.PREV,
    tolerance: int = 2,
    prior: Prior | None = None,
    keep: int = 16,
    limit: int = 5,
    business: bool = False,
) -> list[Fit]:
    """The schedules that best explain ``days`` (distinct dates the payment posted), best first.

    ``end`` is the last day that was observed (the model's ``as_of``); expected dates are
    scored from ``tolerance`` days before the first observation (or ``start``, the first day
    anything could be observed, if later) to ``end``. ``cadences`` defaults to
    :func:`plausible_cadences`; ``rolls`` x ``shifts`` are the posting variants; per cadence
    the ``keep`` rule and variant pairs that explain the most observations exactly are scored.
    A roll other than ``default_roll`` costs 0.004, each business day of shift 0.001, and
    ``prior`` (if given) adds its own penalty. ``business``: a date's distance from an expected
    one, and ``tolerance``, count business days (a Friday's deposit posted Monday is a day late).
    Fewer than two distinct days fit nothing.
    """
    observed, lo, hi = _window(days, end, start, tolerance)
    if len(observed) < 2:
        return []
    chosen = set(cadences) if cadences is not None else plausible_cadences([date.fromordinal(o) for o in observed])
    variants = [(r, s) for r in rolls for s in shifts if not (r is Roll.NONE and s)]

    def penalty(schedule: Schedule) -> float:
        cost = _default_prior(schedule) + 0.004 * (schedule.roll is not default_roll) + 0.001 * abs(schedule.shift)
        return cost + (prior(schedule) if prior is not None else 0.0)

    candidates = (
        (schedule, cost)
        for cadence in sorted(chosen)
        for schedule, cost in _candidates(cadence, observed, variants, keep, penalty)
    )
    return _ranked(candidates, observed, lo, hi, tolerance, limit, business=business)


def fit_schedules(
    days: Iterable[date],
    schedules: Iterable[Schedule],
    *,
    end: date,
    start: date | None = None,
    tolerance: int = 2,
    business: bool = False,
) -> list[Fit]:
    """How well each of ``schedules`` explains ``days``, best first (as :func:`fit` scores them,
    without a prior): for a payer whose schedule is published, so that even one observation
    can be scored against the few schedules it may follow."""
    observed, lo, hi = _window(days, end, start, tolerance)
    if not observed:
        return []
    return _ranked(((schedule, 0.0) for schedule in schedules), observed, lo, hi, tolerance, business=business)


def _window(days: Iterable[date], end: date, start: date | None, tolerance: int) -> tuple[list[int], int, int]:
    """The observed days (ordinals, from ``start`` to ``end``) and the span scored: from
    ``tolerance`` days before the first of them (not before ``start``) to ``end``."""
    hi = end.toordinal()
    observed = sorted({d.toordinal() for d in days if d <= end and (start is None or d >= start)})
    lo = observed[0] - tolerance if observed else hi
    if start is not None:
        lo = max(lo, start.toordinal())
    return observed, lo, hi


def _ranked(
    candidates: Iterable[tuple[Schedule, float]],
    observed: list[int],
    lo: int,
    hi: int,
    tolerance: int,
    limit: int | None = None,
    *,
    business: bool = False,
) -> list[Fit]:
    """The best ``limit`` (default all) of the candidate schedules (each with its cost), scored
    against ``observed`` over ``lo..hi``, best first; ``business``: distances and the tolerance
    in business days (:class:`_Clock`)."""
    _load_span(lo - 20, hi + 400)
    clock = _Clock.over(lo, hi) if business else None
    observed_at = clock.at(observed) if clock is not None else observed
    scored: list[_Scored] = []
    for schedule, cost in candidates:
        nominal = schedule._nominal(lo - _NOMINAL_BEFORE - 3, hi + 10)
        expected = _posting(nominal, schedule.roll, schedule.shift, lo, hi)
        expected_at = clock.at(expected) if clock is not None else expected
        result = _score(schedule, expected, observed, hi, tolerance, cost, expected_at, observed_at)
        if result is not None:
            scored.append(result)
    scored.sort(key=lambda s: (-round(s.score, 9), _order(s.schedule)))
    return [_to_fit(s, observed, hi, tolerance) for s in scored[:limit]]


def business_days_between(first: date, second: date) -> int:
    """Business days from ``first`` to ``second`` (negative when ``second`` is earlier): the
    count of business days in ``(first, second]``, so two business days next to each other
    are 1 apart."""
    lo, hi = sorted((first.toordinal(), second.toordinal()))
    _load_span(lo, hi)
    count = sum(1 for o in range(lo + 1, hi + 1) if _is_business(o))
    return count if second >= first else -count


def shift_business_days(day: date, count: int) -> date:
    """``day`` moved ``count`` business days (negative: earlier), ``day`` itself if 0."""
    o = day.toordinal()
    _load_span(o - abs(count) * 3 - 10, o + abs(count) * 3 + 10)
    return date.fromordinal(_post(o, Roll.NONE, -count))
