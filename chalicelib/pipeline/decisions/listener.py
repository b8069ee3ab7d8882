"""The listener's decision table (pure): what a user's login asks of each of their items.

:mod:`chalicelib.pipeline.listener` reads the user's items; :func:`considered` skips those that
are not ACTIVE; for each ACTIVE item it reads the item's TRANSACTIONS WEBHOOK_INFO rows and
:func:`decide` says: skip (mined within 24 hours), a synthetic HISTORICAL_UPDATE (a young item
that never had one), or a synthetic DEFAULT_UPDATE. The table: ``docs/item-lifecycle.md``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum

from chalicelib.data.items import Item, ItemStatus

HISTORICAL_UPDATE = "HISTORICAL_UPDATE"
DEFAULT_UPDATE = "DEFAULT_UPDATE"
#: Codes that count as a mine for the 24-hour rule (a SYNC_UPDATES_AVAILABLE row is a sync item's pull).
MINE_CODES = frozenset({"DEFAULT_UPDATE", "INITIAL_UPDATE", HISTORICAL_UPDATE, "SYNC_UPDATES_AVAILABLE"})
RECENT_MINE = timedelta(hours=24)
#: WEBHOOK_INFO retention: an item older than this may have lost its HISTORICAL_UPDATE row.
YOUNG_ITEM = timedelta(days=30)


class Action(StrEnum):
    SKIP = "SKIP"
    HISTORICAL_UPDATE = HISTORICAL_UPDATE
    DEFAULT_UPDATE = DEFAULT_UPDATE


@dataclass(frozen=True)
class PastWebhook:
    """What the decision needs of one WEBHOOK_INFO row."""

    code: str
    received_at: datetime


def considered(item: Item) -> bool:
    """Only ACTIVE items are remined on a login; ERROR and REMOVED items are skipped."""
    return item.status is ItemStatus.ACTIVE


def decide(history: Iterable[PastWebhook], item_created_at: datetime | None, now: datetime) -> Action:
    """The decision table for one ACTIVE item.

    ``history`` is the item's TRANSACTIONS rows (any source). An item whose creation time
    is unknown counts as old: it gets the DEFAULT_UPDATE, never a 180-day remine by guess.
    """
    rows = list(history)
    if any(r.code in MINE_CODES and now - r.received_at <= RECENT_MINE for r in rows):
        return Action.SKIP
    young = item_created_at is not None and now - item_created_at < YOUNG_ITEM
    if young and not any(r.code == HISTORICAL_UPDATE for r in rows):
        return Action.HISTORICAL_UPDATE
    return Action.DEFAULT_UPDATE
