"""Live monthly summaries: the refiner moves them exactly once per change, the check agrees.

Every test refines records through the real refiner against the session's moto server, then
reads the SUMMARY rows and runs the check (which recomputes the open months from the rows).
With ``NOW`` on 2026-11-30, September to November are open; July is closed.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import UTC, date, datetime
from typing import Any

import pytest

from chalicelib import clock
from chalicelib.data import contributions, keys, summaries, summary_writes, tables, transactions
from chalicelib.data.summaries import Summary
from chalicelib.pipeline.refiner import refine_records
from chalicelib.pipeline.summary_upkeep import backfill_user, check_user
from tests.factories import (
    Sequence,
    kinesis_inputs,
    page_record,
    plaid_account,
    plaid_transaction,
    transactions_response,
)
from tests.faults import lost_answer

pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("aws_endpoint")]

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
FOOD, TRAVEL, PAY = "13005043", "22001000", "21009000"


def refine(*records: Any, now: datetime = NOW) -> None:
    result = refine_records(kinesis_inputs(*records), now=now)
    assert result == {"batchItemFailures": []}


def rows_of(user_id: str) -> dict[tuple[str, str | None, str | None], Summary]:
    found = summaries.list_summaries(user_id, "2000-01", "9999-12")
    return {(s.month, s.acct_id, s.category_id): s for s in found}


def figures(summary: Summary | None) -> tuple[int | None, ...] | None:
    if summary is None:
        return None
    return (summary.outflow_amount, summary.inflow_amount, summary.total_amount, summary.txn_count)


def assert_checked(user_id: str) -> None:
    report = check_user(user_id, NOW)
    assert report.ok, (report.differences, report.unreconciled)


def raw_row(txn_id: str) -> dict[str, Any]:
    row = tables.transactions().get_item(Key=keys.transaction_key(txn_id), ConsistentRead=True).get("Item")
    assert row is not None
    return row


def test_posted_transactions_sum_into_four_granularities_and_pending_ones_do_not(user_id: str) -> None:
    # GIVEN a checking and a card account, November spending and pay, a pending purchase and a July one
    checking, card = plaid_account(), plaid_account()
    a, c = checking["account_id"], card["account_id"]
    txns = [
        plaid_transaction(a, date="2026-11-03", amount=12.34, category_id=FOOD),
        plaid_transaction(c, date="2026-11-10", amount=100.0, category_id=TRAVEL),
        plaid_transaction(a, date="2026-11-15", amount=-2500.0, category_id=PAY),
        plaid_transaction(a, date="2026-11-29", amount=7.5, category_id=FOOD, pending=True),
        plaid_transaction(a, date="2026-07-15", amount=40.0, category_id=FOOD),
    ]

    # WHEN the page is refined
    refine(page_record(user_id, "item", transactions_response([checking, card], txns)))

    # THEN November holds the posted amounts, money out and in apart, at every granularity
    rows = rows_of(user_id)
    assert figures(rows[("2026-11", None, None)]) == (11234, 250000, 11234 - 250000, 3)
    assert figures(rows[("2026-11", a, None)]) == (1234, 250000, 1234 - 250000, 2)
    assert figures(rows[("2026-11", c, None)]) == (10000, 0, 10000, 1)
    assert figures(rows[("2026-11", None, FOOD)]) == (1234, 0, 1234, 1)
    assert figures(rows[("2026-11", a, FOOD)]) == (1234, 0, 1234, 1)
    assert figures(rows[("2026-11", c, TRAVEL)]) == (10000, 0, 10000, 1)
    assert rows[("2026-11", None, None)].added_txn_ids == {t["transaction_id"] for t in txns[:3]}
    # AND a closed month (July) gets no summary, though its row records what it contributes
    assert not [k for k in rows if k[0] != "2026-11"]
    assert contributions.recorded(raw_row(txns[4]["transaction_id"])) is not None
    # AND the pending purchase records nothing
    assert contributions.ATTRIBUTE not in raw_row(txns[3]["transaction_id"])
    # AND summary rows carry no ttl, and the check agrees
    stored = tables.transactions().get_item(Key=summaries.summary_key(user_id, contributions.SummaryKey("2026-11")))
    assert "ttl" not in stored["Item"]
    assert_checked(user_id)


def test_duplicate_and_shuffled_delivery_counts_each_transaction_once(user_id: str) -> None:
    # GIVEN two items' pages of distinct transactions across three months, and a removal of some of them
    rng = random.Random(13)
    records: list[Any] = []
    expected: dict[str, int] = {}
    removed: list[str] = []
    for item in ("item-a", "item-b"):
        account = plaid_account()
        ids: list[str] = []
        for month in ("2026-09", "2026-10", "2026-11"):
            page = [
                plaid_transaction(
                    account["account_id"],
                    date=f"{month}-{rng.randint(1, 28):02d}",
                    amount=rng.choice([-1, 1]) * rng.randint(1, 50_000) / 100,
                    category_id=rng.choice([FOOD, TRAVEL, PAY]),
                )
                for _ in range(6)
            ]
            records.append(page_record(user_id, item, transactions_response([account], page)))
            for t in page:
                expected[t["transaction_id"]] = round(t["amount"] * 100)
                ids.append(t["transaction_id"])
        gone = rng.sample(ids, 3)
        removed += gone
        records.append(page_record(user_id, item, removed=gone))
    # WHEN every record is delivered three times, in a shuffled order (removals before their transactions too)
    delivery = records * 3
    rng.shuffle(delivery)
    seq = Sequence()
    for start in range(0, len(delivery), 5):
        assert refine_records(kinesis_inputs(*delivery[start : start + 5], seq=seq), now=NOW)["batchItemFailures"] == []

    # THEN the month totals are exactly the transactions not removed, each counted once
    counted = {t: amount for t, amount in expected.items() if t not in removed}
    rows = rows_of(user_id)
    total = sum(figures(rows[(m, None, None)])[2] or 0 for m in ("2026-09", "2026-10", "2026-11"))  # type: ignore[index]
    assert total == sum(counted.values())
    assert sum(rows[(m, None, None)].txn_count or 0 for m in ("2026-09", "2026-10", "2026-11")) == len(counted)
    listed = set().union(*(rows[(m, None, None)].added_txn_ids for m in ("2026-09", "2026-10", "2026-11")))
    assert listed == set(counted)
    # AND the check recomputes the same summaries from the rows
    assert_checked(user_id)


def modified(txn: dict[str, Any], **changes: Any) -> dict[str, Any]:
    return {**txn, **changes}


@pytest.mark.parametrize(
    ("change", "moves"),
    [
        pytest.param({"amount": 30.0}, {("2026-10", None, None): (3000, 1)}, id="amount"),
        pytest.param(
            {"date": "2026-11-01"},
            {("2026-10", None, None): (0, 0), ("2026-11", None, None): (1234, 1)},
            id="date-across-a-month",
        ),
        pytest.param(
            {"category_id": TRAVEL},
            {("2026-10", None, FOOD): (0, 0), ("2026-10", None, TRAVEL): (1234, 1), ("2026-10", None, None): (1234, 1)},
            id="category",
        ),
    ],
)
def test_a_modification_moves_only_the_difference(
    user_id: str, change: dict[str, Any], moves: dict[tuple[str, str | None, str | None], tuple[int, int]]
) -> None:
    # GIVEN a posted October purchase, refined
    account = plaid_account()
    txn = plaid_transaction(account["account_id"], date="2026-10-31", amount=12.34, category_id=FOOD)
    refine(page_record(user_id, "item", transactions_response([account], [txn])))

    # WHEN Plaid modifies it, and the modification is delivered twice
    again = page_record(user_id, "item", transactions_response([account], [modified(txn, **change)]))
    refine(again, again)

    # THEN the rows it left hold nothing of it, the rows it reached hold it once
    rows = rows_of(user_id)
    for key, (total, count) in moves.items():
        assert (rows[key].total_amount, rows[key].txn_count) == (total, count), key
        if count:
            assert txn["transaction_id"] in rows[key].added_txn_ids
        else:
            assert rows[key].removed_txn_ids == {txn["transaction_id"]} and not rows[key].added_txn_ids
    assert_checked(user_id)


def test_a_transaction_moved_to_another_account_leaves_the_first_accounts_rows(user_id: str) -> None:
    # GIVEN a purchase on one account
    first, second = plaid_account(), plaid_account()
    txn = plaid_transaction(first["account_id"], date="2026-11-05", amount=20.0, category_id=FOOD)
    refine(page_record(user_id, "item", transactions_response([first, second], [txn])))
    # WHEN Plaid reports it on the other account
    refine(
        page_record(
            user_id, "item", transactions_response([first, second], [modified(txn, account_id=second["account_id"])])
        )
    )
    # THEN the month's total stays, and the account rows swap
    rows = rows_of(user_id)
    assert figures(rows[("2026-11", None, None)]) == (2000, 0, 2000, 1)
    assert figures(rows[("2026-11", first["account_id"], None)]) == (0, 0, 0, 0)
    assert figures(rows[("2026-11", second["account_id"], FOOD)]) == (2000, 0, 2000, 1)
    assert_checked(user_id)


def test_removals_take_a_transaction_out_once(user_id: str) -> None:
    # GIVEN two November purchases
    account = plaid_account()
    kept = plaid_transaction(account["account_id"], date="2026-11-02", amount=5.0)
    gone = plaid_transaction(account["account_id"], date="2026-11-03", amount=8.0)
    refine(page_record(user_id, "item", transactions_response([account], [kept, gone])))
    # WHEN one is removed, the removal is delivered twice, and then its page is replayed
    removal = page_record(user_id, "item", removed=[gone["transaction_id"]])
    refine(removal, removal)
    refine(page_record(user_id, "item", transactions_response([account], [kept, gone])))
    # THEN the month counts the other one only, and lists the removed id as taken out
    month = rows_of(user_id)[("2026-11", None, None)]
    assert figures(month) == (500, 0, 500, 1)
    assert month.removed_txn_ids == {gone["transaction_id"]}
    assert contributions.ATTRIBUTE not in raw_row(gone["transaction_id"])
    assert_checked(user_id)


@pytest.mark.parametrize("order", ["pending-first", "posted-first", "same-page"])
def test_a_posting_replaces_its_pending_transaction_in_either_order(user_id: str, order: str) -> None:
    # GIVEN a pending purchase and the posted transaction that replaces it
    account = plaid_account()
    pending = plaid_transaction(account["account_id"], date="2026-11-27", amount=9.99, pending=True)
    posted = modified(
        pending,
        transaction_id=f"posted-{pending['transaction_id']}",
        pending=False,
        pending_transaction_id=pending["transaction_id"],
        amount=10.49,
    )

    def as_page(*txns: dict[str, Any]) -> Any:
        return page_record(user_id, "item", transactions_response([account], list(txns)))

    # WHEN they arrive in the given order, each delivered twice
    if order == "pending-first":
        refine(as_page(pending), as_page(pending), as_page(posted), as_page(posted))
    elif order == "posted-first":
        refine(as_page(posted), as_page(posted), as_page(pending), as_page(pending))
    else:
        refine(as_page(posted, pending), as_page(pending, posted))

    # THEN only the posting is listed, and the pending id answers as removed (or was never stored)
    listed = [t.txn_id for t in transactions.list_transactions(user_id).transactions]
    assert listed == [posted["transaction_id"]]
    row = transactions.get_transaction(pending["transaction_id"])
    assert row is None or row.removed
    # AND its tombstone keeps a late copy out
    tomb = tables.transactions().get_item(Key=keys.remove_key(pending["transaction_id"]), ConsistentRead=True)
    assert tomb["Item"]["user_id"] == user_id and tomb["Item"]["item_id"] == "item"
    # AND the month counts the posting once
    assert figures(rows_of(user_id)[("2026-11", None, None)]) == (1049, 0, 1049, 1)
    assert_checked(user_id)


def test_a_posting_never_removes_another_items_pending_transaction(user_id: str) -> None:
    # GIVEN a pending transaction of item-a
    account = plaid_account()
    pending = plaid_transaction(account["account_id"], date="2026-11-27", amount=9.99, pending=True)
    refine(page_record(user_id, "item-a", transactions_response([account], [pending])))
    # WHEN item-b posts a transaction naming it
    other = plaid_account()
    posted = plaid_transaction(other["account_id"], pending_transaction_id=pending["transaction_id"], date="2026-11-28")
    refine(page_record(user_id, "item-b", transactions_response([other], [posted])))
    # THEN item-a's pending row stays, and no tombstone of item-b blocks it
    row = transactions.get_transaction(pending["transaction_id"])
    assert row is not None and not row.removed
    assert "Item" not in tables.transactions().get_item(Key=keys.remove_key(pending["transaction_id"]))


def test_an_answer_lost_after_the_summaries_moved_is_not_applied_twice(user_id: str) -> None:
    # GIVEN a page of purchases whose summary transaction is applied but whose answer is lost
    account = plaid_account()
    txns = [plaid_transaction(account["account_id"], date="2026-11-10", amount=1.0 + n) for n in range(5)]
    record = page_record(user_id, "item", transactions_response([account], txns))
    with lost_answer("dynamodb", "TransactWriteItems") as fault:
        first = refine_records(kinesis_inputs(record), now=NOW)
    assert fault.hits == 1
    assert len(first["batchItemFailures"]) == 1, "the record is reported for a retry"

    # WHEN Lambda delivers the record again
    refine(record)

    # THEN every purchase is counted once
    assert figures(rows_of(user_id)[("2026-11", None, None)]) == (1500, 0, 1500, 5)
    assert_checked(user_id)


def test_id_sets_stop_growing_at_the_limit_while_amounts_stay_exact(
    user_id: str, override_settings: Callable[..., None]
) -> None:
    # GIVEN rows that list at most three ids per set
    override_settings(SUMMARY_ID_LIMIT="3")
    account = plaid_account()
    txns = [plaid_transaction(account["account_id"], date="2026-11-10", amount=1.0) for _ in range(5)]
    # WHEN five purchases are refined in two pages, and two of them removed
    refine(page_record(user_id, "item", transactions_response([account], txns[:2])))
    refine(page_record(user_id, "item", transactions_response([account], txns[2:])))
    refine(page_record(user_id, "item", removed=[txns[0]["transaction_id"], txns[4]["transaction_id"]]))
    # THEN the count and amounts are exact, and no set holds more than three ids
    month = rows_of(user_id)[("2026-11", None, None)]
    assert figures(month) == (300, 0, 300, 3)
    assert len(month.added_txn_ids) <= 3 and len(month.removed_txn_ids) <= 3
    assert month.added_txn_ids <= {t["transaction_id"] for t in txns[1:4]}
    assert_checked(user_id)


def test_closed_months_are_final(user_id: str) -> None:
    # GIVEN an October purchase counted while October was open
    account = plaid_account()
    txn = plaid_transaction(account["account_id"], date="2026-10-05", amount=50.0)
    refine(page_record(user_id, "item", transactions_response([account], [txn])))
    # WHEN, once October has closed (120 days after its first day), the purchase changes and is removed
    later = datetime(2027, 1, 30, tzinfo=UTC)
    refine(page_record(user_id, "item", transactions_response([account], [modified(txn, amount=70.0)])), now=later)
    refine(page_record(user_id, "item", removed=[txn["transaction_id"]]), now=later)
    # THEN October still says what it said when it closed
    assert figures(rows_of(user_id)[("2026-10", None, None)]) == (5000, 0, 5000, 1)


def test_summaries_off_keeps_each_rows_record_and_the_backfill_catches_up(
    user_id: str, override_settings: Callable[..., None]
) -> None:
    # GIVEN a purchase counted with summaries on
    account = plaid_account()
    counted = plaid_transaction(account["account_id"], date="2026-11-01", amount=10.0)
    refine(page_record(user_id, "item", transactions_response([account], [counted])))
    # WHEN summaries are off while it changes and a new purchase arrives
    override_settings(SUMMARIES_ENABLED="false")
    fresh = plaid_transaction(account["account_id"], date="2026-11-02", amount=3.0)
    refine(page_record(user_id, "item", transactions_response([account], [modified(counted, amount=12.0), fresh])))
    # THEN the summaries did not move, the changed row still records what they hold, and the check says so
    assert figures(rows_of(user_id)[("2026-11", None, None)]) == (1000, 0, 1000, 1)
    assert contributions.recorded(raw_row(counted["transaction_id"])).amount == 1000  # type: ignore[union-attr]
    report = check_user(user_id, NOW)
    assert not report.ok and set(report.unreconciled) == {counted["transaction_id"], fresh["transaction_id"]}
    # WHEN summaries are back on and the backfill runs, twice
    override_settings(SUMMARIES_ENABLED="true")
    first, second = backfill_user(user_id, NOW), backfill_user(user_id, NOW)
    # THEN the first moved exactly the two rows' differences and the second had nothing to do
    assert (first.changed, second.changed) == (2, 0)
    assert figures(rows_of(user_id)[("2026-11", None, None)]) == (1500, 0, 1500, 2)
    assert_checked(user_id)


def test_the_backfill_counts_rows_stored_before_summaries_and_skips_closed_months(user_id: str) -> None:
    # GIVEN rows as stored before summaries were kept: posted, pending, removed and one of a closed month
    acct = "acct-legacy"
    rows = [
        transactions.Transaction(user_id, acct, f"{user_id}-t1", 1200, date(2026, 11, 3), category_id=FOOD),
        transactions.Transaction(user_id, acct, f"{user_id}-t2", -800, date(2026, 10, 9), category_id=PAY),
        transactions.Transaction(user_id, acct, f"{user_id}-t3", 500, date(2026, 11, 4), pending=True),
        transactions.Transaction(user_id, acct, f"{user_id}-t4", 700, date(2026, 11, 5), removed=True),
        transactions.Transaction(user_id, acct, f"{user_id}-t5", 900, date(2026, 7, 1)),
    ]
    transactions.put_transaction_items(transactions.transaction_item(t, NOW) for t in rows)
    # WHEN the backfill runs twice
    first, second = backfill_user(user_id, NOW), backfill_user(user_id, NOW)
    # THEN only the two posted rows of open months were counted, once
    assert (first.rows, first.changed, second.changed) == (5, 2, 0)
    found = rows_of(user_id)
    assert figures(found[("2026-11", None, None)]) == (1200, 0, 1200, 1)
    assert figures(found[("2026-10", acct, PAY)]) == (0, 800, -800, 1)
    assert not [k for k in found if k[0] == "2026-07"]
    assert_checked(user_id)


def test_a_backfill_whose_row_changed_meanwhile_applies_the_rows_new_difference(user_id: str) -> None:
    # GIVEN a row stored without a record, and the backfill's plan for it
    txn = transactions.Transaction(user_id, "acct", f"{user_id}-t", 1000, date(2026, 11, 3), item_id="item")
    transactions.put_transaction_items([transactions.transaction_item(txn, NOW)])
    [row] = transactions.user_transaction_rows(user_id)
    plan = transactions.reconcile_change(row, contributions.first_open_month(NOW))
    assert plan is not None
    # WHEN the refiner rewrites the row (a new amount) before the plan is applied
    changed = transactions.Transaction(user_id, "acct", txn.txn_id, 1500, txn.txn_date, item_id="item")
    transactions.write_transactions([changed], {txn.txn_id: row}, NOW)
    summary_writes.apply([plan], NOW)
    # THEN the summaries hold the row's content once
    assert figures(rows_of(user_id)[("2026-11", None, None)]) == (1500, 0, 1500, 1)
    assert_checked(user_id)


def test_the_check_reports_a_summary_that_differs(user_id: str) -> None:
    # GIVEN a counted purchase whose month row is then overwritten with another total
    account = plaid_account()
    txn = plaid_transaction(account["account_id"], date="2026-11-08", amount=4.0)
    refine(page_record(user_id, "item", transactions_response([account], [txn])))
    summaries.put_summary(Summary(user_id, "2026-11", 999, outflow_amount=999, inflow_amount=0, txn_count=1), NOW)
    # WHEN the check runs
    report = check_user(user_id, NOW)
    # THEN it names the row and both figures
    [difference] = report.differences
    assert (difference.month, difference.account_id, difference.category_id) == ("2026-11", None, None)
    assert difference.expected["total_amount"] == 400 and difference.stored["total_amount"] == 999  # type: ignore[index]
    assert not report.ok


def test_a_page_written_over_a_row_the_backfill_just_reconciled_applies_only_the_rest(user_id: str) -> None:
    # GIVEN a row stored without a record, read by the refiner for a page that changes its amount
    txn = transactions.Transaction(user_id, "acct", f"{user_id}-t", 1000, date(2026, 11, 3), item_id="item")
    transactions.put_transaction_items([transactions.transaction_item(txn, NOW)])
    [read_by_refiner] = transactions.user_transaction_rows(user_id)
    # WHEN the backfill reconciles the row before the refiner writes
    assert backfill_user(user_id, NOW).changed == 1
    changed = transactions.Transaction(user_id, "acct", txn.txn_id, 1500, txn.txn_date, item_id="item")
    transactions.write_transactions([changed], {txn.txn_id: read_by_refiner}, NOW)
    # THEN the refiner's write found the record it did not read, and moved only the remaining difference
    assert figures(rows_of(user_id)[("2026-11", None, None)]) == (1500, 0, 1500, 1)
    assert contributions.recorded(raw_row(txn.txn_id)).amount == 1500  # type: ignore[union-attr]
    assert_checked(user_id)


def test_the_ops_commands_backfill_and_check_a_user(user_id: str, capsys: pytest.CaptureFixture[str]) -> None:
    from ops import summaries as command

    # GIVEN a posted November transaction stored before summaries were kept, and the clock at NOW
    txn = transactions.Transaction(user_id, "acct", f"{user_id}-t", 4200, date(2026, 11, 12))
    transactions.put_transaction_items([transactions.transaction_item(txn, NOW)])
    with clock.using(lambda: NOW):
        # WHEN the check runs, then the backfill, then the check again
        before = command.main(["check", user_id])
        filled = command.main(["backfill", user_id])
        after = command.main(["check", user_id])
    # THEN the first check failed naming the row, the backfill counted it, and the second check passed
    assert (before, filled, after) == (1, 0, 0)
    printed = capsys.readouterr().out
    assert txn.txn_id in printed and '"changed": 1' in printed
    assert figures(rows_of(user_id)[("2026-11", None, None)]) == (4200, 0, 4200, 1)


def test_all_users_are_found_by_their_transaction_rows(user_id: str) -> None:
    from ops.summaries import users_with_transactions

    # GIVEN a user whose only rows are transactions (one of them a row that names its user only in its keys)
    txn = transactions.Transaction(user_id, "acct", f"{user_id}-t", 100, date(2026, 11, 12))
    item = transactions.transaction_item(txn, NOW)
    del item["user_id"]
    transactions.put_transaction_items([item])
    # WHEN every user is listed for the backfill
    found = list(users_with_transactions())
    # THEN the user is there, once
    assert found.count(user_id) == 1
