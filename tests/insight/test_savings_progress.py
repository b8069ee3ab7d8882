"""Savings progress: which accounts count, one row per month, and the newest computation wins."""

from __future__ import annotations

from datetime import timedelta

import pytest

from chalicelib.data import items
from chalicelib.data.accounts import Account, Balances
from chalicelib.data.items import ItemStatus
from chalicelib.insight.data import savings as savings_rows
from chalicelib.insight.savings import is_savings, month_of, savings_history, savings_snapshot, update_savings
from tests.factories import uid
from tests.insight.balances import START, balances, put_account, put_item, seed_user


def account(subtype: str, type_: str = "depository", currency: str | None = "USD", item_id: str = "item-1") -> Account:
    return Account("u1", item_id, uid("acct"), subtype, type_, balances(100, 120, currency=currency), subtype)


@pytest.mark.parametrize(
    ("subtype", "type_", "currency", "counts"),
    [
        ("savings", "depository", "USD", True),
        ("money market", "depository", "USD", True),
        ("cd", "depository", "USD", True),
        ("Savings", "depository", None, True),
        ("checking", "depository", "USD", False),
        ("cash management", "depository", "USD", False),
        ("hsa", "depository", "USD", False),
        ("prepaid", "depository", "USD", False),
        ("savings", "depository", "CAD", False),
        ("credit card", "credit", "USD", False),
        ("brokerage", "investment", "USD", False),
    ],
)
def test_what_counts_as_savings(subtype: str, type_: str, currency: str | None, counts: bool) -> None:
    assert is_savings(account(subtype, type_, currency)) is counts


def test_a_snapshot_counts_available_else_current_and_leaves_out_removed_items_and_unreported() -> None:
    def acct(item: str, amounts: Balances, acct_id: str) -> Account:
        return Account("u1", item, acct_id, "Savings", "depository", amounts, "savings")

    live = items.Item("u1", "live", "access-x", status=ItemStatus.ACTIVE)
    broken = items.Item("u1", "broken", "access-y", status=ItemStatus.ERROR)
    gone = items.Item("u1", "gone", "access-z", status=ItemStatus.REMOVED)
    # GIVEN savings on a live item (available reported), on an errored item (only current reported),
    # on a REMOVED item, one reporting nothing, and a checking account
    snapshot = savings_snapshot(
        "u1",
        [
            acct("live", balances(50_000, 51_000), "a-available"),
            acct("broken", balances(None, 7_000), "b-current-only"),
            acct("gone", balances(90_000, 90_000), "c-removed"),
            acct("live", balances(None, None), "d-unreported"),
        ],
        [live, broken, gone],
        START,
    )
    # THEN the month holds the two countable accounts at available (else current), and their sum
    assert snapshot.month == "2026-11"
    assert [(a.account_id, a.amount) for a in snapshot.accounts] == [("a-available", 50_000), ("b-current-only", 7_000)]
    assert snapshot.total_available == 57_000
    assert snapshot.updated_date == START


@pytest.mark.integration
def test_update_writes_the_month_and_an_older_computation_never_overwrites_a_newer(
    aws_endpoint: str, user_id: str
) -> None:
    # GIVEN a user with $1,234.56 in savings
    user = seed_user(user_id, checking=balances(10_000, 10_000), savings=[balances(123_456, 123_456)])
    later = START + timedelta(minutes=5)
    # WHEN the month is computed at 12:35 and then a computation that started at 12:30 writes
    assert update_savings(user_id, later).written
    put_account(user_id, user.item_id, balances(1, 1), subtype="savings", acct_id=user.savings_ids[0])
    stale = update_savings(user_id, START)
    # THEN the older one is refused and the row keeps the newer snapshot
    assert stale.written is False
    row = savings_rows.get_savings_month(user_id, "2026-11")
    assert row is not None and row.total_available == 123_456 and row.updated_date == later
    # AND the same computation again (a duplicate delivery) rewrites the same row
    assert update_savings(user_id, later).written


@pytest.mark.integration
def test_a_removed_items_accounts_leave_the_month(aws_endpoint: str, user_id: str) -> None:
    # GIVEN two items with savings, one of them then removed
    user = seed_user(user_id, checking=balances(10_000), savings=[balances(20_000)])
    other = put_item(user_id, None)
    put_account(user_id, other, balances(30_000), subtype="money market")
    assert update_savings(user_id, START).month.total_available == 50_000
    items.mark_removed(user_id, other)
    # WHEN the month is recomputed THEN only the remaining item's savings count
    month = update_savings(user_id, START + timedelta(seconds=1)).month
    assert [a.account_id for a in month.accounts] == user.savings_ids
    assert month.total_available == 20_000


@pytest.mark.integration
def test_history_is_three_months_oldest_first_with_unseen_months_empty(aws_endpoint: str, user_id: str) -> None:
    # GIVEN a month computed in September and one in November (the user was not seen in October)
    seed_user(user_id, checking=balances(10_000), savings=[balances(20_000)])
    september = START - timedelta(days=70)
    update_savings(user_id, september)
    update_savings(user_id, START)
    # WHEN the API's history is read in November
    history = savings_history(user_id, START)
    # THEN it is September, October (no snapshot), November
    assert [m.month for m in history] == ["2026-09", "2026-10", "2026-11"]
    assert [m.snapshot.total_available if m.snapshot else None for m in history] == [20_000, None, 20_000]
    assert month_of(september) == "2026-09"
