"""The models' history read: only the fields the models use, the same answer as whole rows.

Runs against the session's local DynamoDB; rows are written as the refiner writes them and, raw,
as the system this service replaces wrote them (identifiers only in the keys, the legacy
``txn_amount_string``).
"""

from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal

import pytest

from chalicelib.data import tables
from chalicelib.insight import history
from tests.api.factories import WAGES, a_transaction, an_account, an_item, store_account, store_transactions
from tests.factories import uid

pytestmark = pytest.mark.integration

AS_OF = date(2026, 11, 20)


def test_the_models_read_the_same_history_from_the_projected_rows_as_from_whole_ones(
    aws_endpoint: str, user_id: str
) -> None:
    # GIVEN a refined history with every field the models read (authorized days, merchants,
    # both category taxonomies, a pending row, another currency) ...
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
            for n in range(0, 119, 2)
        ]
    )
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
