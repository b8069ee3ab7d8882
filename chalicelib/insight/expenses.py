"""The user's recurring expenses: Pave's latest mine when it has one, else our own detector.

* **Pave** answers when the newest ``insights`` row (one descending Query, Limit 1, never a
  Scan) is a Pave mine at most ``PAVE_MINE_MAX_AGE_DAYS`` old that covers some of the user's
  transactions: its ``recurring`` rows (one Query, ``begins_with RECURRING#<mine>#``), without
  those past their TTL (``due_date`` + ``EXPENSE_TTL_DAYS``), which DynamoDB may not have
  deleted yet. A mine whose window is empty (Pave held no transaction of the user when it
  computed it) is no answer: a new user's first upload can carry only removals (the pending
  ids their postings replaced), and its mine lands before the upload of the transactions. A
  row of the mine that cannot be read makes the mine a miss (reported): ours answers.
* **Ours** answers otherwise (a new user, Pave down or slow, no mine yet, an empty mine):
  :func:`our_recurring_expenses` runs ``chalicelib.insight.recurring.detect(transactions, as_of)``
  over the history the insight models read (:func:`chalicelib.insight.history.model_transactions`:
  the retained live transactions of items that are not REMOVED, API-shaped), as the payday
  chain does. That function is where the endpoint calls the detector (the cash-flow forecast
  runs it on the history it has read when :func:`pave_expenses` has no answer).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timedelta
from enum import StrEnum

from chalicelib.data.tolerant import Reading, UnreadableRowError, report_error
from chalicelib.data.ttl import epoch
from chalicelib.insight import history, recurring
from chalicelib.insight.data import insights, recurring_expenses
from chalicelib.insight.data.ttl import expense_ttl
from chalicelib.insight.pave_miner import PAVE_SOURCE
from chalicelib.observability import count
from chalicelib.settings import get_settings


class Source(StrEnum):
    PAVE = "pave"
    OURS = "ours"


@dataclass(frozen=True)
class RecurringExpense:
    """One recurring expense as the API shows it. ``amount`` is the average charge, positive cents."""

    merchant_name: str
    #: Pave's merchant id; None from our detector.
    merchant_id: str | None
    frequency: str
    amount: int
    next_date: date
    last_date: date | None
    transaction_ids: tuple[str, ...]
    #: Our detector's: ``EARLY_DETECTION`` (seen twice) or ``MATURE``; None from Pave.
    status: str | None = None
    #: Our detector's: ``bill``, or ``card_payment`` (a credit card's autopay); None from Pave.
    kind: str | None = None


@dataclass(frozen=True)
class Expenses:
    user_id: str
    source: Source
    #: The Pave mine that answered (the instant of the upload it reflects); None for ours.
    mined_at: datetime | None
    expenses: tuple[RecurringExpense, ...]


def recurring_expenses_of(user_id: str, now: datetime) -> Expenses:
    """Pave's latest mine, or ours (see the module docstring)."""
    found = pave_expenses(user_id, now)
    if found is not None:
        count("insight.expenses.answered", source=Source.PAVE.value)
        return found
    count("insight.expenses.answered", source=Source.OURS.value)
    return our_recurring_expenses(user_id, now.date())


def pave_expenses(user_id: str, now: datetime) -> Expenses | None:
    """Pave's answer when its newest mine is fresh, covers some of the user's transactions and is
    readable; None when ours must answer (the cash-flow forecast reads Pave's bills here and runs
    our detector on the history it has)."""
    mine = insights.latest_insights(user_id)
    max_age = timedelta(days=get_settings().pave_mine_max_age_days)
    if mine is None or mine.source != PAVE_SOURCE or now - mine.mined_at > max_age:
        return None
    if not covers_transactions(mine):
        count("insight.expenses.empty_pave_mine")
        return None
    try:
        found = _from_pave(user_id, mine, now)
    except UnreadableRowError as exc:  # the mine's cache is a miss: ours answers
        report_error(exc, Reading.MISS)
        return None
    return Expenses(user_id, Source.PAVE, mine.mined_at, found)


def covers_transactions(mine: insights.Mine) -> bool:
    """Whether Pave computed the mine from some of the user's transactions: the span of dates it
    reports (``window_start``/``window_end``, null when it held none). A mine that records no
    window (the previous system's, or one mined before the window was recorded) is taken to."""
    details = mine.details
    if "window_start" not in details and "window_end" not in details:
        return True
    return details.get("window_start") is not None and details.get("window_end") is not None


def our_recurring_expenses(user_id: str, as_of: date) -> Expenses:
    """Our detector over the user's history at ``as_of`` (the fallback's one call site)."""
    found = recurring.detect(history.model_transactions(user_id, as_of), as_of)
    return Expenses(user_id, Source.OURS, None, tuple(sorted((_from_detector(s) for s in found), key=_order)))


def _from_pave(user_id: str, mine: insights.Mine, now: datetime) -> tuple[RecurringExpense, ...]:
    rows = recurring_expenses.recurring_expenses(user_id, mine.last_mine)
    kept = [r for r in rows if expense_ttl(r.due_date) > epoch(now)]
    return tuple(sorted((_from_row(r) for r in kept), key=_order))


def _from_row(row: recurring_expenses.Expense) -> RecurringExpense:
    details = row.details
    last = details.get("last_date")
    return RecurringExpense(
        merchant_name=row.merchant_name or row.merchant_id,
        merchant_id=row.merchant_id,
        frequency=row.frequency,
        amount=row.amount,
        next_date=row.due_date,
        last_date=date.fromisoformat(last) if isinstance(last, str) else None,
        transaction_ids=tuple(str(t) for t in details.get("transaction_ids") or ()),
    )


def _from_detector(stream: recurring.RecurringExpense) -> RecurringExpense:
    return RecurringExpense(
        merchant_name=stream.merchant,
        merchant_id=None,
        frequency=str(stream.frequency),
        amount=stream.average_amount,
        next_date=stream.next_date,
        last_date=stream.last_date,
        transaction_ids=tuple(stream.transaction_ids),
        status=stream.status,
        kind=stream.kind,
    )


def _order(expense: RecurringExpense) -> tuple[date, str, int]:
    return (expense.next_date, expense.merchant_name.lower(), expense.amount)
