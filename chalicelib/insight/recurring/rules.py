"""The recurring detector's numbers in one place: what a stream must show to be reported, how far a
charge may stray from its day, and the categories that ask for more evidence."""

from __future__ import annotations

from chalicelib.insight.schedule import Cadence

#: The frequencies a stream is reported with.
FREQUENCIES = (
    Cadence.WEEKLY,
    Cadence.BIWEEKLY,
    Cadence.SEMI_MONTHLY,
    Cadence.MONTHLY,
    Cadence.QUARTERLY,
    Cadence.ANNUALLY,
)


PERIOD_DAYS = {
    Cadence.WEEKLY: 7.0,
    Cadence.BIWEEKLY: 14.0,
    Cadence.SEMI_MONTHLY: 365.25 / 24,
    Cadence.MONTHLY: 365.25 / 12,
    Cadence.QUARTERLY: 365.25 / 4,
    Cadence.ANNUALLY: 365.25,
}


#: Charges a stream needs to be MATURE.
MATURE_CHARGES = 3


#: Cadences whose charges at their level's very amount, and whose bill charges (categorised as
#: rent, utilities, insurance or a loan: a phone bill's taxes move its cents), may sit off their
#: day by up to ``TOLERANCE_DAYS`` and still count as on schedule (authorization jitter, a debit
#: a day or two late, a bill paid by hand).
JITTER_CADENCES = frozenset({Cadence.MONTHLY, Cadence.QUARTERLY})


# --- amounts
#: Charges within this share (or these cents) of each other are one amount level.
LEVEL_TOLERANCE = 0.02


LEVEL_TOLERANCE_CENTS = 5


#: A price change keeps the new level within this factor of the old one.
PRICE_CHANGE = (0.4, 1.75)


#: How far the amounts of a varying bill may spread (largest / smallest), and of one seen twice.
#: A gas bill where winters are cold runs six to eight times its summer amount.
VARIABLE_SPREAD = 10.0


TWICE_SEEN_SPREAD = 2.0


# --- the schedule and the evidence
#: The best few schedules of the fit are judged on all the evidence; the best judged wins (four:
#: a card plan known by one authorization day and two posting days ranks its own day fourth
#: as often as not).
SCHEDULES_TRIED = 4


#: Calendar rules per cadence the fit scores in full (those explaining most days exactly).
RULES_SCORED = 4


#: A cadence whose period is within this share of the typical gap is tried first.
DIRECT_GAP_SHARE = 0.25


#: Known charge days the fit needs to choose a rule by exact hits; fewer (a bill seen twice, one
#: charge a day or two off) are fitted within ``TOLERANCE_DAYS`` and the judge decides.
EXACT_FIT_DAYS = 3


#: Charges spread over this many days are always tried as a monthly bill.
ALWAYS_MONTHLY_SPAN_DAYS = 50


#: A charge may come this many days early, or late by ``LATE_DAYS`` or a business day (a card
#: charge retried after a decline, an ACH file a day late: a Friday debit on Monday).
TOLERANCE_DAYS = 2


LATE_DAYS = 3


#: A card charge known only by its posting day posted up to this many days after the charge
#: (then the next business day).
POSTING_LAG_DAYS = 3


#: How far before the first charge its scheduled day can be (posting lag over a long weekend).
EARLIEST_SCHEDULED_DAYS = 7


# --- acceptance
#: Matched charges a stream needs before it is reported: two for a monthly bill (an early
#: detection, with more rules: see ``_twice_seen``), quarterly and annual ones.
MIN_CHARGES = {Cadence.MONTHLY: 2, Cadence.QUARTERLY: 2, Cadence.ANNUALLY: 2}


DEFAULT_MIN_CHARGES = 3


#: Shares of the candidate's charges on schedule and of scheduled charges present, and the mean
#: distance (days) of a dated charge from its scheduled day.
MIN_PRECISION = 0.8


MIN_PRECISION_WITH_EXTRAS = 0.6


VARYING_MIN_PRECISION = 0.9


MIN_RECALL = 0.75


MAX_RESIDUAL = 1.5


#: Charges off their scheduled day allowed: a quarter of them, or one. Bills keep their day; a
#: habit's timing wanders around any schedule laid over it.
MAX_OFF_DAY_SHARE = 0.25


#: Charges exactly on their scheduled day a stream needs.
MIN_EXACT_CHARGES = 1


#: More evidence where chance alignments are likely (see ``_chance_ruled_out``).
BUSY_MIN_CHARGES = 4


BUSY_MIN_EXACT = 0.75


#: Weekly and every-other-week streams: most charges on their day (a car wash "every two weeks
#: or so" lines up with some weekday now and then).
SHORT_CADENCES = frozenset({Cadence.WEEKLY, Cadence.BIWEEKLY})


#: Everyday-category streams (a weekly meal kit) may skip this share of their charges.
EVERYDAY_MAX_MISSED = 0.15


#: Days past a missing charge's scheduled day before the stream counts as stopped (an ACH file
#: can run a business day late); card charges post a few days after the charge and get more.
STOP_AFTER_DAYS = {
    Cadence.WEEKLY: 10,  # a week skipped (meal kits let you skip) is not a cancellation
    Cadence.BIWEEKLY: 4,
    Cadence.SEMI_MONTHLY: 4,
    Cadence.MONTHLY: 5,
    Cadence.QUARTERLY: 10,
    Cadence.ANNUALLY: 20,
}


CARD_STOP_EXTRA_DAYS = 2
