"""balance (SAVINGS_MONTH) rows: one per month, newest snapshot wins, three months in one Query."""

from __future__ import annotations

from datetime import timedelta

import pytest

from chalicelib.errors import ValidationError
from chalicelib.insight.data.savings import (
    SavingsAccount,
    SavingsMonth,
    get_savings_month,
    month_before,
    put_savings_month,
    recent_savings_months,
    savings_month_item,
)
from tests.insight.data.conftest import NOW


def a_month(user_id: str, month: str = "2026-11", total: int = 150_025, **overrides: object) -> SavingsMonth:
    fields: dict[str, object] = {
        "user_id": user_id,
        "month": month,
        "accounts": (SavingsAccount("acct-s", total, "savings"),),
        "total_available": total,
        "updated_date": NOW,
    }
    fields.update(overrides)
    return SavingsMonth(**fields)  # type: ignore[arg-type]


def test_row_shape_money_in_cents_and_one_year_ttl() -> None:
    row = savings_month_item(a_month("u1"))
    assert (row["PK"], row["SK"], row["type"]) == ("USERS#u1", "SAVINGS_MONTH#2026-11", "BALANCE")
    assert row["accounts"] == [
        {"account_id": "acct-s", "amount": 150_025, "amount_string": "1500.25", "subtype": "savings"}
    ]
    assert (row["total_available"], row["total_available_string"]) == (150_025, "1500.25")
    assert row["ttl"] == int((NOW + timedelta(days=365)).timestamp())


def test_months_count_back_across_years() -> None:
    assert month_before("2026-01", 2) == "2025-11"
    assert month_before("2026-03") == "2026-02"
    with pytest.raises(ValidationError):
        month_before("2026-3")


@pytest.mark.integration
def test_the_newest_snapshot_of_a_month_wins(ddb: str, user_id: str) -> None:
    newer = a_month(user_id, total=200, updated_date=NOW + timedelta(hours=1))
    assert put_savings_month(newer) is True
    # WHEN an older snapshot arrives late THEN it is not written
    assert put_savings_month(a_month(user_id, total=100)) is False
    assert get_savings_month(user_id, "2026-11") == newer


@pytest.mark.integration
def test_current_month_and_the_two_before_oldest_first(ddb: str, user_id: str) -> None:
    for month in ("2026-08", "2026-09", "2026-10", "2026-11", "2026-12"):
        put_savings_month(a_month(user_id, month))
    found = recent_savings_months(user_id, "2026-11")
    assert [m.month for m in found] == ["2026-09", "2026-10", "2026-11"]
    assert found[0] == a_month(user_id, "2026-09")


@pytest.mark.integration
def test_a_month_without_a_snapshot_is_simply_absent(ddb: str, user_id: str) -> None:
    put_savings_month(a_month(user_id, "2026-11"))
    assert [m.month for m in recent_savings_months(user_id, "2027-01")] == ["2026-11"]
