"""What a candidate shows against one schedule: its charges paired with the scheduled days,
and how many fell on their day, early, late or missing."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta

from chalicelib.insight.calendar import next_business_day
from chalicelib.insight.recurring.candidates import Candidate
from chalicelib.insight.schedule import Cadence, Schedule
from chalicelib.insight.transactions import Txn


@dataclass(frozen=True, slots=True)
class Evidence:
    """How well a schedule explains a candidate's charges."""

    candidate: Candidate
    schedule: Schedule
    matched: tuple[Txn, ...]  # one charge per scheduled day it was matched to, oldest first
    due: int  # scheduled charges that should have shown by now
    exact: int  # matched on the scheduled day itself
    jittered: int  # dated, off its day by at most TOLERANCE_DAYS: a price's very amount, or a bill (JITTER_CADENCES)
    dated: int  # matched charges whose charge day is known (not only a card's posting day)
    early: int  # dated charges before their scheduled day
    #: Charges before their scheduled day, a day or two of jitter included: a biller debits on its
    #: day or late, and a card is charged on its day or retried later, so between two readings the
    #: one no charge came before wins.
    ahead: int
    residual: float  # mean days between a dated charge and its scheduled day
    overdue: date | None  # the first scheduled charge missing since the last one, overdue
    trailing: int  # scheduled charges missing since the last one, overdue
    #: A bill's (not a card charge's) scheduled charge not seen yet but still on time: as_of is
    #: within its late window (due on a weekend or a holiday, it posts on the next business day).
    waiting: date | None = None

    @property
    def precision(self) -> float:
        return len(self.matched) / len(self.candidate.txns)

    @property
    def recall(self) -> float:
        return len(self.matched) / max(1, self.due)

    @property
    def cadence(self) -> Cadence:
        return self.schedule.cadence

    def next_date(self, as_of: date) -> date:
        if self.waiting is not None:
            return next_business_day(as_of + timedelta(days=1))
        return self.schedule.next_dates(as_of, 1)[0]
