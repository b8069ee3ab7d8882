"""The income model's inputs: one vector of numbers per payer stream, from its :class:`Profile`.

The names are part of the weights file: the model refuses weights trained on other features.
"""

from __future__ import annotations

import math

from chalicelib.insight.income.profile import Profile
from chalicelib.insight.payday.streams import ENDED

#: A stream whose last deposit is older than this is not recent.
RECENT_DAYS = 45


def _fit(p: Profile) -> tuple[float, float, float, float]:
    """F1, share on the expected day, mean distance (days, capped at 2) and log matches of
    the best schedule; nothing fitted is (0, 0, 2, 0)."""
    best = p.best
    if best is None or best.matched < 2:
        return 0.0, 0.0, 2.0, 0.0
    return best.f1, best.exact / best.matched, min(2.0, best.residual), math.log(1 + best.matched)


def vector(p: Profile) -> list[float]:
    """The features of ``p``, in the order of :data:`FEATURES`."""
    f1, on_day, residual, matched = _fit(p)
    days = p.stream.days
    return [
        math.log1p(p.median_cents / 100),
        min(2.0, p.amount_cv),
        math.log(p.deposits),
        float(p.deposits == 1),
        p.income_category,
        p.transfer_category,
        p.no_category,
        p.other_category,
        p.payroll_category,
        p.payroll_wording,
        p.benefit_wording,
        p.gig_wording,
        p.transfer_wording,
        p.deposit_wording,
        p.credit_wording,
        p.finance_wording,
        p.merchant_named,
        f1,
        on_day,
        residual,
        matched,
        float(p.fit.regular),
        float(p.fit.status == ENDED),
        2.0 if p.gap_cv is None else min(2.0, p.gap_cv),
        p.weekday_share,
        p.business_day_share,
        p.round_share,
        p.inflow_share,
        (days[-1] - days[0]).days / p.history_days,
        float((p.as_of - days[-1]).days <= RECENT_DAYS),
    ]


FEATURES: tuple[str, ...] = (
    "log_median_dollars",
    "amount_cv",
    "log_deposits",
    "single_deposit",
    "income_category",
    "transfer_category",
    "no_category",
    "other_category",
    "payroll_category",
    "payroll_wording",
    "benefit_wording",
    "gig_wording",
    "transfer_wording",
    "deposit_wording",
    "credit_wording",
    "finance_wording",
    "merchant_named",
    "fit_f1",
    "fit_on_day",
    "fit_distance",
    "fit_log_matches",
    "payday_regular",
    "payday_ended",
    "gap_cv",
    "weekday_share",
    "business_day_share",
    "round_share",
    "inflow_share",
    "coverage",
    "recent",
)
