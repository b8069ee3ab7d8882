"""LIABILITY: current row overwritten, history appended atomically, money in integer cents."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

import pytest

from chalicelib.data import keys, tables
from chalicelib.data.liabilities import (
    Liability,
    LiabilityType,
    account_current_liability,
    account_liability_history,
    current_liabilities,
    get_current_liability,
    item_account_liability_history,
    liabilities_from_plaid,
    liability_history,
    liability_history_item,
    liability_item,
    store_liabilities,
    store_liability,
    to_cents_shape,
)
from tests.conftest import new_id

NOW = datetime(2025, 5, 2, 8, 0, tzinfo=UTC)


def a_credit_payload(acct_id: str, minimum: float = 20.0) -> dict[str, Any]:
    return {
        "account_id": acct_id,
        "aprs": [
            {
                "apr_percentage": 15.24,
                "apr_type": "purchase_apr",
                "balance_subject_to_apr": 1562.32,
                "interest_charge_amount": 130.22,
            }
        ],
        "is_overdue": False,
        "last_payment_amount": 168.25,
        "last_payment_date": "2019-05-22",
        "last_statement_balance": 1708.77,
        "minimum_payment_amount": minimum,
        "next_payment_due_date": "2020-05-28",
    }


def a_plaid_response(*credit_accounts: str) -> dict[str, Any]:
    return {
        "credit": [a_credit_payload(a) for a in credit_accounts] + [{**a_credit_payload("x"), "account_id": None}],
        "mortgage": [
            {
                "account_id": "mort-1",
                "interest_rate": {"percentage": 3.99, "type": "fixed"},
                "next_monthly_payment": 3141.54,
                "ytd_interest_paid": 12300.4,
                "loan_term": "30 year",
            }
        ],
        "student": None,
    }


def test_money_becomes_cents_and_rates_stay_exact() -> None:
    # GIVEN a Plaid credit-card liability (JSON numbers as Python floats)
    payload = a_credit_payload("acct-1")

    # WHEN converted
    shaped = to_cents_shape(payload)

    # THEN amounts are integer cents, the APR is an exact Decimal, the rest is untouched
    assert shaped["last_statement_balance"] == 170877
    assert shaped["minimum_payment_amount"] == 2000
    assert shaped["aprs"][0]["balance_subject_to_apr"] == 156232
    assert shaped["aprs"][0]["interest_charge_amount"] == 13022
    assert shaped["aprs"][0]["apr_percentage"] == Decimal("15.24")
    assert shaped["is_overdue"] is False
    assert shaped["last_payment_date"] == "2019-05-22"


def test_plaid_response_flattens_per_account() -> None:
    # GIVEN a response with two cards, one without an account id, and a mortgage
    response = a_plaid_response("card-1", "card-2")

    # WHEN narrowed to the accounts a webhook named
    found = liabilities_from_plaid("u1", "i1", response, NOW, account_ids={"card-2", "mort-1"})

    # THEN one liability per named account, typed, and the id-less card skipped
    assert [(f.acct_id, f.liability_type) for f in found] == [
        ("card-2", LiabilityType.CREDIT),
        ("mort-1", LiabilityType.MORTGAGE),
    ]
    assert found[1].details["interest_rate"]["percentage"] == Decimal("3.99")
    assert found[1].details["ytd_interest_paid"] == 1230040


def test_rows_keys_and_types() -> None:
    # GIVEN a stored-shape liability
    liability = Liability("u1", "i1", "a1", LiabilityType.STUDENT, {"last_payment_amount": 12345}, NOW)

    # WHEN both rows are built
    current, history = liability_item(liability), liability_history_item(liability)

    # THEN keys follow the data model; type names the entity and liability_type the kind
    ts = "2025-05-02T08:00:00.000000Z"
    assert (current["PK"], current["SK"]) == ("LIABILITIES#u1", "ITEM#i1#ACCOUNT#a1")
    assert (current["GSI1PK"], current["GSI1SK"]) == ("LIABILITIES#a1", "USERS#u1")
    assert (history["PK"], history["SK"]) == ("LIABILITY_HISTORY#u1", f"ITEM#i1#ACCOUNT#a1#TIMESTAMP#{ts}")
    assert (history["GSI1PK"], history["GSI1SK"]) == ("LIABILITY_HISTORY#a1", f"TIMESTAMP#{ts}")
    assert (history["GSI2PK"], history["GSI2SK"]) == ("LIABILITY_HISTORY#u1", f"TIMESTAMP#{ts}")
    for row in (current, history):
        assert row["type"] == "LIABILITY"
        assert row["liability_type"] == "STUDENT"
        assert row["liability"] == {"last_payment_amount": 12345, "last_payment_amount_string": "123.45"}


@pytest.mark.integration
def test_store_overwrites_current_and_appends_history(ddb: str, user_id: str) -> None:
    # GIVEN two accounts stored, then the first stored again with a new minimum payment
    item_id = new_id("item")
    card, mortgage = new_id("card"), new_id("mort")
    response = a_plaid_response(card)
    response["mortgage"][0]["account_id"] = mortgage
    store_liabilities(liabilities_from_plaid(user_id, item_id, response, NOW))
    later = liabilities_from_plaid(
        user_id, item_id, {"credit": [a_credit_payload(card, minimum=35.5)]}, NOW + timedelta(days=1)
    )
    store_liabilities(later)

    # WHEN read every way the API reads
    current = current_liabilities(user_id)
    history = liability_history(user_id)
    card_history = account_liability_history(card)
    card_history_strong = item_account_liability_history(user_id, item_id, card)
    by_account = account_current_liability(card)

    # THEN one current row per account holding the latest, and every store in history
    assert {c.acct_id: c.details.get("minimum_payment_amount") for c in current} == {card: 3550, mortgage: None}
    assert len(history) == 3
    assert history[0].updated_at == NOW + timedelta(days=1)
    assert [h.details["minimum_payment_amount"] for h in card_history] == [3550, 2000]
    assert card_history_strong == card_history
    assert by_account is not None
    assert by_account.details["minimum_payment_amount"] == 3550
    assert liability_history(user_id, limit=1) == history[:1]


@pytest.mark.integration
def test_history_is_never_deduplicated_even_at_the_same_instant(ddb: str, user_id: str) -> None:
    # GIVEN one account stored twice with the same timestamp
    liability = Liability(user_id, "item", "acct", LiabilityType.CREDIT, to_cents_shape(a_credit_payload("acct")), NOW)
    first = store_liability(liability)
    second = store_liability(liability)

    # THEN the second history row moved one microsecond later and both exist
    assert second.updated_at == first.updated_at + timedelta(microseconds=1)
    assert len(liability_history(user_id)) == 2
    assert len(current_liabilities(user_id)) == 1


@pytest.mark.integration
def test_money_is_decimal_in_dynamodb_and_int_out(ddb: str, user_id: str) -> None:
    # GIVEN a stored credit liability
    store_liability(Liability(user_id, "i", "a", LiabilityType.CREDIT, to_cents_shape(a_credit_payload("a")), NOW))

    # WHEN the raw row and the parsed one are read
    raw = tables.plaid().get_item(Key=keys.liability_key(user_id, "i", "a"))["Item"]
    parsed = get_current_liability(user_id, "i", "a")

    # THEN DynamoDB holds Decimal cents with a dollars copy; the parser gives int cents, no copies
    stored: Any = raw["liability"]
    assert stored["last_statement_balance"] == Decimal(170877)
    assert stored["last_statement_balance_string"] == "1708.77"
    assert parsed is not None
    assert parsed.details["last_statement_balance"] == 170877
    assert type(parsed.details["last_statement_balance"]) is int
    assert "last_statement_balance_string" not in parsed.details
    assert parsed.details["aprs"][0]["apr_percentage"] == Decimal("15.24")
