"""A user's retained transactions: the one reader every insight consumer uses.

The models (payday, income detection, our recurring detector) and the Pave feeder all read a
user's history through :func:`retained`, which applies the service's rules about what counts:

* only the retained window: transactions dated in the ``RETENTION_DAYS`` (120) days ending
  at ``as_of``, one GSI1 Query (rows older than that may linger until DynamoDB's TTL
  deletes them; bounding the key condition keeps them out, so a late deletion never
  changes an answer or an upload);
* only live rows (a soft-deleted transaction's sort key leaves the ``DATE#`` range);
* only items that are not REMOVED. A row's item is its ``item_id``, else the item its
  ACCOUNT row names (rows written before owners were recorded); a row whose item cannot
  be told is kept, as the API lists it. The rows of REMOVED items are returned apart
  (the Pave feeder tells Pave to forget them).

Reads: the user's items (strongly consistent Query), the transactions (GSI1, eventual; the
models' reads project only the fields they use), and the user's accounts only when a row names
no item (rows written before owners were recorded).
The models take the rows API-shaped (:func:`model_transactions`, :func:`model_history`); the
service's own callers may hand them the parsed values directly (:func:`model_txn`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

from chalicelib.data import accounts, items, transactions
from chalicelib.data.transactions import Transaction
from chalicelib.data.ttl import TRANSACTION_RETENTION_DAYS
from chalicelib.insight.transactions import InvalidTransactionError, Txn

#: The history a model sees: what the service retains (the transaction TTL).
RETENTION_DAYS = TRANSACTION_RETENTION_DAYS


@dataclass(frozen=True)
class Retained:
    """What :func:`retained` read: the rows that count and those of REMOVED items, oldest first."""

    #: Live rows of items that are not REMOVED (or whose item cannot be told).
    transactions: list[Transaction]
    #: Live rows of REMOVED items.
    of_removed_items: list[Transaction]
    #: Each kept row's account, to its bank's Plaid institution id (when its item names one).
    institution_of_account: dict[str, str]


def retained(
    user_id: str,
    as_of: date,
    *,
    user_items: Sequence[items.Item] | None = None,
    user_accounts: Sequence[accounts.Account] | None = None,
    for_models: bool = False,
) -> Retained:
    """The user's retained transactions at ``as_of`` (see the module docstring).

    ``user_items`` and ``user_accounts``: the user's rows when the caller has just read them
    (then they are not read again). ``for_models``: only what :func:`api_shape` needs is read
    (``transactions.MODEL_FIELDS``); the Pave feeder reads whole rows."""
    if user_items is None:
        user_items = items.list_items(user_id)
    removed = {i.item_id for i in user_items if i.status is items.ItemStatus.REMOVED}
    institution = {i.item_id: i.institution_id for i in user_items if i.institution_id}
    fields = transactions.MODEL_FIELDS if for_models else None
    rows = transactions.user_transactions_between(user_id, as_of - timedelta(days=RETENTION_DAYS), as_of, fields=fields)
    item_of_account: dict[str, str] = {}
    if (removed or institution) and any(not t.item_id for t in rows):
        found = user_accounts if user_accounts is not None else accounts.list_accounts(user_id)
        item_of_account = {a.acct_id: a.item_id for a in found}
    kept: list[Transaction] = []
    dropped: list[Transaction] = []
    institutions: dict[str, str] = {}
    for t in rows:
        item_id = t.item_id or item_of_account.get(t.acct_id)
        if item_id in removed:
            dropped.append(t)
            continue
        kept.append(t)
        if item_id in institution:
            institutions[t.acct_id] = institution[item_id]
    return Retained(kept, dropped, institutions)


def model_transactions(user_id: str, as_of: date) -> list[dict[str, Any]]:
    """The user's transactions the models may read at ``as_of``, oldest first, API-shaped."""
    return [api_shape(t) for t in retained(user_id, as_of, for_models=True).transactions]


def api_shape(txn: Transaction) -> dict[str, Any]:
    """``txn`` as the models' input contract: the API's transaction object."""
    pfc: Mapping[str, Any] = txn.personal_finance_category or {}
    return {
        "txn_id": txn.txn_id,
        "account_id": txn.acct_id,
        "amount": txn.amount,
        "iso_currency_code": txn.iso_currency_code,
        "date": txn.txn_date.isoformat(),
        "authorized_date": txn.authorized_date.isoformat() if txn.authorized_date else None,
        "name": txn.name,
        "merchant_name": txn.merchant_name,
        "personal_finance_category": {"primary": pfc.get("primary"), "detailed": pfc.get("detailed")} if pfc else None,
        "category": list(txn.category) or None,
        "pending": txn.pending,
    }


def model_txn(txn: Transaction) -> Txn:
    """``txn`` as the models read it: what parsing its :func:`api_shape` gives, without the dict
    between (the service's own callers of the models, e.g. the forecast)."""
    if not txn.txn_id:
        raise InvalidTransactionError(f"transaction without a txn_id: {api_shape(txn)!r}")
    pfc: Mapping[str, Any] = txn.personal_finance_category or {}
    return Txn(
        txn_id=txn.txn_id,
        account_id=txn.acct_id or "",
        amount=txn.amount,
        day=txn.txn_date,
        authorized_day=txn.authorized_date,
        name=txn.name or "",
        merchant_name=txn.merchant_name or None,
        pfc_primary=pfc.get("primary") or None,
        pfc_detailed=pfc.get("detailed") or None,
        category=tuple(str(c) for c in txn.category),
        pending=bool(txn.pending),
        iso_currency_code=txn.iso_currency_code or None,
    )


@dataclass(frozen=True)
class History:
    """The models' transactions and, for each account they name, its bank's Plaid
    institution id (what an income verification names)."""

    transactions: list[dict[str, Any]]
    institution_of_account: dict[str, str]


def model_history(user_id: str, as_of: date) -> History:
    """:func:`model_transactions` with the institutions of their accounts, from the same reads."""
    found = retained(user_id, as_of, for_models=True)
    return History([api_shape(t) for t in found.transactions], found.institution_of_account)
