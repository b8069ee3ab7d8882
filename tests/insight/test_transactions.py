"""The models' shared input contract: parsing, visibility at ``as_of`` and stream keys."""

from __future__ import annotations

import dataclasses
from datetime import date
from typing import Any

import pytest

from chalicelib.insight.transactions import InvalidTransactionError, parse, stream_key, visible


def txn(**overrides: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "txn_id": "t1",
        "account_id": "a1",
        "amount": -150000,
        "iso_currency_code": "USD",
        "date": "2026-11-13",
        "authorized_date": None,
        "name": "ACME CORP PAYROLL PPD ID: 123456789",
        "merchant_name": None,
        "personal_finance_category": {"primary": "INCOME", "detailed": "INCOME_WAGES"},
        "category": ["Transfer", "Payroll"],
        "pending": False,
    }
    return {**base, **overrides}


def test_parse_reads_the_api_shape() -> None:
    t = parse(txn(extra="ignored"))
    assert (t.amount, t.day, t.pfc_detailed, t.category, t.is_inflow) == (
        -150000,
        date(2026, 11, 13),
        "INCOME_WAGES",
        ("Transfer", "Payroll"),
        True,
    )


def test_parse_puts_every_field_in_its_place() -> None:
    # GIVEN a transaction whose every field holds a value of its own
    raw = txn(
        authorized_date="2026-11-12",
        merchant_name="Acme",
        personal_finance_category={"primary": "INCOME", "detailed": "INCOME_SALARY"},
        pending=True,
    )
    # WHEN parsed THEN each lands in its own field
    assert dataclasses.astuple(parse(raw)) == (
        "t1",
        "a1",
        -150000,
        date(2026, 11, 13),
        date(2026, 11, 12),
        "ACME CORP PAYROLL PPD ID: 123456789",
        "Acme",
        "INCOME",
        "INCOME_SALARY",
        ("Transfer", "Payroll"),
        True,
        "USD",
    )


@pytest.mark.parametrize(
    "bad", [{"amount": 1500.0}, {"amount": True}, {"date": "13/11/2026"}, {"date": None}, {"txn_id": ""}]
)
def test_parse_refuses_what_breaks_the_contract(bad: dict[str, Any]) -> None:
    with pytest.raises(InvalidTransactionError):
        parse(txn(**bad))


def test_visible_hides_the_future_pending_and_duplicates() -> None:
    # GIVEN a duplicate, a future transaction and a pending one
    rows = [
        txn(txn_id="b", date="2026-11-10"),
        txn(txn_id="a", date="2026-11-10"),
        txn(txn_id="a", date="2026-11-10"),
        txn(txn_id="future", date="2026-11-21"),
        txn(txn_id="p", date="2026-11-12", pending=True),
    ]
    # WHEN viewed at 20 November
    seen = visible(rows, date(2026, 11, 20))
    # THEN each id shows once, oldest first, without the future or the pending one
    assert [t.txn_id for t in seen] == ["a", "b"]
    assert [t.txn_id for t in visible(rows, date(2026, 11, 20), include_pending=True)] == ["a", "b", "p"]


def test_stream_key_prefers_the_merchant_and_strips_ach_noise() -> None:
    assert stream_key(parse(txn(merchant_name="Netflix"))) == "NETFLIX"
    assert stream_key(parse(txn())) == stream_key(parse(txn(name="ACME CORP PAYROLL PPD ID: 987654321")))


def test_the_posting_clock_copy_changes_only_the_authorization_day() -> None:
    # GIVEN a transaction whose every field differs from the others
    original = parse(txn(authorized_date="2026-11-11", merchant_name="Acme", iso_currency_code="CAD"))
    # WHEN it is put on the posting clock
    posted = original.posted_as_charged()
    # THEN it is the same transaction, authorized on its posting day, field for field
    assert posted == dataclasses.replace(original, authorized_day=original.day)
    assert posted.authorized_day == date(2026, 11, 13) != original.authorized_day
