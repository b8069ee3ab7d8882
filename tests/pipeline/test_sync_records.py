"""Page records as a sync loop writes them: removals with transactions, and the batch announcement."""

from __future__ import annotations

import secrets
from dataclasses import replace
from datetime import UTC, datetime

import pytest

from chalicelib.data import transactions
from chalicelib.pipeline.messages import MAX_RECORD_BYTES, decode_page_record, encode_page_record
from chalicelib.pipeline.refiner import refine_records
from tests.conftest import Capture
from tests.factories import kinesis_inputs, page_record, plaid_account, plaid_transaction, transactions_response, uid

pytestmark = pytest.mark.integration

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def test_a_loops_last_record_without_transactions_still_announces_the_batch(
    aws_endpoint: str, user_id: str, event_capture: Capture
) -> None:
    # GIVEN a loop whose first page stored a transaction and whose last page holds only a removal
    account = plaid_account()
    mine_id = uid("loop")
    kept, gone = plaid_transaction(account["account_id"]), plaid_transaction(account["account_id"])
    first = page_record(
        user_id, "item-s", transactions_response([account], [kept, gone]), last_page=False, mine_id=mine_id
    )
    last = replace(
        page_record(user_id, "item-s", transactions_response([account], []), [gone["transaction_id"]], mine_id=mine_id),
        announce=True,
    )
    # AND a mine of another item whose last page holds nothing at all (nothing to announce)
    quiet = page_record(user_id, "item-q", transactions_response([account], []), mine_id=uid("loop"))

    # WHEN they are refined
    assert refine_records(kinesis_inputs(first, last, quiet), now=NOW) == {"batchItemFailures": []}

    # THEN the batch of the first loop is announced once, and the removal applied
    published = event_capture.matching(lambda e: e["detail"].get("user_id") == user_id)
    assert [(e["detail"]["item_id"], e["detail"]["mine_id"]) for e in published] == [("item-s", mine_id)]
    assert [t.txn_id for t in transactions.list_transactions(user_id).transactions] == [kept["transaction_id"]]


def test_a_huge_page_with_removals_splits_and_keeps_its_removals_last(aws_endpoint: str, user_id: str) -> None:
    # GIVEN a last page far over the record limit, with transactions and removals, that announces its batch
    account = plaid_account()
    old = plaid_transaction(account["account_id"])
    stored_first = refine_records(
        kinesis_inputs(page_record(user_id, "i", transactions_response([account], [old]))), NOW
    )
    assert stored_first == {"batchItemFailures": []}
    txns = [plaid_transaction(account["account_id"], name=secrets.token_hex(3000)) for _ in range(400)]
    record = replace(
        page_record(user_id, "i", transactions_response([account], txns), [old["transaction_id"]]), announce=True
    )

    # WHEN encoded for the stream
    payloads = encode_page_record(record)
    parts = [decode_page_record(p) for p in payloads]

    # THEN each part fits; only the last carries the removals, the last-page flag and the announcement
    assert len(parts) > 1 and all(len(p) <= MAX_RECORD_BYTES for p in payloads)
    assert [(p.last_page, p.announce, bool(p.removed)) for p in parts[:-1]] == [(False, False, False)] * (
        len(parts) - 1
    )
    assert (parts[-1].last_page, parts[-1].announce, parts[-1].removed) == (True, True, [old["transaction_id"]])
    assert sum(len((p.transactions or {})["transactions"]) for p in parts) == 400
    # AND refined, the removal applies after every transaction
    assert refine_records(kinesis_inputs(*payloads), now=NOW) == {"batchItemFailures": []}
    stored, cursor = [], None
    while True:
        page = transactions.list_transactions(user_id, limit=200, cursor=cursor)
        stored += page.transactions
        if not (cursor := page.cursor):
            break
    assert len(stored) == 400 and old["transaction_id"] not in {t.txn_id for t in stored}
