"""What income detection knows about one payer stream, computed once for every method.

Streams are the payday model's payroll candidates (:mod:`chalicelib.insight.payday.candidates`):
inflows that pass the exclusion rules (no other app's advance or loan disbursement, tax
refund, interest, refund, P2P transfer, cash deposit or transfer between the user's own
accounts), grouped by payer and account. A :class:`Profile` adds what the methods read:
the shares of the stream's transactions by category and by wording, the schedule fit the
payday model makes of its deposits (:func:`chalicelib.insight.payday.streams.fit_stream`), and
the regularity of its gaps, amounts and weekdays.
"""

from __future__ import annotations

import itertools
import re
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date

from chalicelib.insight.calendar import is_business_day
from chalicelib.insight.payday.candidates import INCOME_CATEGORIES, Stream, candidate_streams
from chalicelib.insight.payday.streams import StreamFit, fit_stream
from chalicelib.insight.schedule import Fit
from chalicelib.insight.transactions import Txn

#: Pay wording: payroll processors, direct-deposit and payroll words, military pay.
PAYROLL_WORDING = re.compile(
    r"PAYROLL|PAYRL|\bDIR ?DEP|DIRECT DEP|SALARY|\bWAGES?\b|NET ?PAY|\bADP\b|GUSTO|PAYCHEX|TRINET|RIPPLING|"
    r"INTUIT PAY|PAYLOCITY|PAYCOM|PAYCOR|\bDFAS\b"
)
#: Benefit wording: Social Security and other federal benefits, unemployment insurance,
#: child support disbursements, pensions, annuities and disability.
BENEFIT_WORDING = re.compile(
    r"TREAS 310|SOC SEC|SUPP SEC|\bSSA\b|\bSSI\b|UNEMPLOY|\bU[IC]\b|BENEFIT|CHILD SUPP|\bSDU\b|"
    r"PENSION|ANNUITY|RETIREMENT|RETIRE\b|DISABILITY|\bVA\b"
)
#: Gig platforms' payouts.
GIG_WORDING = re.compile(
    r"DOORDASH|\bDASHER\b|\bUBER\b|\bLYFT\b|INSTACART|MAPLEBEAR|GRUBHUB|\bSHIPT\b|POSTMATES|AMAZON FLEX|"
    r"SPARK DRIVER|\bROVER\b|TASKRABBIT|FIVERR|UPWORK|\bGOPUFF\b|DRIVER PAY|SHOPPER PAY"
)
#: Words of money moved rather than earned.
TRANSFER_WORDING = re.compile(r"TRANSFER|\bXFER\b|TRNSFR|\bWIRE\b|MONEYLINK|\bFUNDS\b|\bACH CREDIT\b|\bFROM\b")
DEPOSIT_WORDING = re.compile(r"\bDEPOSIT\b|\bDEP\b|REMOTE|MOBILE|BRANCH")
CREDIT_WORDING = re.compile(r"\bCREDIT\b|\bADJ|BONUS|CLAIM|SETTLEMENT|REIMB|REWARD|PROMO")
FINANCE_WORDING = re.compile(
    r"\bBANK\b|SAVINGS|BROKERAGE|INVEST|SECURITIES|\bLOAN\b|LENDING|FINANCIAL|COINBASE|ROBINHOOD|SCHWAB|"
    r"FIDELITY|VANGUARD|WEBULL|E ?TRADE"
)
_TRANSFER_PRIMARIES = frozenset({"TRANSFER_IN"})
#: A deposit of whole tens of dollars.
_ROUND_CENTS = 10_00


@dataclass(frozen=True, slots=True)
class Profile:
    """One stream with what the methods read (shares are of the stream's transactions)."""

    stream: Stream
    fit: StreamFit
    income_category: float
    transfer_category: float
    no_category: float
    other_category: float
    payroll_category: float
    payroll_wording: float
    benefit_wording: float
    gig_wording: float
    transfer_wording: float
    deposit_wording: float
    credit_wording: float
    finance_wording: float
    merchant_named: float
    gap_cv: float | None
    amount_cv: float
    weekday_share: float
    business_day_share: float
    round_share: float
    inflow_share: float
    history_days: int
    as_of: date

    @property
    def best(self) -> Fit | None:
        return self.fit.best

    @property
    def deposits(self) -> int:
        return len(self.stream.deposits)

    @property
    def median_cents(self) -> int:
        return self.stream.median_cents()

    @property
    def income_wording(self) -> float:
        """Share of transactions with pay, benefit or gig-platform wording."""
        return max(self.payroll_wording, self.benefit_wording, self.gig_wording)

    @property
    def key(self) -> tuple[str, str]:
        return self.stream.payer, self.stream.account_id


def _share(txns: Sequence[Txn], test: Callable[[Txn], bool]) -> float:
    return sum(1 for t in txns if test(t)) / len(txns)


def _cv(values: Sequence[float]) -> float:
    mean = statistics.fmean(values)
    return statistics.pstdev(values) / mean if mean > 0 else 0.0


def _gap_cv(days: Sequence[date]) -> float | None:
    gaps = [(b - a).days for a, b in itertools.pairwise(days)]
    return _cv(gaps) if len(gaps) >= 2 else None


def _is_transfer_category(t: Txn) -> bool:
    return t.pfc_primary in _TRANSFER_PRIMARIES or (t.pfc_detailed or "").startswith("TRANSFER_IN")


def _is_other_category(t: Txn) -> bool:
    """A category that is neither income nor a transfer (a merchant's, a loan's ...)."""
    return t.pfc_detailed is not None and t.pfc_detailed not in INCOME_CATEGORIES and not _is_transfer_category(t)


def _profile(stream: Stream, as_of: date, history_start: date, total_cents: int) -> Profile:
    txns = stream.txns
    names = [t.name.upper() for t in txns]
    deposits = stream.deposits
    weekdays = statistics.multimode(d.day.weekday() for d in deposits)
    weekday_share = sum(1 for d in deposits if d.day.weekday() == weekdays[0]) / len(deposits)

    def wording(pattern: re.Pattern[str]) -> float:
        return sum(1 for n in names if pattern.search(n)) / len(names)

    return Profile(
        stream=stream,
        fit=fit_stream(stream, as_of, history_start),
        income_category=_share(txns, lambda t: t.pfc_detailed in INCOME_CATEGORIES),
        transfer_category=_share(txns, _is_transfer_category),
        no_category=_share(txns, lambda t: t.pfc_detailed is None),
        other_category=_share(txns, _is_other_category),
        payroll_category=_share(txns, lambda t: any("Payroll" in c for c in t.category)),
        payroll_wording=wording(PAYROLL_WORDING),
        benefit_wording=wording(BENEFIT_WORDING),
        gig_wording=wording(GIG_WORDING),
        transfer_wording=wording(TRANSFER_WORDING),
        deposit_wording=wording(DEPOSIT_WORDING),
        credit_wording=wording(CREDIT_WORDING),
        finance_wording=wording(FINANCE_WORDING),
        merchant_named=_share(txns, lambda t: t.merchant_name is not None),
        gap_cv=_gap_cv(stream.days),
        amount_cv=_cv([d.cents for d in deposits]) if len(deposits) > 1 else 0.0,
        weekday_share=weekday_share,
        business_day_share=sum(1 for d in deposits if is_business_day(d.day)) / len(deposits),
        round_share=sum(1 for d in deposits if d.cents % _ROUND_CENTS == 0) / len(deposits),
        inflow_share=sum(d.cents for d in deposits) / total_cents if total_cents else 0.0,
        history_days=(as_of - history_start).days + 1,
        as_of=as_of,
    )


def profiles(txns: Sequence[Txn], as_of: date) -> list[Profile]:
    """Every candidate stream among visible ``txns`` (see :func:`visible`), profiled, largest first."""
    streams = candidate_streams(txns)
    if not streams:
        return []
    history_start = min(t.day for t in txns)
    total = sum(d.cents for s in streams for d in s.deposits)
    return [_profile(s, as_of, history_start, total) for s in streams]
