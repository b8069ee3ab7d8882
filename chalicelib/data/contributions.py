"""What a TRANSACTION row contributes to its user's monthly summaries (pure, no I/O).

A posted, live transaction contributes its amount to four SUMMARY rows of its month: the
month, the month and its account, the month and its category, and all three. A pending
or removed transaction contributes nothing. Each TRANSACTION row records the contribution
the summaries currently hold for it (the ``summary_contribution`` map; absent = nothing),
so a change applies only the difference between the recorded and the new contribution,
and applying the same change twice finds nothing left to apply.

Summaries are kept only for **open** months: months whose every transaction row is still
retained (a row lives at least 120 days past its date, so a month is open until 120 days
after its first day). A closed month's summaries are final: what a row contributes there
is never added or taken away again, because a transaction seen again after its row expired
could no longer be told from a new one.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Any, Protocol

from chalicelib.data.money import from_dynamo
from chalicelib.data.ttl import TRANSACTION_RETENTION_DAYS

#: The TRANSACTION row attribute holding the recorded contribution.
ATTRIBUTE = "summary_contribution"
#: The stored attributes a row's contribution is derived from (through the transaction they
#: decode to): a write that moves summaries holds while all of them are as read.
SOURCE_ATTRIBUTES = (
    "user_id",
    "acct_id",
    "txn_date",
    "txn_amount",
    "txn_amount_string",
    "txn_pending",
    "txn_removed",
    "txn_category_id",
    "GSI1PK",
    "GSI1SK",
    "GSI3PK",
)


@dataclass(frozen=True)
class SummaryKey:
    """One SUMMARY row of a user: a month, optionally narrowed to an account and/or a category."""

    month: str
    acct_id: str | None = None
    category_id: str | None = None

    def order(self) -> tuple[str, str, str]:
        """Key order: a month's rows together, the month's own row first."""
        return (self.month, self.acct_id or "", self.category_id or "")


@dataclass(frozen=True)
class Contribution:
    month: str  # YYYY-MM
    acct_id: str
    category_id: str
    amount: int  # cents; positive = money out

    def summary_keys(self) -> tuple[SummaryKey, ...]:
        """The four rows this contribution counts in."""
        return (
            SummaryKey(self.month),
            SummaryKey(self.month, self.acct_id),
            SummaryKey(self.month, None, self.category_id),
            SummaryKey(self.month, self.acct_id, self.category_id),
        )

    @property
    def outflow(self) -> int:
        return max(self.amount, 0)

    @property
    def inflow(self) -> int:
        return max(-self.amount, 0)


class Contributing(Protocol):
    """What a contribution is read from: a transaction (``transactions.Transaction`` is one).

    A protocol rather than the entity, so this module imports nothing of the entity whose
    writes record contributions (the writes depend on this module, never the reverse).
    """

    @property
    def acct_id(self) -> str: ...

    @property
    def amount(self) -> int: ...

    @property
    def txn_date(self) -> date: ...

    @property
    def category_id(self) -> str: ...

    @property
    def pending(self) -> bool: ...

    @property
    def removed(self) -> bool: ...


def of_transaction(txn: Contributing) -> Contribution | None:
    """What ``txn`` should contribute: nothing while pending or once removed."""
    if txn.pending or txn.removed:
        return None
    return Contribution(txn.txn_date.strftime("%Y-%m"), txn.acct_id, txn.category_id, txn.amount)


def to_attribute(contribution: Contribution) -> dict[str, Any]:
    """The stored map (a condition compares it whole, so its shape never varies)."""
    return {
        "month": contribution.month,
        "acct_id": contribution.acct_id,
        "category_id": contribution.category_id,
        "amount": contribution.amount,
    }


def from_attribute(value: object) -> Contribution | None:
    """The recorded contribution of a stored row (absent = none)."""
    if not isinstance(value, Mapping):
        return None
    return Contribution(
        str(value["month"]), str(value["acct_id"]), str(value["category_id"]), from_dynamo(value["amount"])
    )


def recorded(row: Mapping[str, Any]) -> Contribution | None:
    return from_attribute(row.get(ATTRIBUTE))


# --- open months ----------------------------------------------------------------------


def month_after(month: str) -> str:
    year, number = (int(part) for part in month.split("-"))
    return f"{year + number // 12:04d}-{number % 12 + 1:02d}"


def first_open_month(now: datetime) -> str:
    """The oldest month whose first day is less than 120 days before ``now``."""
    cutoff = now - timedelta(days=TRANSACTION_RETENTION_DAYS)
    return month_after(cutoff.strftime("%Y-%m"))


def effective(contribution: Contribution | None, first_open: str) -> Contribution | None:
    """The part of a contribution summaries still move with: none in a closed month."""
    if contribution is None or contribution.month < first_open:
        return None
    return contribution


# --- differences ----------------------------------------------------------------------


@dataclass
class SummaryDelta:
    """What one change does to one SUMMARY row: amounts, count, and ids in or out."""

    outflow: int = 0
    inflow: int = 0
    count: int = 0
    entering: set[str] = field(default_factory=set)
    leaving: set[str] = field(default_factory=set)

    @property
    def total(self) -> int:
        """Net spend (positive = money out), the figure ``total_amount`` keeps."""
        return self.outflow - self.inflow

    def is_empty(self) -> bool:
        return not (self.outflow or self.inflow or self.count or self.entering or self.leaving)

    def merge(self, other: SummaryDelta) -> None:
        self.outflow += other.outflow
        self.inflow += other.inflow
        self.count += other.count
        self.entering |= other.entering
        self.leaving |= other.leaving


def deltas(
    txn_id: str, old: Contribution | None, new: Contribution | None, first_open: str
) -> dict[SummaryKey, SummaryDelta]:
    """The rows a move from ``old`` to ``new`` changes, and how (only open months move)."""
    before, after = effective(old, first_open), effective(new, first_open)
    changes: dict[SummaryKey, SummaryDelta] = {}
    if before is not None:
        for key in before.summary_keys():
            changes[key] = SummaryDelta(-before.outflow, -before.inflow, -1, set(), {txn_id})
    if after is not None:
        for key in after.summary_keys():
            delta = changes.setdefault(key, SummaryDelta())
            if delta.leaving:  # counted before and after: only the amount moves
                delta.leaving.clear()
                delta.count = 0
            else:
                delta.count = 1
                delta.entering.add(txn_id)
            delta.outflow += after.outflow
            delta.inflow += after.inflow
    return {key: delta for key, delta in changes.items() if not delta.is_empty()}


def expected_totals(
    contributions: Iterable[tuple[str, Contribution]], first_open: str
) -> dict[SummaryKey, SummaryDelta]:
    """What the rows of open months should hold for ``(txn_id, contribution)`` pairs."""
    totals: dict[SummaryKey, SummaryDelta] = {}
    for txn_id, contribution in contributions:
        for key, delta in deltas(txn_id, None, contribution, first_open).items():
            totals.setdefault(key, SummaryDelta()).merge(delta)
    return totals
