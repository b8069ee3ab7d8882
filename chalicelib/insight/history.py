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
service's own callers may hand them the parsed values directly (:func:`model_txns`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any, TypeVar

from chalicelib.data import accounts, items, transactions
from chalicelib.data.transactions import Transaction
from chalicelib.data.ttl import TRANSACTION_RETENTION_DAYS
from chalicelib.insight.transactions import InvalidTransactionError, Txn

#: The history a model sees: what the service retains (the transaction TTL).
RETENTION_DAYS = TRANSACTION_RETENTION_DAYS
R = TypeVar("R")


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
    fields = transactions.MODEL_FIELDS if for_models else None
    rows = transactions.user_transactions_between(user_id, as_of - timedelta(days=RETENTION_DAYS), as_of, fields=fields)
    kept, dropped, institutions = _split(
        user_id, rows, user_items, user_accounts, _item_of_transaction, _acct_of_transaction
    )
    return Retained(kept, dropped, institutions)


def model_txns(
    user_id: str,
    as_of: date,
    *,
    user_items: Sequence[items.Item] | None = None,
    user_accounts: Sequence[accounts.Account] | None = None,
) -> list[Txn]:
    """The models' values of what :func:`retained` keeps, made straight from the stored rows: the
    forecast's read, which skips the ``Transaction`` between. It reads only the rows' values
    (``transactions.MODEL_VALUE_FIELDS``); when a row holds its identifiers only in its keys (the
    system this service replaced wrote such rows), it reads again with the keys."""
    if user_items is None:
        user_items = items.list_items(user_id)
    start = as_of - timedelta(days=RETENTION_DAYS)
    rows = transactions.user_transaction_items_between(user_id, start, as_of, fields=transactions.MODEL_VALUE_FIELDS)
    if not all(map(transactions.names_itself, rows)):
        rows = transactions.user_transaction_items_between(user_id, start, as_of, fields=transactions.MODEL_FIELDS)
    kept, _, _ = _split(user_id, rows, user_items, user_accounts, _item_of_row, transactions.acct_id_of)
    return [model_txn_of_item(row) for row in kept]


def _item_of_transaction(txn: Transaction) -> str | None:
    return txn.item_id


def _acct_of_transaction(txn: Transaction) -> str:
    return txn.acct_id


def _item_of_row(row: Mapping[str, Any]) -> str | None:
    return row.get("item_id")


def _split(
    user_id: str,
    rows: Sequence[R],
    user_items: Sequence[items.Item],
    user_accounts: Sequence[accounts.Account] | None,
    item_of: Callable[[R], str | None],
    acct_of: Callable[[R], str],
) -> tuple[list[R], list[R], dict[str, str]]:
    """``rows`` kept and dropped by their items (see the module docstring), and each kept row's
    account's institution."""
    removed = {i.item_id for i in user_items if i.status is items.ItemStatus.REMOVED}
    institution = {i.item_id: i.institution_id for i in user_items if i.institution_id}
    item_of_account: dict[str, str] = {}
    if (removed or institution) and any(not item_of(r) for r in rows):
        found = user_accounts if user_accounts is not None else accounts.list_accounts(user_id)
        item_of_account = {a.acct_id: a.item_id for a in found}
    kept: list[R] = []
    dropped: list[R] = []
    institutions: dict[str, str] = {}
    for row in rows:
        item_id = item_of(row) or item_of_account.get(acct_of(row))
        if item_id in removed:
            dropped.append(row)
            continue
        kept.append(row)
        if item_id in institution:
            institutions[acct_of(row)] = institution[item_id]
    return kept, dropped, institutions


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


def model_txn_of_item(item: Mapping[str, Any]) -> Txn:
    """A stored row as the models read it: what parsing the :func:`api_shape` of
    ``transactions.from_item(item)`` gives, without the ``Transaction`` and the dict between
    (each field read as ``from_item`` reads it, in its order)."""
    account_id = transactions.acct_id_of(item)
    txn_id = transactions.txn_id_of(item)
    amount = transactions.amount_from_item(item)
    day = transactions.txn_date_of(item)
    name = str(item.get("txn_name", ""))
    pending = bool(item.get("txn_pending", False))
    category = tuple(str(c) for c in item.get("txn_category", ()))
    authorized = transactions.authorized_date_of(item)
    pfc: Mapping[str, Any] = item.get("txn_personal_finance_category") or {}
    if not txn_id:
        raise InvalidTransactionError(f"transaction without a txn_id: {api_shape(transactions.from_item(item))!r}")
    return Txn(
        txn_id=txn_id,
        account_id=account_id,
        amount=amount,
        day=day,
        authorized_day=authorized,
        name=name,
        merchant_name=item.get("txn_merchant_name") or None,
        pfc_primary=pfc.get("primary") or None,
        pfc_detailed=pfc.get("detailed") or None,
        category=category,
        pending=pending,
        iso_currency_code=item.get("txn_iso_cc") or None,
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
