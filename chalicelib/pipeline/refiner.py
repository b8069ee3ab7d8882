"""The refiner: Kinesis page records into ACCOUNT, BALANCE, TRANSACTION and REMOVE rows.

Records are applied in order. The first record that fails for a reason a retry may fix
is reported by its sequence number and nothing after it is applied in this invocation
(Lambda retries from it). A record a retry cannot fix (undecodable, unconvertible Plaid
data, a DynamoDB ValidationException) is logged and skipped, and none of its data is
written past the point of failure. Every write is an idempotent upsert keyed on Plaid ids,
so replays and duplicates leave the same rows.

Removed ids reach the insight service's Pave feeder on ``<stage>-insight-replay-feeder`` as
``{user_id, removed}``: the ids a page re-tombstoned and, after their tombstones are written,
the ids of an ordinary removal (``TRANSACTIONS_REMOVED``) and of the pending transactions a
posting replaces. A repeated record sends again the ids whose removal it had not finished,
which the feeder absorbs (the same removals make the same upload); the feeder's window
upload sends every soft-deleted id still retained anyway.
"""

from __future__ import annotations

import base64
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from chalicelib.aws.messaging import send_message
from chalicelib.data import accounts, balances, ownership, removes, transactions
from chalicelib.data.ttl import utcnow
from chalicelib.errors import BatchUnprocessedError, InvalidRequestError, ThrottledError, ValidationError
from chalicelib.events import publisher
from chalicelib.insight import balance_updates
from chalicelib.insight.balance_updates import BalanceUpdateSource
from chalicelib.insight.pave_messages import removals_bodies
from chalicelib.observability import count, logger
from chalicelib.pipeline.in_order import RETRIED, InOrderLoop
from chalicelib.pipeline.messages import PageRecord, decode_page_record
from chalicelib.pipeline.refine import UnconvertibleRecordError, balance_day, refine_page
from chalicelib.settings import get_settings

FAILED_METRIC = "txn.refiner.record.failed"
#: TRANSACTION rows the refiner wrote (the dashboard's refined rows per second).
WRITTEN_METRIC = "txn.refiner.transactions.written"
#: Failures no retry can fix: the record is logged and skipped.
UNFIXABLE = (ValidationError, UnconvertibleRecordError, InvalidRequestError)


@dataclass(frozen=True)
class KinesisInput:
    sequence_number: str
    data: bytes


@dataclass(frozen=True)
class RecordOutcome:
    transactions_written: int = 0
    retombstoned: int = 0
    removed: int = 0
    #: Pending rows removed because the page posted them.
    superseded: int = 0


def _count_failure(result: str, error: Exception) -> None:
    if result == RETRIED:
        throttled = isinstance(error, (ThrottledError, BatchUnprocessedError))
        count(FAILED_METRIC, result=result, throttle=str(throttled).lower())
    else:
        count(FAILED_METRIC, result=result)


LOOP: InOrderLoop[KinesisInput] = InOrderLoop(
    "refiner", UNFIXABLE, sequence_number=lambda r: r.sequence_number, count_failure=_count_failure
)


def refine_records(records: Iterable[KinesisInput], now: datetime | None = None) -> dict[str, list[dict[str, str]]]:
    """Apply records in order (:mod:`chalicelib.pipeline.in_order`); return Lambda's partial batch response."""
    return LOOP.run(records, lambda record: apply_record(decode_page_record(record.data), now or utcnow()))


def apply_record(record: PageRecord, now: datetime) -> RecordOutcome:
    """Write one record's rows (raises on failure; safe to repeat)."""
    outcome = RecordOutcome()
    if record.transactions is not None:
        outcome = _apply_page(record, now)
    if record.removed:
        removed = _apply_removed(record, now)
        outcome = RecordOutcome(outcome.transactions_written, outcome.retombstoned, removed, outcome.superseded)
    return outcome


def _apply_page(record: PageRecord, now: datetime) -> RecordOutcome:
    page = refine_page(record.user_id, record.item_id, record.transactions or {})
    if page.skipped_accounts:
        logger.warning("skipped accounts in an unknown currency", extra={"account_ids": page.skipped_accounts})
    rows = [accounts.account_item(a, now) for a in page.accounts]
    rows += [balances.balance_item(a, balance_day(a, now), now) for a in page.accounts]
    accounts.put_account_items(rows)

    sorted_page = _sort_by_owner(record, page.transactions)
    dead = sorted_page.dead
    if dead:
        removes.put_remove_items(removes.remove_item(t, record.user_id, record.item_id, now) for t in sorted(dead))
        tell_insight(record.user_id, sorted(dead))
    # Pending rows a posting replaces go first, so the API never shows both.
    superseded = _remove_ids(record, sorted_page.superseded, sorted_page.found, now)
    written = transactions.write_transactions(sorted_page.live, sorted_page.found.rows, now)
    count(WRITTEN_METRIC, written)

    if record.last_page and (page.transactions or record.announce):
        publisher.new_txns_batch_completed(record.user_id, record.item_id, record.mine_id)
    if rows:  # last, so the insight service reads every row this record stored
        balance_updates.announce(record.user_id, BalanceUpdateSource.REFINER, item_id=record.item_id, now=now)
    return RecordOutcome(written, len(dead), superseded=superseded)


@dataclass(frozen=True)
class _SortedPage:
    """A page's transactions by what becomes of them, and the stored rows they were sorted by."""

    found: ownership.StoredOwners
    dead: set[str]
    live: list[transactions.Transaction]
    #: Pending ids the page's posted transactions replace (``pending_transaction_id``).
    superseded: list[str]


def _sort_by_owner(record: PageRecord, page: list[transactions.Transaction]) -> _SortedPage:
    """Split a page into ids this item removed earlier (re-tombstoned), rows to write, and the
    pending ids its postings replace (removed like a removal, whichever arrived first).

    A transaction whose row belongs to another user or item is neither: it is left alone
    (logged and counted). A tombstone of another owner does not apply to this one. A pending
    transaction the same page already replaces is not written.
    """
    user, item = record.user_id, record.item_id
    named = [t.pending_transaction_id for t in page if not t.pending and t.pending_transaction_id]
    found = ownership.stored_owners([t.txn_id for t in page] + [n for n in named if n])
    dead: set[str] = set()
    live: list[transactions.Transaction] = []
    for txn in page:
        row = found.transactions.get(txn.txn_id)
        if row is not None and not row.admits(user, item):
            ownership.report_mismatch("transaction", "write", txn.txn_id, user, item, row)
            continue
        tomb = found.tombstones.get(txn.txn_id)
        if tomb is not None and tomb.admits(user, item):
            dead.add(txn.txn_id)
            continue
        if tomb is not None:
            ownership.report_mismatch("tombstone", "block", txn.txn_id, user, item, tomb)
        live.append(txn)
    replaced = {t.pending_transaction_id for t in live if not t.pending and t.pending_transaction_id}
    # A posting never replaces itself or another posting, in this page or stored.
    replaced -= {t.txn_id for t in live if not t.pending}
    replaced = {i for i in replaced if i not in found.rows or found.rows[i].get("txn_pending")}
    live = [t for t in live if t.txn_id not in replaced]
    return _SortedPage(found, dead, live, sorted(i for i in replaced if i and i not in dead))


def _other_owner(
    found: ownership.StoredOwners, txn_id: str, user: str, item: str
) -> tuple[str, ownership.Owner] | None:
    """The stored row of ``txn_id`` (tombstone first) that belongs to someone else, if any."""
    for kind, owner in (("tombstone", found.tombstones.get(txn_id)), ("transaction", found.transactions.get(txn_id))):
        if owner is not None and not owner.admits(user, item):
            return kind, owner
    return None


def _apply_removed(record: PageRecord, now: datetime) -> int:
    """Tombstone and soft-delete the removed ids of this user's item, and no one else's rows."""
    ids = list(dict.fromkeys(record.removed or []))
    return _remove_ids(record, ids, ownership.stored_owners(ids), now)


def _remove_ids(record: PageRecord, ids: list[str], found: ownership.StoredOwners, now: datetime) -> int:
    """Tombstone ``ids`` and soft-delete their rows, for this user's item only; returns rows removed.

    ``found`` is what :func:`ownership.stored_owners` read for them. An id whose row is not
    stored is only tombstoned, so its transaction never appears later either; an id already
    tombstoned for this item and whose row is removed already (a redelivery) costs nothing.
    """
    user, item = record.user_id, record.item_id
    claimed: list[str] = []
    for txn_id in ids:
        mismatch = _other_owner(found, txn_id, user, item)
        if mismatch is not None:
            ownership.report_mismatch(mismatch[0], "remove", txn_id, user, item, mismatch[1])
            continue
        row = found.rows.get(txn_id)
        if txn_id in found.tombstones and (row is None or row.get("txn_removed")):
            continue  # done before: the tombstone stands and the row, if any, is removed
        claimed.append(txn_id)
    # Tombstones first: from then on a late copy of the transaction cannot resurrect it.
    removes.put_remove_items(removes.remove_item(t, user, item, now) for t in claimed)
    # Ids without a row are done: the tombstone waits for them.
    stored = {txn_id: found.rows[txn_id] for txn_id in claimed if txn_id in found.rows}
    outcomes = transactions.soft_delete_rows(stored, user, item, now)
    for txn_id, outcome in outcomes.items():
        if outcome is transactions.SoftDelete.NOT_OWNER:  # changed owner since the read
            ownership.report_mismatch("transaction", "remove", txn_id, user, item, ownership.Owner(None, None))
    tell_insight(user, claimed)
    return sum(outcome is transactions.SoftDelete.REMOVED for outcome in outcomes.values())


def tell_insight(user_id: str, removed: list[str]) -> None:
    """Send removed ids to the insight service's replay-feeder queue (nothing when empty)."""
    for body in removals_bodies(user_id, removed):
        send_message(get_settings().replay_feeder_queue, body)


def handle_kinesis_event(event: Mapping[str, Any], now: datetime | None = None) -> dict[str, list[dict[str, str]]]:
    """The Lambda entry: decode each record's base64 data, then :func:`refine_records`."""
    return refine_records((_input(r) for r in event.get("Records", [])), now)


def _input(record: Mapping[str, Any]) -> KinesisInput:
    kinesis = record.get("kinesis", {})
    try:
        data = base64.b64decode(kinesis.get("data", ""), validate=True)
    except (ValueError, TypeError):
        data = b""  # undecodable: refine_records logs and skips it
    return KinesisInput(str(kinesis.get("sequenceNumber", "")), data)
