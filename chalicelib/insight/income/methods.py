"""The rule methods of income detection: each one says, per payer stream, "income" or not.

- **a, category**: Plaid calls it income. At least half of the stream's transactions carry
  an income personal-finance category, in either taxonomy (v1 ``INCOME_WAGES``,
  ``INCOME_OTHER_INCOME``; v2 ``INCOME_SALARY``, ``INCOME_GIG_ECONOMY``, ``INCOME_OTHER`` ...;
  never ``INCOME_TAX_REFUND``, interest or dividends), or the legacy ``Payroll`` category.
- **b, description**: at least half of its descriptions read as pay (payroll processors,
  ``DIR DEP``, ``PAYROLL``, ``SALARY`` ...), as a benefit (Social Security's ``TREAS 310``,
  unemployment insurance, child support, pensions, annuities, disability) or as a gig
  platform's payout (DoorDash, Uber, Lyft, Instacart ...).
- **c, schedule**: whatever the payer, its deposits fit a pay schedule well: the payday
  model's best calendar schedule (weekly, every two or four weeks, semi-monthly, monthly)
  matches three deposits or more with F1 >= 0.8 and a mean distance of a day or less, and
  the typical deposit is $100 or more.
- **d, regularity**: without any calendar, a payer that pays alike at like intervals: three
  deposits or more, 5 to 35 days apart on average, gaps varying by at most 30% and amounts
  by at most 25% (coefficients of variation), $100 or more each.

Every method sees only streams that passed the exclusion rules (see :mod:`.profile`).
"""

from __future__ import annotations

from collections.abc import Callable

from chalicelib.insight.income.profile import Profile
from chalicelib.insight.payday.streams import PAYROLL_CADENCES

#: Share of a stream's transactions a category or a description must cover.
MAJORITY = 0.5
MIN_CENTS = 100_00
SCHEDULE_MATCHES, SCHEDULE_F1, SCHEDULE_RESIDUAL = 3, 0.8, 1.0
REGULAR_DEPOSITS, REGULAR_GAP_DAYS, REGULAR_GAP_CV, REGULAR_AMOUNT_CV = 3, (5, 35), 0.3, 0.25


def by_category(p: Profile) -> bool:
    return max(p.income_category, p.payroll_category) >= MAJORITY


def by_description(p: Profile) -> bool:
    return p.income_wording >= MAJORITY


def by_schedule(p: Profile) -> bool:
    best = p.best
    return (
        best is not None
        and best.cadence in PAYROLL_CADENCES
        and best.matched >= SCHEDULE_MATCHES
        and best.f1 >= SCHEDULE_F1
        and best.residual <= SCHEDULE_RESIDUAL
        and p.median_cents >= MIN_CENTS
    )


def by_regularity(p: Profile) -> bool:
    if p.deposits < REGULAR_DEPOSITS or p.gap_cv is None:
        return False
    days = p.stream.days
    mean_gap = (days[-1] - days[0]).days / (len(days) - 1)
    low, high = REGULAR_GAP_DAYS
    return (
        low <= mean_gap <= high
        and p.gap_cv <= REGULAR_GAP_CV
        and p.amount_cv <= REGULAR_AMOUNT_CV
        and p.median_cents >= MIN_CENTS
    )


#: The rule methods by the name their results are stored under (``method_<name>_results``).
RULES: dict[str, Callable[[Profile], bool]] = {
    "a": by_category,
    "b": by_description,
    "c": by_schedule,
    "d": by_regularity,
}
