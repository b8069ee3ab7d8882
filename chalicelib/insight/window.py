"""The user's window: what the Pave feeder uploads after each mine.

The window is the user's retained transactions as every insight consumer reads them
(:func:`chalicelib.insight.history.retained`: the ``RETENTION_DAYS`` ending on the upload's
day, live rows, items that are not REMOVED), so Pave sees the history our own models see.

* ``transactions``: those retained rows, oldest first;
* ``removed``: the ids Pave must forget: the user's soft-deleted rows still retained (one
  GSI1 Query of the ``REMOVED#`` range), and the retained rows of REMOVED items. A removed
  connection's transactions must not count, and a login linked again (a new item, new
  transaction ids) must not count twice.

Rows that age out of the window are no longer sent; Pave keeps what it was sent before.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from chalicelib.data import transactions
from chalicelib.data.transactions import Transaction
from chalicelib.insight import history


@dataclass(frozen=True)
class Window:
    user_id: str
    #: Retained live transactions of the user's items that are not REMOVED, oldest first.
    transactions: tuple[Transaction, ...]
    #: Ids Pave must forget, sorted.
    removed: tuple[str, ...]

    @property
    def empty(self) -> bool:
        return not self.transactions and not self.removed


def read_window(user_id: str, as_of: date) -> Window:
    """The user's window at ``as_of`` (see the module docstring)."""
    found = history.retained(user_id, as_of)
    gone = {t.txn_id for t in transactions.soft_deleted_transactions(user_id)}
    gone |= {t.txn_id for t in found.of_removed_items}
    kept = sorted((t for t in found.transactions if t.txn_id not in gone), key=lambda t: (t.txn_date, t.txn_id))
    return Window(user_id, tuple(kept), tuple(sorted(gone)))
