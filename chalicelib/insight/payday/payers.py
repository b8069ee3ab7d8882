"""Which payer gives the payday: gig payouts never do, a payer a newer one replaced no longer does
(a job change), and among the rest the largest monthly amount, in the account that receives most."""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import replace
from datetime import date

from chalicelib.insight.payday.candidates import Deposit, Evidence
from chalicelib.insight.payday.streams import (
    ACTIVE,
    ENDED,
    LATE,
    TOLERANCE,
    StreamFit,
    fit_stream,
    paid_once,
    steady_amounts,
    usual_days,
)

#: A stream that began this many days after a LATE stream's first deposit is a new job.
NEW_JOB_DAYS = 21


#: A payer that paid this many times after another payer's first deposit worked both jobs: its
#: missing paycheck is a missed one, not the end of the job (a notice period pays once or twice).
TWO_JOBS_ALONGSIDE = 3


#: A new payer's one deposit in these last days, larger than the primary's month, may be the main income.
NEWCOMER_DAYS = 45


#: A payer's deposits, fewer than this share of them on their schedule's day, are not a payroll's
#: when their amounts do not hold either (:func:`_gig_like`).
PUNCTUAL = 0.9


def without_replaced(fitted: Sequence[StreamFit]) -> list[StreamFit]:
    """A payer that stopped while another pays has ended (a job change, with or without
    overlap): a LATE stream when another regular payer began after its last deposit, or began
    during its history and still pays on schedule; any stream whose every deposit came before
    a newer regular payer's first, once the newer one has paid twice."""
    out = []
    for sf in fitted:
        if sf.regular and sf.status != ENDED and any(_replaces(o, sf) for o in fitted):
            out.append(sf.with_status(ENDED, "replaced by a newer income stream"))
        else:
            out.append(sf)
    return out


def _replaces(new: StreamFit, old: StreamFit) -> bool:
    if not new.regular or new.stream.gig or new.stream.payer == old.stream.payer:
        return False
    if new.first > old.last and len(new.stream.deposits) >= 2:
        return True
    return (
        old.status == LATE
        and new.status == ACTIVE
        and (new.first - old.first).days >= NEW_JOB_DAYS
        and sum(1 for d in old.stream.deposits if d.day > new.first) < TWO_JOBS_ALONGSIDE  # paid alongside
    )


def merge_moved(fitted: list[StreamFit], as_of: date, history_start: date) -> list[StreamFit]:
    """Pay moved to another account: a LATE stream's payer paying into another account, from
    about the date the LATE stream missed on, is one stream in the new account."""
    out = list(fitted)
    for sf in fitted:
        best = sf.best
        if not sf.regular or sf.status != LATE or best is None or sf not in out:
            continue
        missed = best.missed[-1]
        for other in fitted:
            stream = other.stream
            if (
                other is not sf
                and other in out
                and stream.payer == sf.stream.payer
                and stream.account_id != sf.stream.account_id
                and other.first > sf.last
                and abs((other.first - missed).days) <= TOLERANCE
            ):
                labelled = Evidence.INCOME in (stream.evidence, sf.stream.evidence)
                evidence = Evidence.INCOME if labelled else Evidence.UNLABELLED
                joined = replace(
                    stream,
                    deposits=sf.stream.deposits + stream.deposits,
                    evidence=evidence,
                    gig=stream.gig or sf.stream.gig,
                )
                out[out.index(sf)] = fit_stream(joined, as_of, history_start, current_only=True)
                out.remove(other)
                break
    return out


def _gig_like(sf: StreamFit) -> bool:
    """Payouts that look like gig work whatever the payer's name: amounts that do not hold
    (:func:`steady_amounts`, on the deposits the schedule explains; one unusual amount is a
    bonus, not a payout's whim) landing off a schedule (fewer than :data:`PUNCTUAL` of them on
    their day). A payroll's paychecks hold their amount (hourly pay varies by a fifth or so)
    beside its off-cycle deposits (a bonus, a correction), and when they stray (a bank whose
    early posting slips, an ACH a day late) the amounts still hold."""
    best = sf.best
    if best is None or not best.matched or len(sf.stream.deposits) < 3:
        return False
    on_schedule = {o for _, o in best.pairs if o is not None}
    paychecks = tuple(d for d in sf.stream.deposits if d.day in on_schedule)
    if best.exact / best.matched >= PUNCTUAL:
        return False
    explained = replace(sf.stream, deposits=paychecks)
    unusual = len(paychecks) - len(usual_days(explained))
    return (unusual > 1 and not steady_amounts(explained)) or _spread(paychecks) > SPREAD


#: The middle half of a payroll's paychecks spans up to half again (hours that vary week to week:
#: 1.5 at the most on the tuning seeds); a gig payout's, about a factor of two.
SPREAD = 1.75


def _spread(deposits: Sequence[Deposit]) -> float:
    """The upper quartile of the amounts over their lower quartile."""
    cents = sorted(d.cents for d in deposits)
    if len(cents) < 4:
        return 1.0
    lower, _, upper = statistics.quantiles(cents, n=4)
    return upper / lower if lower > 0 else math.inf


def _payers(fitted: Sequence[StreamFit]) -> dict[str, list[StreamFit]]:
    """Regular, not ended streams that are not gig payouts (by name or by look), by payer."""
    payers: dict[str, list[StreamFit]] = {}
    for sf in fitted:
        if sf.regular and sf.status != ENDED and not sf.stream.gig and not _gig_like(sf):
            payers.setdefault(sf.stream.payer, []).append(sf)
    return payers


def _receiving(group: Sequence[StreamFit]) -> StreamFit:
    """A payer's main stream: the account that receives the most (a split deposit)."""
    return max(group, key=lambda sf: (sf.stream.median_cents(), sf.stream.account_id))


def _monthly(group: Sequence[StreamFit]) -> float:
    return sum(sf.monthly_cents for sf in group)


def primary(fitted: Sequence[StreamFit]) -> StreamFit | None:
    """The receiving stream of the payer with the largest monthly income among regular, not
    ended streams (gig payouts never have a payday)."""
    payers = _payers(fitted)
    if not payers:
        return None
    return _receiving(max(payers.values(), key=lambda group: (_monthly(group), group[0].stream.payer)))


def rival_of(fitted: Sequence[StreamFit], chosen: StreamFit, as_of: date) -> StreamFit | None:
    """Why the primary's payday may not be the one to predict: a new payer (one deposit, not
    gig) after a LATE primary's last deposit (a job change too new to read), or one paying more
    at once, in the last weeks, than the primary pays in a month (it may be the main income)."""
    for sf in fitted:
        stream = sf.stream
        if len(stream.deposits) != 1 or stream.gig or stream.payer == chosen.stream.payer:
            continue
        day, cents = stream.deposits[0].day, stream.deposits[0].cents
        if chosen.status == LATE and paid_once(stream) and day > chosen.last:
            return sf
        if (as_of - day).days <= NEWCOMER_DAYS and cents >= chosen.monthly_cents:
            return sf
    return None


def no_regular_reason(fitted: Sequence[StreamFit], history_days: int) -> str:
    ended = [sf for sf in fitted if sf.regular and sf.status == ENDED]
    newcomers = [sf for sf in fitted if len(sf.stream.deposits) == 1 and sf.stream.evidence is Evidence.INCOME]
    if ended and newcomers:
        old, new = ended[0].stream.display_name, newcomers[0].stream.display_name
        return f"income changed: pay from {old} stopped and {new} has paid once so far"
    if ended:
        return f"pay from {ended[0].stream.display_name} stopped after {ended[0].last.isoformat()}"
    if any(sf.stream.gig for sf in fitted):
        return "income is irregular (gig payouts on no fixed schedule)"
    if fitted:
        return "no income deposits on a regular schedule"
    return f"no income deposits in {history_days} days"
