"""The refiner against moto server: rows, tombstones, events, and failure semantics."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta
from typing import Any

import pytest

from chalicelib.data import accounts, balances, keys, tables, transactions
from chalicelib.data.ttl import epoch
from chalicelib.pipeline.messages import MAX_RECORD_BYTES, encode_page_record
from chalicelib.pipeline.refiner import refine_records
from tests.conftest import Capture
from tests.factories import (
    kinesis_inputs,
    page_record,
    plaid_account,
    plaid_transaction,
    transactions_response,
    uid,
)

pytestmark = pytest.mark.integration

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def raw_item(key: dict[str, str]) -> dict[str, Any] | None:
    return tables.transactions().get_item(Key=key, ConsistentRead=True).get("Item")


def test_a_page_becomes_account_balance_and_transaction_rows(aws_endpoint: str, user_id: str) -> None:
    # GIVEN a page with one account (available not reported) and three transactions
    item_id = uid("item")
    account = plaid_account(balances={"available": None, "current": 250.75, "last_updated_datetime": None})
    txns = [
        plaid_transaction(account["account_id"], date="2026-11-20", amount=12.34),
        plaid_transaction(account["account_id"], date="2025-01-02", amount=-1500.0, category_id=None),
        plaid_transaction(account["account_id"], date="2026-11-29", amount=0.1, pending=True),
    ]
    record = page_record(user_id, item_id, transactions_response([account], txns))

    # WHEN the refiner applies it
    result = refine_records(kinesis_inputs(record), now=NOW)

    # THEN nothing failed
    assert result == {"batchItemFailures": []}
    # AND the account row holds cents, a 0 with its flag false for the missing available balance
    stored = raw_item(keys.account_key(user_id, account["account_id"]))
    assert stored is not None
    assert stored["type"] == "ACCOUNT"
    assert stored["acct_balances"]["bal_current"] == 25075
    assert stored["acct_balances"]["bal_current_string"] == "250.75"
    assert stored["acct_balances"]["bal_available"] == 0
    assert stored["bal_available_reported"] is False
    assert stored["bal_current_reported"] is True
    # AND one BALANCE row for today with the 100-day ttl
    history = balances.list_balances(user_id, account["account_id"])
    assert [b.day for b in history] == [NOW.date()]
    balance_row = raw_item(keys.balance_key(user_id, account["account_id"], NOW.date().isoformat()))
    assert balance_row is not None and balance_row["ttl"] == epoch(NOW + timedelta(days=100))
    # AND each transaction is stored with its keys, cents and ttl rule
    old = raw_item(keys.transaction_key(txns[1]["transaction_id"]))
    assert old is not None
    assert old["txn_amount"] == -150000
    assert old["txn_category_id"] == "UNCATEGORIZED"
    assert old["GSI1PK"] == f"ACCOUNTS#{user_id}"
    assert old["GSI1SK"] == f"DATE#2025-01-02#TXN#{txns[1]['transaction_id']}"
    assert old["ttl"] == epoch(NOW + timedelta(days=14)), "an old transaction still lives 14 days"
    recent = raw_item(keys.transaction_key(txns[2]["transaction_id"]))
    assert recent is not None
    assert recent["ttl"] == epoch(datetime(2026, 11, 29, tzinfo=UTC) + timedelta(days=120))
    assert recent["txn_amount"] == 10
    # AND all three are listed newest first
    listed = transactions.list_transactions(user_id).transactions
    assert [t.txn_id for t in listed] == [
        txns[2]["transaction_id"],
        txns[0]["transaction_id"],
        txns[1]["transaction_id"],
    ]


def test_last_page_with_transactions_publishes_batch_completed(
    aws_endpoint: str, user_id: str, event_capture: Capture
) -> None:
    # GIVEN a middle page and a last page of one mine
    account = plaid_account()
    mine_id = uid("mine")
    first = page_record(
        user_id,
        "item-a",
        transactions_response([account], [plaid_transaction(account["account_id"])]),
        last_page=False,
        mine_id=mine_id,
    )
    last = page_record(
        user_id, "item-a", transactions_response([account], [plaid_transaction(account["account_id"])]), mine_id=mine_id
    )

    # WHEN both are refined, twice (at-least-once delivery)
    refine_records(kinesis_inputs(first, last), now=NOW)
    refine_records(kinesis_inputs(first, last), now=NOW)

    # THEN user_new_txns_batch_completed went out for the last page only, with one stable id
    published = event_capture.matching(lambda e: e["detail"].get("user_id") == user_id)
    assert {e["detail-type"] for e in published} == {"user_new_txns_batch_completed"}
    assert len({e["detail"]["event_id"] for e in published}) == 1
    assert published[0]["detail"]["mine_id"] == mine_id


def test_removed_ids_tombstone_and_soft_delete(aws_endpoint: str, user_id: str, replay_feeder: Capture) -> None:
    # GIVEN two stored transactions
    account = plaid_account()
    gone, kept = plaid_transaction(account["account_id"]), plaid_transaction(account["account_id"])
    refine_records(
        kinesis_inputs(page_record(user_id, "item", transactions_response([account], [gone, kept]))), now=NOW
    )

    # WHEN a TRANSACTIONS_REMOVED record for one of them (and an unknown id) is refined
    unknown = uid("txn")
    result = refine_records(
        kinesis_inputs(page_record(user_id, "item", removed=[gone["transaction_id"], unknown])), now=NOW
    )

    # THEN both ids have tombstones with a 30-day ttl
    assert result == {"batchItemFailures": []}
    for txn_id in (gone["transaction_id"], unknown):
        tomb = raw_item(keys.remove_key(txn_id))
        assert tomb is not None and tomb["type"] == "REMOVE" and tomb["ttl"] == epoch(NOW + timedelta(days=30))
    # AND the removed row drops out of every listing but still answers a point read
    assert [t.txn_id for t in transactions.list_transactions(user_id).transactions] == [kept["transaction_id"]]
    by_account = transactions.list_transactions(user_id, acct_id=account["account_id"]).transactions
    assert [t.txn_id for t in by_account] == [kept["transaction_id"]]
    point = transactions.get_transaction(gone["transaction_id"])
    assert point is not None and point.removed
    row = raw_item(keys.transaction_key(gone["transaction_id"]))
    assert row is not None
    assert all(row[f"GSI{n}SK"].startswith("REMOVED#DATE#") for n in (1, 2, 3, 4))
    assert [t.txn_id for t in transactions.soft_deleted_transactions(user_id)] == [gone["transaction_id"]]
    # AND the insight service's Pave feeder is told of both ids, in the replay-feeder format
    sent = replay_feeder.matching(lambda m: m.get("user_id") == user_id)
    assert sent == [{"user_id": user_id, "removed": sorted([gone["transaction_id"], unknown])}]


def test_a_transaction_arriving_after_its_removal_is_retombstoned(
    aws_endpoint: str, user_id: str, replay_feeder: Capture
) -> None:
    # GIVEN a removal that arrived before the transaction itself (out of order)
    account = plaid_account()
    late = plaid_transaction(account["account_id"])
    refine_records(kinesis_inputs(page_record(user_id, "item", removed=[late["transaction_id"]])), now=NOW)

    # WHEN the page carrying it is refined
    later = NOW + timedelta(hours=1)
    refine_records(kinesis_inputs(page_record(user_id, "item", transactions_response([account], [late]))), now=later)

    # THEN no TRANSACTION row exists, the tombstone was refreshed, and insight was told twice:
    # of the ordinary removal, then of the re-tombstoned id
    assert transactions.get_transaction(late["transaction_id"]) is None
    tomb = raw_item(keys.remove_key(late["transaction_id"]))
    assert tomb is not None and tomb["ttl"] == epoch(later + timedelta(days=30))
    sent = replay_feeder.matching(lambda m: m.get("user_id") == user_id)
    assert sent == [{"user_id": user_id, "removed": [late["transaction_id"]]}] * 2


def test_a_posting_that_replaces_a_stored_pending_transaction_tells_pave_to_forget_it(
    aws_endpoint: str, user_id: str, replay_feeder: Capture
) -> None:
    # GIVEN a stored pending purchase (which the Pave feeder may have uploaded)
    account = plaid_account()
    pending = plaid_transaction(account["account_id"], pending=True)
    refine_records(kinesis_inputs(page_record(user_id, "item", transactions_response([account], [pending]))), now=NOW)
    # WHEN the posting that replaces it is refined
    posted = plaid_transaction(account["account_id"], pending_transaction_id=pending["transaction_id"])
    refine_records(kinesis_inputs(page_record(user_id, "item", transactions_response([account], [posted]))), now=NOW)
    # THEN the pending row is removed, and the Pave feeder is told to forget it
    row = transactions.get_transaction(pending["transaction_id"])
    assert row is not None and row.removed
    sent = replay_feeder.matching(lambda m: m.get("user_id") == user_id)
    assert sent == [{"user_id": user_id, "removed": [pending["transaction_id"]]}]


def test_unconvertible_records_are_skipped_and_later_records_applied(aws_endpoint: str, user_id: str) -> None:
    # GIVEN an undecodable record, a record with a bad date, one with an unknown currency, then a good one
    account = plaid_account()
    bad_date = page_record(
        user_id, "i", transactions_response([account], [plaid_transaction(account["account_id"], date="2026-13-45")])
    )
    crypto = page_record(
        user_id,
        "i",
        transactions_response(
            [account],
            [plaid_transaction(account["account_id"], iso_currency_code=None, unofficial_currency_code="BTC")],
        ),
    )
    null_txn = page_record(user_id, "i", transactions_response([account], [None]))  # type: ignore[list-item]
    good_txn = plaid_transaction(account["account_id"])
    good = page_record(user_id, "i", transactions_response([account], [good_txn]))

    # WHEN refined in one batch
    result = refine_records(
        kinesis_inputs(b"\x1f\x8bnot gzip", b"{not json", bad_date, crypto, null_txn, good), now=NOW
    )

    # THEN nothing is reported for retry, the bad ones wrote no transaction, the good one is stored
    assert result == {"batchItemFailures": []}
    assert [t.txn_id for t in transactions.list_transactions(user_id).transactions] == [good_txn["transaction_id"]]


def test_accounts_in_an_unknown_currency_are_skipped(aws_endpoint: str, user_id: str) -> None:
    usd, crypto = (
        plaid_account(),
        plaid_account(balances={"iso_currency_code": None, "unofficial_currency_code": "ETH"}),
    )
    refine_records(kinesis_inputs(page_record(user_id, "i", transactions_response([usd, crypto], []))), now=NOW)
    assert [a.acct_id for a in accounts.list_accounts(user_id)] == [usd["account_id"]]


def test_first_retryable_failure_is_reported_and_nothing_after_it_applied(
    aws_endpoint: str, user_id: str, override_settings: Callable[..., None]
) -> None:
    # GIVEN a batch whose second record needs the replay-feeder queue, which is unavailable
    account = plaid_account()
    removed_then_seen = plaid_transaction(account["account_id"])
    refine_records(kinesis_inputs(page_record(user_id, "i", removed=[removed_then_seen["transaction_id"]])), now=NOW)
    override_settings(REPLAY_FEEDER_QUEUE="missing-queue")
    first_txn, third_txn = plaid_transaction(account["account_id"]), plaid_transaction(account["account_id"])
    inputs = kinesis_inputs(
        page_record(user_id, "i", transactions_response([account], [first_txn])),
        page_record(user_id, "i", transactions_response([account], [removed_then_seen])),
        page_record(user_id, "i", transactions_response([account], [third_txn])),
    )

    # WHEN refined
    result = refine_records(inputs, now=NOW)

    # THEN the second record is reported by its sequence number and the third was not applied
    assert result == {"batchItemFailures": [{"itemIdentifier": inputs[1].sequence_number}]}
    assert transactions.get_transaction(first_txn["transaction_id"]) is not None
    assert transactions.get_transaction(third_txn["transaction_id"]) is None


def test_a_page_of_huge_transactions_is_split_under_the_record_limit(aws_endpoint: str, user_id: str) -> None:
    # GIVEN a 500-transaction page whose names make it far larger than 1 MiB, even gzipped
    import secrets

    account = plaid_account()
    txns = [
        plaid_transaction(
            account["account_id"], name=secrets.token_hex(2000), original_description=secrets.token_hex(1000)
        )
        for _ in range(500)
    ]
    record = page_record(user_id, "i", transactions_response([account], txns))

    # WHEN encoded for Kinesis
    payloads = encode_page_record(record)

    # THEN every payload fits a Kinesis record and only the last part is the last page
    assert len(payloads) > 1
    assert all(len(p) <= MAX_RECORD_BYTES for p in payloads)
    # AND refining the parts stores every transaction
    result = refine_records(kinesis_inputs(*payloads), now=NOW)
    assert result == {"batchItemFailures": []}
    stored, cursor = [], None
    while True:
        page = transactions.list_transactions(user_id, limit=200, cursor=cursor)
        stored += page.transactions
        if not (cursor := page.cursor):
            break
    assert len(stored) == 500


def test_listing_paginates_with_an_opaque_cursor_and_date_range(aws_endpoint: str, user_id: str) -> None:
    account = plaid_account()
    txns = [
        plaid_transaction(account["account_id"], date=(date(2026, 11, 1) + timedelta(days=i)).isoformat())
        for i in range(7)
    ]
    refine_records(kinesis_inputs(page_record(user_id, "i", transactions_response([account], txns))), now=NOW)

    first = transactions.list_transactions(user_id, limit=3)
    second = transactions.list_transactions(user_id, limit=3, cursor=first.cursor)
    assert [t.txn_date.day for t in first.transactions + second.transactions] == [7, 6, 5, 4, 3, 2]
    assert first.cursor is not None and "ACCOUNTS#" not in first.cursor and user_id not in first.cursor
    ranged = transactions.list_transactions(user_id, start=date(2026, 11, 2), end=date(2026, 11, 4))
    assert [t.txn_date.day for t in ranged.transactions] == [4, 3, 2]


def test_rows_dynamodb_rejects_and_ids_that_cannot_be_keys_are_skipped(aws_endpoint: str, user_id: str) -> None:
    # GIVEN a transaction too large for a DynamoDB item (400 KB) but small gzipped, and one whose
    # account id cannot be part of a key, each in its own record, then a good record
    account = plaid_account()
    huge = page_record(
        user_id, "i", transactions_response([account], [plaid_transaction(account["account_id"], name="x" * 420_000)])
    )
    bad_id = page_record(user_id, "i", transactions_response([account], [plaid_transaction("acct#1")]))
    good_txn = plaid_transaction(account["account_id"])
    good = page_record(user_id, "i", transactions_response([account], [good_txn]))

    # WHEN refined
    result = refine_records(kinesis_inputs(huge, bad_id, good), now=NOW)

    # THEN DynamoDB's ValidationException and the key error skip their records; the good one is stored
    assert result == {"batchItemFailures": []}
    assert [t.txn_id for t in transactions.list_transactions(user_id).transactions] == [good_txn["transaction_id"]]


def emitted_metrics(output: str) -> list[dict[str, Any]]:
    """The EMF documents Powertools printed (one JSON object per line)."""
    import json

    return [doc for line in output.splitlines() if line.startswith("{") and "_aws" in (doc := json.loads(line))]


def test_failed_records_are_counted_with_their_result_and_throttle_tags(
    aws_endpoint: str, user_id: str, capsys: pytest.CaptureFixture[str], override_settings: Callable[..., None]
) -> None:
    # GIVEN an undecodable record, then a record that fails for a retryable reason
    account = plaid_account()
    seen = plaid_transaction(account["account_id"])
    refine_records(kinesis_inputs(page_record(user_id, "i", removed=[seen["transaction_id"]])), now=NOW)
    override_settings(REPLAY_FEEDER_QUEUE="missing-queue")
    capsys.readouterr()

    # WHEN refined
    refine_records(
        kinesis_inputs(b"garbage", page_record(user_id, "i", transactions_response([account], [seen]))), now=NOW
    )

    # THEN one failure counted as skipped and one as retried, not throttled
    failures = [m for m in emitted_metrics(capsys.readouterr().out) if "txn.refiner.record.failed" in m]
    tags = sorted((m["result"], m.get("throttle")) for m in failures)
    assert tags == [("retried", "false"), ("skipped", None)]


# --- removals touch only their owner's rows ---------------------------------------------


def refine(*records: Any, now: datetime = NOW) -> None:
    for record in records:
        assert refine_records(kinesis_inputs(record), now=now) == {"batchItemFailures": []}


def test_a_removal_naming_another_users_transaction_is_not_applied(
    aws_endpoint: str, user_id: str, service_logs: list[Any]
) -> None:
    # GIVEN a victim's stored transaction
    victim, victim_item = uid("user"), uid("item")
    account = plaid_account()
    theirs = plaid_transaction(account["account_id"])
    refine(page_record(victim, victim_item, transactions_response([account], [theirs])))
    # WHEN a removal for another user's item lists it
    refine(page_record(user_id, uid("item"), removed=[theirs["transaction_id"]]))
    # THEN the victim's row is untouched and still listed, no tombstone was written, and it was logged
    row = transactions.get_transaction(theirs["transaction_id"])
    assert row is not None and not row.removed and row.user_id == victim
    assert [t.txn_id for t in transactions.list_transactions(victim).transactions] == [theirs["transaction_id"]]
    assert raw_item(keys.remove_key(theirs["transaction_id"])) is None
    assert any(r.getMessage() == "payload names a row of another owner; not applied" for r in service_logs)
    # AND the victim's own removal still works
    refine(page_record(victim, victim_item, removed=[theirs["transaction_id"]]))
    gone = transactions.get_transaction(theirs["transaction_id"])
    assert gone is not None and gone.removed


def test_a_removal_from_another_item_of_the_same_user_is_not_applied(aws_endpoint: str, user_id: str) -> None:
    account = plaid_account()
    txn = plaid_transaction(account["account_id"])
    refine(page_record(user_id, "item-a", transactions_response([account], [txn])))
    refine(page_record(user_id, "item-b", removed=[txn["transaction_id"]]))
    row = transactions.get_transaction(txn["transaction_id"])
    assert row is not None and not row.removed and row.item_id == "item-a"


def test_an_early_removal_waits_only_for_its_own_users_transaction(aws_endpoint: str, user_id: str) -> None:
    # GIVEN another user's item removed an id before any row existed (its tombstone records that owner)
    account = plaid_account()
    txn = plaid_transaction(account["account_id"])
    stranger = uid("user")
    refine(page_record(stranger, uid("item"), removed=[txn["transaction_id"]]))
    tomb = raw_item(keys.remove_key(txn["transaction_id"]))
    assert tomb is not None and tomb["user_id"] == stranger
    # WHEN this user's page carries that transaction
    refine(page_record(user_id, "item", transactions_response([account], [txn])))
    # THEN the stranger's tombstone does not block it: it is stored and listed
    assert [t.txn_id for t in transactions.list_transactions(user_id).transactions] == [txn["transaction_id"]]
    # AND the tombstone still belongs to the stranger (this user's removal never took it over)
    assert raw_item(keys.remove_key(txn["transaction_id"]))["user_id"] == stranger  # type: ignore[index]


def test_a_page_never_overwrites_another_users_transaction(aws_endpoint: str, user_id: str) -> None:
    account = plaid_account()
    txn = plaid_transaction(account["account_id"], amount=10.0)
    victim = uid("user")
    refine(page_record(victim, "victim-item", transactions_response([account], [txn])))
    copy = {**txn, "amount": 999.0}
    refine(page_record(user_id, "item", transactions_response([account], [copy])))
    row = transactions.get_transaction(txn["transaction_id"])
    assert row is not None and (row.user_id, row.amount) == (victim, 1000)
    assert transactions.list_transactions(user_id).transactions == []


def test_a_legacy_row_without_an_item_is_removed_by_its_accounts_item(aws_endpoint: str, user_id: str) -> None:
    # GIVEN a transaction row written before owners were recorded (no item_id) on an account of item-a
    account = plaid_account()
    refine(page_record(user_id, "item-a", transactions_response([account], [])))
    txn = transactions.Transaction(user_id, account["account_id"], uid("txn"), 500, date(2026, 11, 2))
    transactions.put_transaction_items([transactions.transaction_item(txn, NOW)])
    # WHEN item-b's removal names it, then item-a's
    assert transactions.soft_delete(txn.txn_id, user_id, "item-b") is transactions.SoftDelete.NOT_OWNER
    assert transactions.soft_delete(txn.txn_id, user_id, "item-a") is transactions.SoftDelete.REMOVED
    assert transactions.soft_delete(uid("txn"), user_id, "item-a") is transactions.SoftDelete.MISSING
