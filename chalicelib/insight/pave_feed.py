"""The Pave feeder: upload a user's transactions to Pave after each mine, and removals as they happen.

Two queues drive it (no DynamoDB stream: the transactions table's stream already has its reader):

* ``<stage>-insight-pave-feed``: the refiner's ``user_new_txns_batch_completed`` event, routed by
  an EventBridge rule. The event names no transactions, so the feeder uploads the user's whole
  window (:mod:`chalicelib.insight.window`): the retained live transactions of items that are not
  REMOVED, plus as removals the soft-deleted ones and those of REMOVED items. Pave keeps one copy
  per transaction id, so sending a transaction again replaces it. Events of one user in one
  batch make one upload.
* ``<stage>-insight-replay-feeder``: ``{user_id, removed}`` from the refiner, both the ids it
  re-tombstoned and the ids of ordinary removals (``TRANSACTIONS_REMOVED``). Each message is
  uploaded as it is (removals only), so a redelivered message makes the same upload.

Every upload then:

1. goes to Pave in pages whose ``Idempotency-Key`` derives from their content (a repeat creates
   nothing at Pave: it answers with the request it already made);
2. records its ``last_page`` row (``USERS#<user>`` / ``LAST_PAGE#REQUEST_ID#<id>``, 5-day TTL;
   the first write wins, so a repeat keeps the original upload instant, which names the mine);
3. queues the first poll for the miner (:mod:`chalicelib.insight.pave_miner`), delayed;
4. writes the ``pave_label`` row (``LABEL#<user>`` / ``PAVE#REFRESH_INSIGHTS``): the latest
   request and the fingerprint of what it sent. An upload whose fingerprint equals the label's
   is skipped without calling Pave: a redelivery right after a success uploads nothing.

A crash between steps repeats them all on redelivery, which Pave and the conditional writes
absorb: nothing is uploaded twice, every row ends the same.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from chalicelib.aws.messaging import send_message
from chalicelib.data.transactions import Transaction
from chalicelib.data.ttl import utcnow
from chalicelib.insight import window
from chalicelib.insight.batches import process_grouped
from chalicelib.insight.data import last_pages, pave_labels
from chalicelib.insight.pave_messages import Poll, parse_batch_completed, parse_removals
from chalicelib.insight.pave_miner import poll_delay
from chalicelib.observability import count, logger
from chalicelib.peers.pave import get_pave, upload_pages
from chalicelib.settings import get_settings

WINDOW = "window"
REMOVALS = "removals"
FINGERPRINT = pave_labels.UPLOAD_FINGERPRINT


@dataclass(frozen=True)
class FeedOutcome:
    """What one upload did: ``uploaded``, ``skipped`` (the label's fingerprint) or ``empty``."""

    user_id: str
    kind: str
    result: str
    request_id: str | None = None
    transactions_sent: int = 0
    removals_sent: int = 0
    replayed: bool = False


def handle_feed_event(
    event: Mapping[str, Any], *, remaining_ms: Callable[[], int] | None = None, now: datetime | None = None
) -> dict[str, list[dict[str, str]]]:
    """``feed_pave``: one window upload per user in the batch."""
    return process_grouped(
        event.get("Records", []),
        parse=parse_batch_completed,
        group=lambda m: m.user_id,
        handle=lambda messages: feed_window(messages[0].user_id, now=now),
        consumer="pave_feeder",
        remaining_ms=remaining_ms,
    )


def handle_removals_event(
    event: Mapping[str, Any], *, remaining_ms: Callable[[], int] | None = None, now: datetime | None = None
) -> dict[str, list[dict[str, str]]]:
    """``feed_pave_removals``: one removals upload per message."""
    return process_grouped(
        event.get("Records", []),
        parse=parse_removals,
        # Each message is uploaded on its own, so its redelivery repeats exactly its upload.
        group=lambda m: f"{m.user_id}:{_digest(m.removed)}",
        handle=lambda messages: feed_removals(messages[0].user_id, messages[0].removed, now=now),
        consumer="pave_feeder",
        remaining_ms=remaining_ms,
    )


def feed_window(user_id: str, *, now: datetime | None = None) -> FeedOutcome:
    """Upload the user's window (see the module docstring)."""
    now = now or utcnow()
    found = window.read_window(user_id, now.date())
    return upload(user_id, WINDOW, found.transactions, found.removed, now=now)


def feed_removals(user_id: str, removed: Sequence[str], *, now: datetime | None = None) -> FeedOutcome:
    """Upload removals only."""
    return upload(user_id, REMOVALS, (), removed, now=now or utcnow())


def upload(
    user_id: str, kind: str, transactions: Sequence[Transaction], removed: Iterable[str], *, now: datetime
) -> FeedOutcome:
    """Steps 1-4 of the module docstring for one upload."""
    removed = sorted(set(removed))
    if not transactions and not removed:
        count("insight.pave.upload", result="empty", kind=kind)
        return FeedOutcome(user_id, kind, "empty")
    fingerprint = upload_fingerprint(user_id, transactions, removed)
    label = pave_labels.get_pave_label(user_id)
    if label is not None and label.details.get(FINGERPRINT) == fingerprint:
        logger.info("pave upload skipped: sent already", extra={"user_id": user_id, "kind": kind})
        count("insight.pave.upload", result="skipped", kind=kind)
        return FeedOutcome(user_id, kind, "skipped", label.pave_request_id)

    receipt = get_pave().upload_transactions(user_id, transactions, removed=removed)
    recorded = last_pages.put_last_page(
        last_pages.LastPage(
            user_id=user_id,
            pave_request_id=receipt.request_id,
            created_date=now,
            pages=len(receipt.request_ids),
            transaction_count=receipt.transactions_sent,
            details={
                "kind": kind,
                "request_ids": list(receipt.request_ids),
                "removals_sent": receipt.removals_sent,
                FINGERPRINT: fingerprint,
            },
        )
    )
    poll = Poll(user_id, receipt.request_id, 1)
    send_message(get_settings().pave_poll_queue, poll.to_json(), delay_seconds=poll_delay(poll.attempt))
    pave_labels.put_pave_label(
        pave_labels.PaveLabel(
            user_id=user_id,
            updated_date=now,
            pave_request_id=receipt.request_id,
            details={
                "kind": kind,
                FINGERPRINT: fingerprint,
                "request_ids": list(receipt.request_ids),
                "transactions_sent": receipt.transactions_sent,
                "removals_sent": receipt.removals_sent,
            },
        )
    )
    logger.info(
        "pave upload",
        extra={
            "user_id": user_id,
            "kind": kind,
            "request_id": receipt.request_id,
            "pages": len(receipt.request_ids),
            "transactions_sent": receipt.transactions_sent,
            "removals_sent": receipt.removals_sent,
            "replayed": receipt.replayed,
            "first_record": recorded,
        },
    )
    count("insight.pave.upload", result="replayed" if receipt.replayed else "uploaded", kind=kind)
    return FeedOutcome(
        user_id,
        kind,
        "uploaded",
        receipt.request_id,
        receipt.transactions_sent,
        receipt.removals_sent,
        receipt.replayed,
    )


def upload_fingerprint(user_id: str, transactions: Sequence[Transaction], removed: Sequence[str]) -> str:
    """A digest of exactly the pages the client will send (same input, same fingerprint)."""
    pages = upload_pages(user_id, transactions, removed, get_settings().pave.upload_page_size)
    return hashlib.sha256(json.dumps(pages, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def _digest(ids: Iterable[str]) -> str:
    return hashlib.sha256("\n".join(ids).encode()).hexdigest()[:16]
