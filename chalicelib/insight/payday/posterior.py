"""How probable a reading of a payer's deposits is: the likelihood of the deposits under a schedule
(on the day, a day or two off, missed, extra) and the prior of the schedule, a few facts of payroll
practice; published schedules (Social Security, SSI, VA, military pay, pensions) near certain."""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import lru_cache

from chalicelib.insight.payday.candidates import PENSION_WORDS, Stream
from chalicelib.insight.schedule import LAST_DAY, Cadence, Fit, Roll, Schedule, business_days_between

# --- the posterior of a schedule given a stream's deposits ------------------------------------
#
# log P(deposits | schedule): each expected date matched on the day, a day or two late or
# early, or missed; each deposit no expected date explains; each expected date of the last two
# days not seen yet (it may still come).
_ON_DAY = math.log(0.93)


_OFF_BY = {1: math.log(0.03), 2: math.log(0.01), -1: math.log(0.01), -2: math.log(0.005)}


_MISSED = math.log(0.03)


# A payer that publishes its schedule pays on the day, never later: under a reading whose bank
# posts it early, a deposit later than that but not later than the payday itself is the bank
# posting on the payday that time (its early release failed), not a late payment.
_LEAD_FAILED = math.log(0.1)


_EXTRA = math.log(0.02)


_PENDING = math.log(0.5)


# log P(schedule): pay periods as common as US employers use them (biweekly most, then weekly,
# semi-monthly and monthly, the last a little more for benefits, which are monthly; every four
# weeks rare); paydays on a Friday two times in five, on each other weekday about one in
# seven; twice a month on a standard pair of days nine times in ten (the 1st and 15th, the
# 15th and the last day, the 5th and 20th, the 10th and 25th), any other two days 13 to 17
# apart sharing the rest; monthly pay on a day of the month three times as often as on an nth
# weekday, the 1st, the 15th and the last day three times as often as another day; a closed
# payday paid the business day before nineteen times in twenty; the bank posting on the payday eight
# times in ten, one or two business days early otherwise.
_PERIOD = {
    Cadence.WEEKLY: 0.25,
    Cadence.BIWEEKLY: 0.40,
    Cadence.SEMI_MONTHLY: 0.20,
    Cadence.MONTHLY: 0.15,
    Cadence.FOUR_WEEKLY: 0.01,
}


_WEEKDAY = {4: 0.4, 0: 0.15, 1: 0.15, 2: 0.15, 3: 0.15}


_WEEKS = {Cadence.WEEKLY: 1, Cadence.BIWEEKLY: 2, Cadence.FOUR_WEEKLY: 4}


STANDARD_PAIRS = frozenset({(1, 15), (15, LAST_DAY), (5, 20), (10, 25)})


STANDARD_PAIR_SHARE = 0.9


_OTHER_PAIRS = 80  # about how many other pairs the engine proposes (two days 13-17 apart)


STANDARD_DAYS = frozenset({1, 15, LAST_DAY})


OTHER_DAY = 1 / 3  # another day's weight against a standard one's


DAY_OF_MONTH = 0.75  # monthly pay on a day of the month, else on an nth weekday (25 rules)


_ROLL = {Roll.PREV: 0.95, Roll.NEXT: 0.05, Roll.NONE: 0.001}


_SHIFT = {0: 0.8, 1: 0.1, 2: 0.1}


def _rule_prior(schedule: Schedule) -> float:
    cadence = schedule.cadence
    if cadence in _WEEKS:
        weekday = schedule.weekday if cadence is Cadence.WEEKLY else ((schedule.phase or 0) - 1) % 7
        return _WEEKDAY.get(weekday if weekday is not None else 4, 0.0001) / _WEEKS[cadence]
    if cadence is Cadence.SEMI_MONTHLY:
        if schedule.days in STANDARD_PAIRS:
            return STANDARD_PAIR_SHARE / len(STANDARD_PAIRS)
        return (1 - STANDARD_PAIR_SHARE) / _OTHER_PAIRS
    if cadence is Cadence.MONTHLY and schedule.nth is not None:
        return (1 - DAY_OF_MONTH) / 25
    if cadence is Cadence.MONTHLY:
        weight = 1.0 if schedule.days[0] in STANDARD_DAYS else OTHER_DAY
        return DAY_OF_MONTH * weight / (len(STANDARD_DAYS) + OTHER_DAY * (LAST_DAY - len(STANDARD_DAYS)))
    return 0.001


PENSION = "PENSION"


def payer_kind(stream: Stream) -> str:
    """The payer, for its published schedule: the federal payers by their key (SSA, SSI, VA,
    DFAS ...), a pension (:data:`PENSION`) by the words of its deposits, else the key."""
    if not _published(stream.payer) and any(PENSION_WORDS.search(t.name.upper()) for t in stream.txns):
        return PENSION
    return stream.payer


@lru_cache(maxsize=256)
def _published(payer: str) -> tuple[Schedule, ...]:
    """A federal payer's or a pension's published schedules, each with its roll and no
    early-posting shift (none: ``payer`` publishes none): Social Security on the second, third
    or fourth Wednesday or the 3rd; SSI, VA benefits and pensions on the 1st; military pay
    (DFAS) on the 1st and the 15th, or monthly on the 1st; all paid the business day before a
    closed day, except civil service annuities (OPM) and military retired pay, paid on the
    first business day of the month (the 1st, or the business day after)."""
    if payer == "SSA":
        rules = [Schedule.nth_weekday(nth, 2) for nth in (2, 3, 4)] + [Schedule.monthly(3)]
    elif payer in ("SSI", "VA", PENSION):
        rules = [Schedule.monthly(1)]
    elif payer.startswith("OPM"):
        rules = [Schedule.monthly(1, roll=Roll.NEXT)]
    elif payer.startswith("DFAS"):  # active duty (rolled back) or retired (rolled forward)
        rules = [Schedule.semi_monthly(1, 15), Schedule.monthly(1), Schedule.monthly(1, roll=Roll.NEXT)]
    else:
        return ()
    return tuple(rules)


def published_rules(payer: str) -> tuple[Schedule, ...]:
    """A federal payer's or a pension's published schedules, posted on the day or one or two
    business days early: one deposit tells which one the payee is on (Social Security pays each
    payee on the same Wednesday, or the 3rd, every month; military pay comes on the 1st and the
    15th, or monthly on the 1st; pensions on the 1st; civil service annuities on the first
    business day)."""
    return tuple(rule.posting(rule.roll, shift) for rule in _published(payer) for shift in (0, 1, 2))


@lru_cache(maxsize=1 << 14)
def log_prior(schedule: Schedule, payer: str = "") -> float:
    """How likely a payroll schedule is before any deposit is seen (see the tables above); a
    federal payer's published schedule is near certain."""
    shift = _SHIFT.get(schedule.shift, 0.01)
    if _published(payer):
        if is_published(schedule, payer):
            return math.log(0.9 * 0.999 * shift)
        return math.log(0.0005 * (0.999 if schedule.roll is Roll.PREV else 0.001) * shift)
    period = _PERIOD.get(schedule.cadence, 0.001)
    return math.log(period * _rule_prior(schedule) * _ROLL[schedule.roll] * shift)


def log_likelihood(f: Fit, payer: str = "") -> float:
    """How probable the deposits are if ``f``'s schedule is the payer's (see above). A deposit's
    distance counts business days; one posted on a closed day is a day off its business day.
    Under a schedule ``payer`` publishes, a deposit late by no more than the bank's early-posting
    shift is the early posting failing once."""
    published = is_published(f.schedule, payer)
    total = len(f.unmatched) * _EXTRA + len(f.pending) * _PENDING
    for expected, observed in f.pairs:
        if observed is None:
            total += _MISSED
        elif observed == expected:
            total += _ON_DAY
        else:
            off = business_days_between(expected, observed) or (1 if observed > expected else -1)
            total += _LEAD_FAILED if published and 0 < off <= f.schedule.shift else _OFF_BY.get(off, _MISSED)
    return total


def is_published(schedule: Schedule, payer: str) -> bool:
    """Whether ``schedule``, whatever its bank's early posting, is one ``payer`` (a
    :func:`payer_kind`) publishes. (Most payers publish none: no schedule is built for them,
    as :func:`log_likelihood` asks of every reading fitted.)"""
    published = _published(payer)
    return bool(published) and schedule.posting(schedule.roll, 0) in published


def payroll_prior(payer: str = "") -> Callable[[Schedule], float]:
    """The engine's tie-breaking prior for ``payer``: a small multiple of the log prior."""
    return lambda schedule: -0.0005 * log_prior(schedule, payer)
