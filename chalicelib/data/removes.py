"""REMOVE tombstones (seed 000): one per transaction id Plaid retracted.

The refiner checks incoming transactions against tombstones, so a transaction that
arrives after its removal (records are at-least-once and may replay) is re-tombstoned
instead of resurrected. Tombstones live 30 days.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from chalicelib.data import keys, tables
from chalicelib.data.batch import batch_get, put_items
from chalicelib.data.ttl import REMOVE_TTL_DAYS, days_from, iso_timestamp


def remove_item(txn_id: str, user_id: str, item_id: str, now: datetime) -> dict[str, Any]:
    """The tombstone row for ``txn_id`` (pure)."""
    stamp = iso_timestamp(now)
    return {
        **keys.remove_key(txn_id),
        **keys.remove_gsi_keys(stamp),
        "type": keys.REMOVE,
        "txn_id": txn_id,
        "user_id": user_id,
        "item_id": item_id,
        "removed_at": stamp,
        "ttl": days_from(now, REMOVE_TTL_DAYS),
    }


def put_remove_items(items: Iterable[dict[str, Any]]) -> int:
    return put_items(tables.transactions().name, items, ("PK", "SK"))


def tombstoned(txn_ids: Iterable[str]) -> set[str]:
    """Which of ``txn_ids`` have a tombstone (strongly consistent batch read)."""
    ids = list(dict.fromkeys(txn_ids))
    if not ids:
        return set()
    found = batch_get(
        tables.transactions().name,
        [keys.remove_key(t) for t in ids],
        consistent=True,
        projection=["txn_id"],
    )
    return {str(i["txn_id"]) for i in found}
