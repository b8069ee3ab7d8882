"""REMOVE tombstones: one per transaction id Plaid retracted.

The refiner checks incoming transactions against tombstones, so a transaction that
arrives after its removal (records are at-least-once and may replay) is re-tombstoned
instead of resurrected. A tombstone records the user and item whose removal wrote it and
applies only to that user's item (:mod:`chalicelib.data.ownership` reads them). Tombstones
live 30 days.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from chalicelib.data import keys, tables
from chalicelib.data.batch import put_items
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
