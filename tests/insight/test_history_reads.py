"""The models' history read: only the fields the models use, the same answer as whole rows.

Runs against the session's local DynamoDB; rows are written as the refiner writes them and, raw,
as the system this service replaces wrote them (identifiers only in the keys, the legacy
``txn_amount_string``).
"""

from __future__ import annotations

import dataclasses
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chalicelib.data import tables
from chalicelib.data.transactions import MODEL_VALUE_FIELDS, Transaction, from_item, transaction_item
from chalicelib.insight import history
from chalicelib.insight.transactions import parse
from tests.api.factories import WAGES, a_transaction, an_account, an_item, store_account, store_transactions
from tests.factories import uid

AS_OF = date(2026, 11, 20)
NOW = datetime(2026, 11, 20, 12, tzinfo=UTC)


def store_refined_history(user_id: str, every: int) -> None:
    """A transaction every ``every`` days of 120, as the refiner stores them: paychecks every
    14 days, groceries with and without authorized days, a pending row, one in another currency."""
    item = an_item(user_id)
    account = an_account(user_id, item.item_id)
    store_account(account)
    store_transactions(
        [
            a_transaction(
                user_id,
                account.acct_id,
                AS_OF - timedelta(days=n),
                item_id=item.item_id,
                amount=-150_000 if n % 14 == 0 else 2_345 + n,
                name="ACME CORP PAYROLL" if n % 14 == 0 else f"KROGER #{n}",
                merchant_name=None if n % 14 == 0 else "Kroger",
                authorized_date=AS_OF - timedelta(days=n + 1) if n % 3 else None,
                personal_finance_category=WAGES if n % 14 == 0 else None,
                pending=n == 0,
                iso_currency_code="CAD" if n == 5 else "USD",
            )
            for n in range(0, 119, every)
        ]
    )


@pytest.mark.integration
def test_the_models_read_the_same_history_from_the_projected_rows_as_from_whole_ones(
    aws_endpoint: str, user_id: str
) -> None:
    # GIVEN a refined history with every field the models read (authorized days, merchants,
    # both category taxonomies, a pending row, another currency) ...
    store_refined_history(user_id, every=2)
    # ... and a row as the previous system stored it: ids in its keys, the sign in the legacy string
    txn, acct = uid("txn"), uid("acct")
    date_sk = f"DATE#{(AS_OF - timedelta(days=3)).isoformat()}#TXN#{txn}"
    tables.transactions().put_item(
        Item={
            "PK": f"TXN#{txn}",
            "SK": f"TXN#{txn}",
            "type": "TRANSACTION",
            "GSI1PK": f"ACCOUNTS#{user_id}",
            "GSI1SK": date_sk,
            "GSI3PK": f"ACCOUNTS#{user_id}#ACCOUNT#{acct}",
            "GSI3SK": date_sk,
            "txn_amount": Decimal(1250),
            "txn_amount_string": "-12.50",
            "txn_name": "Refund",
            "txn_category": ["Shops"],
        }
    )
    # WHEN the models read it, and the Pave feeder's whole-row read is shaped the same way
    models = history.model_transactions(user_id, AS_OF)
    whole = [history.api_shape(t) for t in history.retained(user_id, AS_OF).transactions]
    # THEN the two are the same, every row and every field
    assert models == whole
    assert len(models) == 61
    legacy = next(t for t in models if t["txn_id"] == txn)
    assert (legacy["account_id"], legacy["amount"], legacy["category"]) == (acct, -1250, ["Shops"])
    # AND the forecast's direct read makes the same model values as parsing the API shape
    rows = history.retained(user_id, AS_OF, for_models=True).transactions
    assert history.model_txns(user_id, AS_OF) == [parse(history.api_shape(t)) for t in rows]


@pytest.mark.integration
def test_the_forecasts_read_of_refined_rows_alone_makes_the_same_values(aws_endpoint: str, user_id: str) -> None:
    # GIVEN only rows the refiner wrote (each names its id, account and date as attributes)
    store_refined_history(user_id, every=3)
    # WHEN the forecast reads the models' values (its read leaves the keys and the owner out)
    queries: list[dict[str, Any]] = []
    events = tables.transactions().meta.client.meta.events

    def record(params: dict[str, Any], **_: Any) -> None:
        queries.append(params)

    events.register("provide-client-params.dynamodb.Query", record)
    try:
        found = history.model_txns(user_id, AS_OF)
    finally:
        events.unregister("provide-client-params.dynamodb.Query", record)
    # THEN they are what parsing the API shape of the whole rows gives, from one Query
    whole = history.retained(user_id, AS_OF).transactions
    assert found == [parse(history.api_shape(t)) for t in whole]
    assert len(found) == 40
    [query] = [q for q in queries if q.get("IndexName") == "GSI1"]
    assert set(query["ExpressionAttributeNames"].values()) == set(MODEL_VALUE_FIELDS)


texts = st.none() | st.text(max_size=6)
days = st.dates(date(2020, 1, 1), date(2030, 12, 31))
transactions = st.builds(
    Transaction,
    user_id=st.just("u"),
    acct_id=st.text(max_size=4),
    txn_id=st.text(max_size=4),
    amount=st.integers(-(10**9), 10**9),
    txn_date=days,
    name=st.text(max_size=6),
    pending=st.booleans(),
    category=st.lists(st.text(max_size=4), max_size=3).map(tuple),
    authorized_date=st.none() | days,
    merchant_name=texts,
    personal_finance_category=st.none()
    | st.fixed_dictionaries({}, optional={"primary": texts, "detailed": texts, "confidence_level": texts}),
    iso_currency_code=texts,
)


ids = st.text(alphabet="abcXYZ019-_", min_size=1, max_size=6)
#: What the refiner stores (its keys refuse empty or ``#`` identifiers).
stored = transactions.flatmap(
    lambda t: st.builds(lambda acct, txn_id: dataclasses.replace(t, acct_id=acct, txn_id=txn_id), ids, ids)
)
#: Identifiers a row written by the system this service replaced may hold only in its keys.
IDENTIFIERS = ("user_id", "acct_id", "txn_id", "txn_date")


def _outcome(read: Any) -> tuple[str, str]:
    try:
        return "value", repr(read())
    except Exception as error:  # noqa: BLE001 - the failure's type is what is compared
        return "error", type(error).__name__


@settings(max_examples=400, deadline=None)
@given(
    txn=stored,
    legacy=st.sets(st.sampled_from(IDENTIFIERS)),
    amount_string=st.none() | st.sampled_from(("-12.50", "12.50", "abc", "")),
)
def test_a_stored_row_reads_as_the_models_parse_its_api_shape(
    txn: Transaction, legacy: set[str], amount_string: str | None
) -> None:
    # GIVEN any stored row (empty ids, names and categories; identifiers only in its keys; the
    # legacy amount string), as a resource reads it (numbers as Decimal)
    item = {k: Decimal(v) if type(v) is int else v for k, v in transaction_item(txn, NOW).items() if k not in legacy}
    if amount_string is not None:
        item["txn_amount_string"] = amount_string
    # WHEN the forecast's direct path and the models' parse of its API shape read it
    # THEN they give the same value, or fail alike
    direct = _outcome(lambda: history.model_txn_of_item(item))
    assert direct == _outcome(lambda: parse(history.api_shape(from_item(item))))
