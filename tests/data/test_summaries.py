"""SUMMARY: four granularities per month, cents as Decimal in DynamoDB and int out, string sets."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

import pytest

from chalicelib.data import tables
from chalicelib.data.summaries import (
    Granularity,
    Summary,
    get_summary,
    list_summaries,
    month_summaries,
    put_summaries,
    put_summary,
    summary_item,
)
from chalicelib.errors import ValidationError

NOW = datetime(2025, 4, 1, tzinfo=UTC)


def a_summary(user_id: str, month: str = "2025-03", amount: int = 12345, **kw: object) -> Summary:
    return Summary(user_id=user_id, month=month, total_amount=amount, **kw)  # type: ignore[arg-type]


def test_row_keys_and_amounts() -> None:
    # GIVEN a month+account+category summary
    summary = a_summary(
        "u1", acct_id="a1", category_id="c1", added_txn_ids=frozenset({"t1", "t2"}), removed_txn_ids=frozenset()
    )

    # WHEN its row is built
    row = summary_item(summary, NOW)

    # THEN the sort key carries every level, the amount is cents with a dollars copy, empty sets are omitted
    assert row["PK"] == "SUMMARY#u1"
    assert row["SK"] == "DATE#2025-03#ACCOUNT#a1#CATEGORY#c1"
    assert row["type"] == "SUMMARY"
    assert row["total_amount"] == 12345
    assert row["total_amount_string"] == "123.45"
    assert row["added_txn_ids"] == {"t1", "t2"}
    assert "removed_txn_ids" not in row
    assert summary.granularity is Granularity.ACCOUNT_CATEGORY


def test_month_must_be_yyyy_mm() -> None:
    with pytest.raises(ValidationError):
        summary_item(a_summary("u1", month="2025-3"), NOW)
    with pytest.raises(ValidationError):
        summary_item(a_summary("u1", month="2025-13"), NOW)


@pytest.mark.integration
def test_four_granularities_read_back(ddb: str, user_id: str) -> None:
    # GIVEN one month at every granularity, and a neighbouring month
    rows = [
        a_summary(user_id, amount=10_000, added_txn_ids=frozenset({"t1", "t2", "t3"})),
        a_summary(user_id, amount=6_000, acct_id="a1"),
        a_summary(user_id, amount=2_500, acct_id="a1", category_id="food", removed_txn_ids=frozenset({"t9"})),
        a_summary(user_id, amount=-4_000, category_id="income"),
        a_summary(user_id, month="2025-02", amount=900),
        a_summary(user_id, month="2025-05", amount=1),
    ]
    put_summaries(rows, NOW)

    # WHEN read by month, by granularity, by range and by exact key
    march = month_summaries(user_id, "2025-03")
    by_account = month_summaries(user_id, "2025-03", Granularity.ACCOUNT)
    feb_to_mar = list_summaries(user_id, "2025-02", "2025-03", granularity=Granularity.MONTH)
    food = get_summary(user_id, "2025-03", "a1", "food")
    income = list_summaries(user_id, "2025-01", "2025-12", category_id="income")

    # THEN each read answers its own granularity with exact integer cents and sets
    assert {s.granularity for s in march} == set(Granularity)
    assert [s.total_amount for s in by_account] == [6_000]
    assert [(s.month, s.total_amount) for s in feb_to_mar] == [("2025-02", 900), ("2025-03", 10_000)]
    assert food is not None
    assert food.total_amount == 2_500
    assert isinstance(food.total_amount, int)
    assert food.removed_txn_ids == frozenset({"t9"})
    assert food.added_txn_ids == frozenset()
    assert [s.total_amount for s in income] == [-4_000]
    assert get_summary(user_id, "2025-04") is None


@pytest.mark.integration
def test_amount_is_a_decimal_number_in_dynamodb(ddb: str, user_id: str) -> None:
    # GIVEN a stored summary
    put_summary(a_summary(user_id, amount=-1), NOW)

    # WHEN the raw row is read
    raw = tables.transactions().get_item(Key={"PK": f"SUMMARY#{user_id}", "SK": "DATE#2025-03"})["Item"]

    # THEN DynamoDB holds a number (Decimal), never a float or text
    assert raw["total_amount"] == Decimal(-1)
    assert raw["total_amount_string"] == "-0.01"
