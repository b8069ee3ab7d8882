"""Who owns a TRANSACTION row or a REMOVE tombstone: the guard for ids that come in payloads.

Transaction and tombstone keys are Plaid's global transaction ids, so an id in a page or
in a ``TRANSACTIONS_REMOVED`` webhook selects a row without naming its user. Every write
that such an id selects first checks the row's owner (user and item): a removal, a
tombstone or a page applies only to rows of the user and item the payload is about.

Rows written before owners were recorded may lack the item (transactions) or both
(tombstones); an unknown part matches anything, so those rows behave as they always did
(tombstones expire within 30 days). A known part that differs never matches.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from chalicelib.data import contributions, keys, tables
from chalicelib.data.batch import batch_get
from chalicelib.observability import count, logger

MISMATCH_METRIC = "txn.owner.mismatch"
_PROJECTION = ("PK", "txn_id", "user_id", "item_id", "acct_id")
#: What else a transaction row's write needs of the stored row: what it contributes to the
#: summaries and what it records it contributes (:mod:`chalicelib.data.contributions`).
_CONTENT = (*(a for a in contributions.SOURCE_ATTRIBUTES if a not in _PROJECTION), contributions.ATTRIBUTE)


@dataclass(frozen=True)
class Owner:
    """The user and item a stored row belongs to (None: not recorded on that row)."""

    user_id: str | None
    item_id: str | None

    def admits(self, user_id: str, item_id: str) -> bool:
        """Whether a payload about ``user_id``'s ``item_id`` may act on this row."""
        return self.user_id in (None, user_id) and self.item_id in (None, item_id)


def owner_of(row: Mapping[str, Any]) -> Owner:
    user, item = row.get("user_id"), row.get("item_id")
    return Owner(str(user) if user else None, str(item) if item else None)


@dataclass(frozen=True)
class StoredOwners:
    """The owners of the transaction rows and tombstones that exist for some ids."""

    transactions: dict[str, Owner]
    tombstones: dict[str, Owner]
    #: The stored transaction rows themselves (owner and summary attributes only).
    rows: dict[str, dict[str, Any]] = field(default_factory=dict)


def stored_owners(txn_ids: Iterable[str]) -> StoredOwners:
    """Owners of the existing TRANSACTION rows and REMOVE tombstones of ``txn_ids``.

    One strongly consistent batch read of both kinds of key (chunks of 100); the projection
    adds the few attributes a transaction row's summary bookkeeping needs (read units are
    charged by item size, so they cost nothing more).
    """
    ids = list(dict.fromkeys(txn_ids))
    if not ids:
        return StoredOwners({}, {})
    wanted = [keys.transaction_key(t) for t in ids] + [keys.remove_key(t) for t in ids]
    found = batch_get(tables.transactions().name, wanted, consistent=True, projection=_PROJECTION + _CONTENT)
    txns: dict[str, Owner] = {}
    tombs: dict[str, Owner] = {}
    rows: dict[str, dict[str, Any]] = {}
    for row in found:
        pk = str(row.get("PK", ""))
        txn_id = str(row.get("txn_id") or keys.last_part(pk))
        if pk.startswith(keys.REMOVE + keys.SEP):
            tombs[txn_id] = owner_of(row)
        else:
            txns[txn_id] = owner_of(row)
            rows[txn_id] = row
    return StoredOwners(txns, tombs, rows)


def report_mismatch(row: str, action: str, txn_id: str, user_id: str, item_id: str, owner: Owner) -> None:
    """Log and count a payload that named another owner's row; the row is left alone."""
    logger.warning(
        "payload names a row of another owner; not applied",
        extra={
            "row": row,
            "action": action,
            "txn_id": txn_id,
            "user_id": user_id,
            "item_id": item_id,
            "row_user_id": owner.user_id,
            "row_item_id": owner.item_id,
        },
    )
    count(MISMATCH_METRIC, row=row, action=action)
