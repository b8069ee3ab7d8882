"""Collection dates: when a cash advance is collected, derived from the projected paydays.

Rules (every date is on or after the predicted payday, never before it):

- **instant**: the predicted payday itself. An instant debit (card or real-time payment)
  runs once the deposit has landed that day; the payday already includes a bank's early
  posting, so it is the day the money is there.
- **standard**: the business day after the payday. A standard ACH debit submitted on the
  payday settles the next business day, and a deposit that posts late on the payday is in
  the account by then.
- **extended**: the payday after the predicted one, from the same projected schedule (a
  repayment extended by one pay cycle), and never before ``standard``; none when only one
  payday is known (the Pave insight without a cadence).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

from chalicelib.insight.schedule import shift_business_days


@dataclass(frozen=True, slots=True)
class CollectionDates:
    instant: date
    standard: date
    extended: date | None


def collection_dates(upcoming: Sequence[date]) -> CollectionDates | None:
    """The collection dates for projected paydays ``upcoming`` (the predicted one first)."""
    if not upcoming:
        return None
    payday = upcoming[0]
    standard = shift_business_days(payday, 1)
    following = [d for d in upcoming[1:] if d > payday]
    extended = max(following[0], standard) if following else None
    return CollectionDates(instant=payday, standard=standard, extended=extended)
