"""Backfill and check a user's monthly summaries against the TRANSACTION rows.

The refiner keeps summaries current for every row it writes. Two operations cover the rest:

* :func:`backfill_user` makes every stored row of an open month record what its content
  contributes, moving the summaries by the difference (rows stored before summaries were
  kept, or written while they were off). A row that already records its contribution is
  left alone, so a second run changes nothing.
* :func:`check_user` recomputes the summaries of the open months (whose rows are all still
  retained) from the rows and reports every difference from the stored SUMMARY rows, and
  every row whose record disagrees with its content.

Both read the user's rows from GSI1 (eventually consistent): a row written a moment ago may
be missed, so a difference on a user being refined right now is worth a second look.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from chalicelib.data import contributions, summaries, summary_writes, transactions
from chalicelib.data.contributions import SummaryDelta, SummaryKey

#: The newest month a check reads (every month a summary can have).
LAST_MONTH = "9999-12"


@dataclass(frozen=True)
class BackfillResult:
    user_id: str
    first_open_month: str
    rows: int
    changed: int


def backfill_user(user_id: str, now: datetime) -> BackfillResult:
    """Reconcile every row of the user's open months with its summaries (idempotent)."""
    first_open = contributions.first_open_month(now)
    rows = transactions.user_transaction_rows(user_id)
    changes = [c for row in rows if (c := transactions.reconcile_change(row, first_open)) is not None]
    changed = summary_writes.apply(changes, now)
    return BackfillResult(user_id, first_open, len(rows), changed)


@dataclass(frozen=True)
class Difference:
    """One SUMMARY row that does not hold what its transactions add up to."""

    month: str
    account_id: str | None
    category_id: str | None
    expected: dict[str, Any]
    stored: dict[str, Any] | None


@dataclass(frozen=True)
class CheckReport:
    user_id: str
    first_open_month: str
    rows: int
    differences: list[Difference] = field(default_factory=list)
    #: Rows of open months whose recorded contribution is not what their content makes.
    unreconciled: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.differences and not self.unreconciled


def check_user(user_id: str, now: datetime) -> CheckReport:
    """Recompute the open months' summaries from the rows and compare them with the stored ones."""
    first_open = contributions.first_open_month(now)
    rows = transactions.user_transaction_rows(user_id)
    counted: list[tuple[str, contributions.Contribution]] = []
    unreconciled: list[str] = []
    for row in rows:
        txn = transactions.from_item(row)
        desired = contributions.of_transaction(txn)
        if desired is not None and contributions.effective(desired, first_open) is not None:
            counted.append((txn.txn_id, desired))
        recorded = contributions.recorded(row)
        open_row = any(contributions.effective(c, first_open) for c in (desired, recorded))
        if open_row and recorded != desired:
            unreconciled.append(txn.txn_id)
    expected = contributions.expected_totals(counted, first_open)
    stored = {
        SummaryKey(s.month, s.acct_id, s.category_id): s
        for s in summaries.list_summaries(user_id, first_open, LAST_MONTH)
    }
    differences = [
        difference
        for key in sorted(set(expected) | set(stored), key=SummaryKey.order)
        if (difference := _difference(key, expected.get(key), stored.get(key))) is not None
    ]
    return CheckReport(user_id, first_open, len(rows), differences, sorted(unreconciled))


def _expected_figures(delta: SummaryDelta | None) -> dict[str, Any]:
    delta = delta or SummaryDelta()
    return {
        "outflow_amount": delta.outflow,
        "inflow_amount": delta.inflow,
        "total_amount": delta.total,
        "txn_count": delta.count,
    }


def _stored_figures(summary: summaries.Summary) -> dict[str, Any]:
    return {
        "outflow_amount": summary.outflow_amount,
        "inflow_amount": summary.inflow_amount,
        "total_amount": summary.total_amount,
        "txn_count": summary.txn_count,
    }


def _difference(key: SummaryKey, expected: SummaryDelta | None, stored: summaries.Summary | None) -> Difference | None:
    want = _expected_figures(expected)
    counted = expected.entering if expected else set()
    if stored is None:
        if not want["txn_count"]:
            return None
        return Difference(key.month, key.acct_id, key.category_id, want, None)
    have = _stored_figures(stored)
    listed_wrongly = sorted(stored.added_txn_ids - counted)
    removed_wrongly = sorted(stored.removed_txn_ids & counted)
    if have == want and not listed_wrongly and not removed_wrongly:
        return None
    have_all: dict[str, Any] = dict(have)
    if listed_wrongly:
        have_all["added_but_not_counted"] = listed_wrongly
    if removed_wrongly:
        have_all["removed_but_counted"] = removed_wrongly
    return Difference(key.month, key.acct_id, key.category_id, want, have_all)


def describe(report: CheckReport) -> Mapping[str, Any]:
    """The report as plain data (what the ops command prints)."""
    return {
        "user_id": report.user_id,
        "first_open_month": report.first_open_month,
        "transaction_rows": report.rows,
        "ok": report.ok,
        "differences": [d.__dict__ for d in report.differences],
        "unreconciled_rows": report.unreconciled,
    }
