"""The paydays a forecast projects: the payday model's dates, the user's own paycheck amounts.

The dates come from the payday model (``payday.predict``): its next payday, the ones after it
it lists, and beyond those its cadence. Amounts come from the model's payroll candidates that
landed in the projected account: the deposits of the payer the model predicts for (its
``source``), the same-day parts of a split deposit added up; the expected paycheck is the
median of the last six, and the simulation draws from those six.

**When.** The model's ``confidence`` is the probability that its date is exact. The rest goes
where the model's own readings of the deposits put it (``readings``: each next date a reading
projects, with its posterior share): a reading whose date is more than a business day from the
answer (a biweekly payer read as semi-monthly, a paycheck read as early) keeps its share of the
rest, with its own paydays; what is left goes to the business day before (``EARLY_SHARE`` of it)
and the business day after: a bank posting a day early and an ACH file a day late are both
common, and the benchmark's figures do not move when that split does.
"""

from __future__ import annotations

import re
import statistics
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, timedelta

from chalicelib.insight.calendar import add_business_days, last_day_of_month, previous_business_day
from chalicelib.insight.payday import ChainResult
from chalicelib.insight.transactions import Txn, stream_key

#: Paychecks the amount is drawn from (the latest).
PAYCHECKS = 6
#: Of the probability that the date is not exact, the share on the business day before.
EARLY_SHARE = 0.5
#: Days between paydays beyond the model's listed ones, by cadence (months stepped as months).
_PERIOD_DAYS = {"WEEKLY": 7, "BIWEEKLY": 14, "FOUR_WEEKLY": 28, "SEMI_MONTHLY": 15}
_WORD = re.compile(r"[A-Z0-9]{3,}")
_NOISE = frozenset({"PAYROLL", "DIRECT", "DEP", "DEPOSIT", "ACH", "PPD", "DES", "INC", "LLC", "CORP", "THE", "PAY"})


@dataclass(frozen=True, slots=True)
class Payday:
    """One projected payday: its day, the expected paycheck (cents, 0 when the pay lands in
    another account) and the amounts it may be."""

    day: date
    amount: int
    amounts: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Income:
    payer: str | None
    cadence: str
    confidence: float
    paydays: tuple[Payday, ...]
    #: Ids of the payer's deposits in the projected account (not everyday money).
    deposit_ids: frozenset[str]
    #: The model's other readings, more than a business day from its answer: (probability,
    #: their paydays up to the horizon, at the same paycheck).
    alternatives: tuple[tuple[float, tuple[Payday, ...]], ...] = ()


def _words(text: str | None) -> set[str]:
    return {w for w in _WORD.findall((text or "").upper()) if w not in _NOISE and not w.isdigit()}


def payer_deposits(chain: ChainResult, account_id: str, as_of: date) -> list[Txn]:
    """The predicted payer's deposits into ``account_id`` among the model's payroll candidates:
    those whose words name the payer, else the candidate payer paying the most there lately."""
    candidates = [t for t in chain.filtered_txns if t.account_id == account_id and t.amount < 0]
    named = _words(chain.source)
    if named:
        matching = [t for t in candidates if named <= _words(t.merchant_name) | _words(t.name)]
        if matching:
            return matching
    groups: dict[str, list[Txn]] = defaultdict(list)
    for t in candidates:
        groups[stream_key(t)].append(t)
    if not groups:
        return []
    since = as_of - timedelta(days=60)
    return max(groups.values(), key=lambda g: (-sum(t.amount for t in g if t.day > since), stream_key(g[0])))


def _paychecks(deposits: Sequence[Txn]) -> tuple[int, ...]:
    by_day: dict[date, int] = defaultdict(int)
    for t in deposits:
        by_day[t.day] -= t.amount
    return tuple(by_day[d] for d in sorted(by_day)[-PAYCHECKS:])


def payday_dates(chain: ChainResult, as_of: date, until: date) -> list[date]:
    """The predicted paydays after ``as_of`` up to ``until``: the model's own list, then its cadence."""
    first = chain.next_payday
    if first is None:
        return []
    listed = sorted({d for d in (first, *getattr(chain.chosen, "upcoming", ())) if d > as_of})
    days = list(listed)
    step = _PERIOD_DAYS.get(chain.cadence)
    while days[-1] <= until and (step or chain.cadence == "MONTHLY"):
        nominal = days[-1] + timedelta(days=step) if step else _next_month(days[-1])
        days.append(previous_business_day(nominal))
    return [d for d in days if d <= until]


def _next_month(day: date) -> date:
    year, month = (day.year + 1, 1) if day.month == 12 else (day.year, day.month + 1)
    return date(year, month, min(day.day, last_day_of_month(year, month).day))


def income(chain: ChainResult, account_id: str, as_of: date, until: date) -> Income:
    """The paydays to project on ``account_id`` up to ``until`` (see the module docstring)."""
    deposits = payer_deposits(chain, account_id, as_of)
    amounts = _paychecks(deposits)
    typical = round(statistics.median(amounts)) if amounts else 0
    confidence = max(0.0, min(1.0, chain.confidence))
    return Income(
        payer=chain.source,
        cadence=chain.cadence,
        confidence=confidence,
        paydays=tuple(Payday(d, typical, amounts) for d in payday_dates(chain, as_of, until)),
        deposit_ids=frozenset(t.txn_id for t in deposits),
        alternatives=tuple(
            (probability, tuple(Payday(d, typical, amounts) for d in days))
            for probability, days in alternative_readings(chain, confidence, until)
        ),
    )


def alternative_readings(chain: ChainResult, confidence: float, until: date) -> list[tuple[float, tuple[date, ...]]]:
    """The model's readings whose next date is more than a business day from its answer and no
    later than ``until``, each with its paydays up to ``until`` and its share of the probability
    that the answer is wrong (``1 - confidence``), in the proportions of their posteriors among
    the readings that are not the answer's."""
    answer, readings = chain.next_payday, chain.chosen.readings
    if answer is None or not readings:
        return []
    near = {answer, shifted(answer, -1), shifted(answer, 1)}
    others = sum(share for share, days in readings if days and days[0] != answer)
    if others <= 0:
        return []
    return [
        ((1.0 - confidence) * share / others, tuple(d for d in days if d <= until))
        for share, days in readings
        if days and days[0] not in near and days[0] <= until
    ]


def shifted(day: date, shift: int) -> date:
    """``day`` moved ``shift`` business days (the dates a payday may land on)."""
    return add_business_days(day, shift) if shift else day


def shift_probabilities(confidence: float, elsewhere: float = 0.0) -> tuple[tuple[int, float], ...]:
    """(business days moved, probability): exact with the model's confidence, else a day either
    side, but for ``elsewhere``, the probability of the model's other readings."""
    wrong = max(0.0, 1.0 - confidence - elsewhere)
    return ((-1, wrong * EARLY_SHARE), (0, confidence), (1, wrong * (1 - EARLY_SHARE)))
