"""The Pave miner: poll an upload request until Pave has processed it, then cache Pave's insights.

The ``last_page`` rows the feeder writes are read here, and this service, not another one,
writes the Pave caches (``insights``, ``recurring``, ``ritual``, ``income``, ``scores``).

Each upload queues a poll ``{user_id, request_id, attempt}`` on ``<stage>-insight-pave-poll``
with a delivery delay (``PAVE_POLL_DELAY_SECONDS``, by default the queue's 30 s, doubling per
attempt up to SQS' 900 s). A poll:

1. reads the request's ``last_page`` row; gone (expired after 5 days) is dropped, and a row
   whose ``outcome`` is set is finished (a duplicate poll);
2. asks Pave for the request's status. ``PENDING``: the next attempt is queued, until
   ``PAVE_POLL_MAX_ATTEMPTS`` polls (about an hour with the defaults); then the row records
   ``timed_out``, an error is logged and counted, and the label forgets the upload's
   fingerprint so the user's next upload, even an identical one, is sent and polled again.
   ``FAILED``: the same, with ``failed``. Pave not knowing the request: ``unknown_request``;
3. ``PROCESSED``: the mine. It is named by the upload's instant (the ``last_page`` row's
   ``created_date``), so a redelivered poll writes the same rows, and mines sort in upload
   order. A mine older than the user's newest one is ``superseded`` and writes nothing (Pave
   processes a user's requests in order: the newer mine already holds what this one would).
   Otherwise it reads Pave's insights and score and writes, in this order, the mine's
   ``recurring`` and ``ritual`` rows (exactly this set: rows of an earlier, interrupted
   attempt are deleted), the ``income`` row (newest mine wins), the ``scores`` row (keyed by
   the mine: Pave's own score time may change from one call to the next), and last the
   ``insights`` row (``MINE#<user>`` / ``TIME#<mine>``), which makes the mine visible: a reader
   that finds it finds every row of the mine.
4. records ``mined`` (``processed``) on the ``last_page`` row.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime
from enum import StrEnum
from typing import Any

from chalicelib.aws.messaging import send_message
from chalicelib.data.ttl import utcnow
from chalicelib.insight.batches import process_grouped
from chalicelib.insight.data import incomes, insights, last_pages, pave_labels, scores
from chalicelib.insight.data.recurring_expenses import RECURRING, RITUAL, Expense, replace_expenses_of_mine
from chalicelib.insight.pave_messages import Poll, parse_poll
from chalicelib.observability import count, logger
from chalicelib.peers import pave
from chalicelib.pipeline.batches import DropMessageError
from chalicelib.settings import get_settings

#: The poll queue's declared delivery delay (``chalicelib.infra.declaration``), the first poll's.
DEFAULT_POLL_DELAY_SECONDS = 30
#: SQS' longest per-message delay.
MAX_POLL_DELAY_SECONDS = 900
PAVE_SOURCE = "PAVE"


class Outcome(StrEnum):
    MINED = "mined"
    SUPERSEDED = "superseded"
    FAILED = "failed"
    TIMED_OUT = "timed_out"
    UNKNOWN_REQUEST = "unknown_request"
    #: Not an end: the next poll is queued.
    PENDING = "pending"
    #: The row had an outcome already (a duplicate poll).
    DONE_BEFORE = "done_before"


def poll_delay(attempt: int) -> int | None:
    """Delivery delay of poll ``attempt``: the base doubled per earlier attempt, at most 900 s.

    ``None`` (the queue's own delay) for the first poll when ``PAVE_POLL_DELAY_SECONDS`` is unset.
    """
    base = get_settings().pave_poll_delay_seconds
    if attempt <= 1:
        return base
    first = DEFAULT_POLL_DELAY_SECONDS if base is None else base
    return int(min(MAX_POLL_DELAY_SECONDS, first * 2 ** (attempt - 1)))


def handle_poll_event(
    event: Mapping[str, Any], *, remaining_ms: Callable[[], int] | None = None, now: datetime | None = None
) -> dict[str, list[dict[str, str]]]:
    """``mine_pave``: polls of one request in one batch are handled once (the latest attempt)."""
    return process_grouped(
        event.get("Records", []),
        parse=parse_poll,
        group=lambda p: f"{p.user_id}:{p.request_id}",
        handle=lambda polls: handle_poll(max(polls, key=lambda p: p.attempt), now=now),
        consumer="pave_miner",
        remaining_ms=remaining_ms,
    )


def handle_poll(message: Poll, *, now: datetime | None = None) -> Outcome:
    """One poll (see the module docstring); raises on a failure worth retrying."""
    user_id, request_id = message.user_id, message.request_id
    page = last_pages.get_last_page(user_id, request_id)
    if page is None:
        raise DropMessageError("request_not_recorded", user_id=user_id, request_id=request_id)
    if page.outcome is not None:
        count("insight.pave.poll", outcome=Outcome.DONE_BEFORE.value)
        return Outcome.DONE_BEFORE
    try:
        status = pave.get_pave().request_status(user_id, request_id)
    except pave.PaveNotFoundError:
        return _give_up(page, Outcome.UNKNOWN_REQUEST, message.attempt)
    if status.state is pave.RequestState.FAILED:
        return _give_up(page, Outcome.FAILED, message.attempt)
    if status.state is pave.RequestState.PENDING:
        if message.attempt >= get_settings().pave_poll_max_attempts:
            return _give_up(page, Outcome.TIMED_OUT, message.attempt)
        following = message.next()
        send_message(get_settings().pave_poll_queue, following.to_json(), delay_seconds=poll_delay(following.attempt))
        count("insight.pave.poll", outcome=Outcome.PENDING.value)
        return Outcome.PENDING
    return mine(page, now=now or utcnow())


def mine(page: last_pages.LastPage, *, now: datetime) -> Outcome:
    """Cache Pave's insights for the processed request ``page`` (step 3 of the module docstring)."""
    user_id, mined_at = page.user_id, page.created_date
    newest = insights.latest_insights(user_id)
    if newest is not None and newest.mined_at > mined_at:
        logger.info(
            "pave mine superseded by a newer one", extra={"user_id": user_id, "request_id": page.pave_request_id}
        )
        return _finish(page, Outcome.SUPERSEDED)
    if newest is not None and newest.mined_at == mined_at:
        return _finish(page, Outcome.MINED)  # written before a crash; only the row's outcome was missing

    client = pave.get_pave()
    found = client.insights(user_id)
    try:
        score: pave.CashAdvanceScore | None = client.cash_advance_score(user_id)
    except pave.PaveNotFoundError:
        score = None
    recurring = [_expense(user_id, mined_at, e.merchant_uuid, e, _recurring_details(e)) for e in found.recurring]
    habits = [_expense(user_id, mined_at, r.merchant_id, r, _ritual_details(r)) for r in found.rituals]
    replace_expenses_of_mine(user_id, mined_at, recurring, RECURRING)
    replace_expenses_of_mine(user_id, mined_at, habits, RITUAL)
    incomes.put_income(_income(user_id, mined_at, page.pave_request_id, found.income))
    if score is not None:
        scores.put_score(
            scores.Score(
                user_id=user_id,
                scored_at=mined_at,
                bands=tuple(scores.ScoreBand(b.score, b.lowest_amount, b.highest_amount) for b in score.bands),
                last_mine=mined_at,
                details={"pave_scored_at": score.scored_at, "pave_request_id": page.pave_request_id},
            )
        )
    insights.put_insights(
        insights.Mine(
            user_id=user_id,
            mined_at=mined_at,
            source=PAVE_SOURCE,
            pave_request_id=page.pave_request_id,
            recurring_count=len(recurring),
            ritual_count=len(habits),
            details={
                "window_start": found.window_start,
                "window_end": found.window_end,
                "has_score": score is not None,
                "next_payday": found.income.next_payday,
                "cached_at": now,
            },
        )
    )
    logger.info(
        "pave insights cached",
        extra={
            "user_id": user_id,
            "request_id": page.pave_request_id,
            "recurring": len(recurring),
            "rituals": len(habits),
            "score": score is not None,
        },
    )
    return _finish(page, Outcome.MINED)


def _finish(page: last_pages.LastPage, outcome: Outcome) -> Outcome:
    last_pages.finish(page.user_id, page.pave_request_id, outcome.value, processed=True)
    count("insight.pave.poll", outcome=outcome.value)
    return outcome


def _give_up(page: last_pages.LastPage, outcome: Outcome, attempt: int) -> Outcome:
    """The request will not be mined: record why, and let the next identical upload be sent."""
    logger.error(
        "pave request not mined",
        extra={"user_id": page.user_id, "request_id": page.pave_request_id, "outcome": outcome.value, "polls": attempt},
    )
    last_pages.finish(page.user_id, page.pave_request_id, outcome.value, processed=False)
    pave_labels.forget_fingerprint(page.user_id, page.pave_request_id)
    count("insight.pave.poll", outcome=outcome.value)
    return outcome


def _expense(
    user_id: str,
    mined_at: datetime,
    merchant_id: str,
    stream: pave.RecurringExpense | pave.Ritual,
    details: dict[str, Any],
) -> Expense:
    return Expense(
        user_id=user_id,
        last_mine=mined_at,
        merchant_id=merchant_id,
        frequency=stream.frequency.value,
        amount=stream.amount,
        due_date=stream.due_date,
        merchant_name=stream.merchant_name,
        details=details,
    )


def _recurring_details(e: pave.RecurringExpense) -> dict[str, Any]:
    return {
        "last_date": e.last_date,
        "last_amount": e.last_amount,
        "next_amount": e.next_amount,
        "count": e.count,
        "iso_currency_code": e.iso_currency_code,
        "tags": list(e.tags),
        "transaction_ids": list(e.transaction_ids),
        "frequency_raw": e.frequency_raw,
    }


def _ritual_details(r: pave.Ritual) -> dict[str, Any]:
    return {
        "last_date": r.last_date,
        "count": r.count,
        "transaction_ids": list(r.transaction_ids),
        "frequency_raw": r.frequency_raw,
    }


def _income(user_id: str, mined_at: datetime, request_id: str, income: pave.Income) -> incomes.Income:
    primary = next((s for s in income.streams if s.source == income.primary_source), None)
    return incomes.Income(
        user_id=user_id,
        updated_date=mined_at,
        last_mine=mined_at,
        next_payday=income.next_payday,
        frequency=income.pay_frequency.value if income.pay_frequency else None,
        source=income.primary_source,
        amount=primary.amount if primary else None,
        monthly_income=income.monthly_income,
        streams=[
            {
                "source_id": s.source_id,
                "source": s.source,
                "frequency": s.frequency.value,
                "amount": s.amount,
                "next_date": s.next_date,
                "last_date": s.last_date,
                "count": s.count,
                "transaction_ids": list(s.transaction_ids),
            }
            for s in income.streams
        ],
        details={"pave_request_id": request_id},
    )
