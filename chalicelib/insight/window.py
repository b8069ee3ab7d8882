"""The user's window: what the Pave feeder uploads after each mine.

The window is every transaction the service still holds for the user, read from GSI1 (the
index ``GET /v1/users/{user_id}/transactions`` lists; eventually consistent). Unlike the
models' history (:mod:`chalicelib.insight.history`, bounded to the retention days), it is not
bounded by date: Pave keeps what it is sent, and a longer history only helps it.

* ``transactions``: the live rows whose item is not REMOVED. A row's item is its ``item_id``,
  else the item of its account; a row whose item cannot be told (written by the system this
  service took over, its account gone) is kept, as the API lists it;
* ``removed``: the ids of the user's soft-deleted rows still retained, and the live rows of
  REMOVED items. Pave is told to forget both: a removed connection's transactions must not
  count, and a login linked again (a new item, new transaction ids) must not count twice.
"""

from __future__ import annotations

from dataclasses import dataclass

from chalicelib.data import accounts, items, transactions
from chalicelib.data.transactions import Transaction


@dataclass(frozen=True)
class Window:
    user_id: str
    #: Live transactions of the user's items that are not REMOVED, oldest first.
    transactions: tuple[Transaction, ...]
    #: Ids Pave must forget, sorted.
    removed: tuple[str, ...]

    @property
    def empty(self) -> bool:
        return not self.transactions and not self.removed


def read_window(user_id: str) -> Window:
    """The user's window (see the module docstring): two GSI1 Queries, the user's items and accounts."""
    live = transactions.user_transactions(user_id)
    gone = {t.txn_id for t in transactions.user_transactions(user_id, removed=True)}
    removed_items = {i.item_id for i in items.list_items(user_id) if i.status is items.ItemStatus.REMOVED}
    item_of_account = {a.acct_id: a.item_id for a in accounts.list_accounts(user_id)} if removed_items else {}
    kept: list[Transaction] = []
    for txn in live:
        item_id = txn.item_id or item_of_account.get(txn.acct_id)
        if txn.txn_id in gone or (item_id is not None and item_id in removed_items):
            gone.add(txn.txn_id)
        else:
            kept.append(txn)
    kept.sort(key=lambda t: (t.txn_date, t.txn_id))
    return Window(user_id, tuple(kept), tuple(sorted(gone)))
