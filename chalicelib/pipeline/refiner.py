"""The refiner: Kinesis page records into ACCOUNT, BALANCE, TRANSACTION and REMOVE rows.

Records are applied in order. The first record that fails for a reason a retry may fix
is reported by its sequence number and nothing after it is applied in this invocation
(Lambda retries from it). A record a retry cannot fix (undecodable, unconvertible Plaid
data, a DynamoDB ValidationException) is logged and skipped, and none of its data is
written past the point of failure. Every write is an idempotent upsert keyed on Plaid ids,
so replays and duplicates leave the same rows.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from chalicelib.aws.messaging import send_message
from chalicelib.data import accounts, balances, removes, transactions
from chalicelib.data.ttl import utcnow
from chalicelib.errors import BatchUnprocessedError, InvalidRequestError, ThrottledError, ValidationError
from chalicelib.events import publisher
from chalicelib.observability import count, logger
from chalicelib.pipeline.messages import PageRecord, decode_page_record
from chalicelib.pipeline.refine import UnconvertibleRecordError, balance_day, refine_page
from chalicelib.settings import get_settings

FAILED_METRIC = "txn.refiner.record.failed"
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


def refine_records(records: Iterable[KinesisInput], now: datetime | None = None) -> dict[str, list[dict[str, str]]]:
    """Apply records in order; return Lambda's partial batch response."""
    for record in records:
        try:
            apply_record(decode_page_record(record.data), now or utcnow())
        except UNFIXABLE as exc:
            logger.error(
                "refiner skipped a record", extra={"sequence_number": record.sequence_number, "error": str(exc)}
            )
            count(FAILED_METRIC, result="skipped")
        except Exception as exc:  # noqa: BLE001 - any other failure is retried from this record
            throttled = isinstance(exc, (ThrottledError, BatchUnprocessedError))
            logger.exception(
                "refiner failed a record; it will be retried",
                extra={"sequence_number": record.sequence_number, "error": str(exc)},
            )
            count(FAILED_METRIC, result="retried", throttle=str(throttled).lower())
            return {"batchItemFailures": [{"itemIdentifier": record.sequence_number}]}
    return {"batchItemFailures": []}


def apply_record(record: PageRecord, now: datetime) -> RecordOutcome:
    """Write one record's rows (raises on failure; safe to repeat)."""
    outcome = RecordOutcome()
    if record.transactions is not None:
        outcome = _apply_page(record, now)
    if record.removed:
        removed = _apply_removed(record, now)
        outcome = RecordOutcome(outcome.transactions_written, outcome.retombstoned, removed)
    return outcome


def _apply_page(record: PageRecord, now: datetime) -> RecordOutcome:
    page = refine_page(record.user_id, record.item_id, record.transactions or {})
    if page.skipped_accounts:
        logger.warning("skipped accounts in an unknown currency", extra={"account_ids": page.skipped_accounts})
    rows = [accounts.account_item(a, now) for a in page.accounts]
    rows += [balances.balance_item(a, balance_day(a, now), now) for a in page.accounts]
    accounts.put_account_items(rows)

    dead = removes.tombstoned(t.txn_id for t in page.transactions)
    if dead:
        removes.put_remove_items(removes.remove_item(t, record.user_id, record.item_id, now) for t in sorted(dead))
        body = json.dumps({"user_id": record.user_id, "removed": sorted(dead)}, separators=(",", ":"))
        send_message(get_settings().replay_feeder_queue, body)
    live = [t for t in page.transactions if t.txn_id not in dead]
    written = transactions.put_transaction_items(transactions.transaction_item(t, now) for t in live)

    if record.last_page and page.transactions:
        publisher.new_txns_batch_completed(record.user_id, record.item_id, record.mine_id)
    return RecordOutcome(written, len(dead))


def _apply_removed(record: PageRecord, now: datetime) -> int:
    ids = list(dict.fromkeys(record.removed or []))
    # Tombstones first: from then on a late copy of the transaction cannot resurrect it.
    removes.put_remove_items(removes.remove_item(t, record.user_id, record.item_id, now) for t in ids)
    return sum(transactions.soft_delete(t) for t in ids)


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
