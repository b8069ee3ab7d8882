"""SYNC rows: an item's ``/transactions/sync`` cursors and the pagination loop that holds them.

One row per item that has synced, ``USERS#<user>`` / ``SYNC#<item>`` in the plaid table (type
``SYNC``, no GSI keys). It is separate from the ITEM row so that a loop's progress (one write
per page) does not stream ITEM changes to the feeder, and a TTL write-back of an item never
carries stale cursors.

* ``sync_cursor``: the **committed** cursor, where the current (or next) loop starts. Absent:
  none yet, and the first sync returns the item's whole history.
* ``sync_loop``: the loop in progress (``<mine id>.<n>``); absent when none runs.
* ``sync_page`` and ``sync_next_cursor``: the index of the loop's next page and the cursor it
  reads from (the loop's **next** cursor; absent while that is "no cursor").
* ``sync_loop_at``: when the loop started or last advanced; a loop silent for
  ``SYNC_LOOP_STALE_SECONDS`` may be taken over by the next pull.
* ``sync_loop_transactions``: added and modified transactions the loop has put on the stream.
* ``sync_wanted``: a pull that arrived while the loop ran (its mine id); the loop continues
  with a follow-up from the new committed cursor when it ends.
* ``sync_last_loop``, ``sync_committed_at``: the last loop that committed, and when.

Every write is conditional on what its caller read, so at-least-once delivery and two
loops racing for one item cannot interleave: a loop starts only when none runs (or takes
over a stale one it names) and only from the committed cursor as read; a page advances the
loop only when the loop and page are still those read (a duplicate or superseded step
writes nothing); the committed cursor changes only at the end of the loop holding the row.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from chalicelib.aws.errors import translated
from chalicelib.data import keys, tables
from chalicelib.data.ttl import iso_timestamp
from chalicelib.errors import ConditionFailedError

#: Attributes a running loop holds; removed together when it ends.
LOOP_ATTRIBUTES = (
    "sync_loop",
    "sync_page",
    "sync_next_cursor",
    "sync_loop_at",
    "sync_loop_transactions",
    "sync_wanted",
)


@dataclass(frozen=True)
class SyncState:
    """An item's SYNC row as read (an item that never synced reads as the empty state)."""

    user_id: str
    item_id: str
    cursor: str | None = None
    loop_id: str | None = None
    page: int = 0
    next_cursor: str | None = None
    loop_at: str | None = None
    loop_transactions: int = 0
    wanted: str | None = None
    last_loop: str | None = None
    committed_at: str | None = None

    @property
    def running(self) -> bool:
        return self.loop_id is not None

    def holds(self, loop_id: str, page: int) -> bool:
        """Whether the row says ``loop_id`` is about to read page ``page``."""
        return self.loop_id == loop_id and self.page == page


def from_row(row: Mapping[str, Any], user_id: str, item_id: str) -> SyncState:
    return SyncState(
        user_id=user_id,
        item_id=item_id,
        cursor=row.get("sync_cursor") or None,
        loop_id=row.get("sync_loop") or None,
        page=int(row.get("sync_page", 0)),
        next_cursor=row.get("sync_next_cursor") or None,
        loop_at=row.get("sync_loop_at"),
        loop_transactions=int(row.get("sync_loop_transactions", 0)),
        wanted=row.get("sync_wanted") or None,
        last_loop=row.get("sync_last_loop"),
        committed_at=row.get("sync_committed_at"),
    )


def get_sync_state(user_id: str, item_id: str) -> SyncState:
    """The item's SYNC row (strongly consistent GetItem); the empty state when there is none."""
    with translated():
        row = tables.plaid().get_item(Key=keys.sync_state_key(user_id, item_id), ConsistentRead=True).get("Item")
    return from_row(row or {}, user_id, item_id)


# --- writes: each returns False, having written nothing, when the row is not as the caller read it --------


def start_loop(current: SyncState, loop_id: str, now: datetime) -> bool:
    """Start loop ``loop_id`` at page 0 from the committed cursor ``current`` holds.

    When ``current`` shows a loop running, this takes it over (the caller decided it is stale):
    the condition names that loop and its last progress, so a loop that advanced meanwhile is kept.
    """
    write = _Write(current)
    write.set(type=keys.SYNC, user_id=current.user_id, item_id=current.item_id)
    write.start(loop_id, current.cursor, now)
    write.remove("sync_wanted")
    if current.loop_id is None:
        write.condition("(attribute_not_exists(PK) OR attribute_not_exists(#sync_loop))")
    else:
        held = {"held": current.loop_id, "held_at": current.loop_at}
        write.condition("#sync_loop = :held AND #sync_loop_at = :held_at", **held)
    write.committed_as_read()
    return write.apply()


def want_pull(current: SyncState, mine_id: str) -> bool:
    """Ask the running loop for a follow-up pull when it ends."""
    write = _Write(current)
    write.set(sync_wanted=mine_id)
    write.condition("#sync_loop = :held", held=current.loop_id)
    return write.apply()


def advance(current: SyncState, next_cursor: str | None, transactions: int, now: datetime) -> bool:
    """The page ``current`` names is on the stream: the loop reads the next page from ``next_cursor``."""
    write = _Write(current)
    write.set(sync_page=current.page + 1, sync_next_cursor=next_cursor, sync_loop_at=iso_timestamp(now))
    write.set(sync_loop_transactions=current.loop_transactions + transactions)
    write.holding()
    return write.apply()


def restart(current: SyncState, loop_id: str, now: datetime, *, forget_cursor: bool = False) -> bool:
    """Replace the loop by ``loop_id`` at page 0 of the committed cursor (or of none: ``forget_cursor``)."""
    write = _Write(current)
    start = None if forget_cursor else current.cursor
    write.start(loop_id, start, now)
    if forget_cursor:
        write.set(sync_cursor=None)
    write.holding()
    return write.apply()


def commit(current: SyncState, next_cursor: str | None, now: datetime, *, follow_up: str | None = None) -> bool:
    """The loop's last page is on the stream: ``next_cursor`` becomes the committed cursor.

    With ``follow_up`` (``current`` shows a pull wanted) the row passes at once to that loop,
    starting from the new cursor; without, the loop ends, and only if no pull was wanted since.
    """
    write = _Write(current)
    write.set(sync_cursor=next_cursor, sync_last_loop=current.loop_id, sync_committed_at=iso_timestamp(now))
    if follow_up is None:
        write.remove(*LOOP_ATTRIBUTES)
        write.condition("attribute_not_exists(#sync_wanted)")
    else:
        write.start(follow_up, next_cursor, now)
        write.remove("sync_wanted")
        write.condition("#sync_wanted = :wanted", wanted=current.wanted)
    write.holding()
    write.committed_as_read()
    return write.apply()


def release(current: SyncState) -> bool:
    """End the loop without committing (the item cannot be read now); the cursor stays."""
    write = _Write(current)
    write.remove(*LOOP_ATTRIBUTES)
    write.holding()
    return write.apply()


class _Write:
    """One conditional UpdateItem of a SYNC row; a ``None`` value REMOVEs the attribute."""

    def __init__(self, current: SyncState) -> None:
        self.current = current
        self.values: dict[str, Any] = {}
        self.conditions: list[str] = []
        self.condition_values: dict[str, Any] = {}
        self.names: set[str] = set()

    def set(self, **values: Any) -> None:
        self.values.update(values)

    def remove(self, *names: str) -> None:
        self.values.update(dict.fromkeys(names))

    def start(self, loop_id: str, cursor: str | None, now: datetime) -> None:
        self.set(
            sync_loop=loop_id,
            sync_page=0,
            sync_next_cursor=cursor,
            sync_loop_at=iso_timestamp(now),
            sync_loop_transactions=0,
        )

    def condition(self, expression: str, **values: Any) -> None:
        self.conditions.append(expression)
        self.condition_values.update({f":{k}": v for k, v in values.items()})
        self.names.update(re.findall(r"#(\w+)", expression))

    def holding(self) -> None:
        """Only while the row still names the caller's loop at the caller's page."""
        self.condition("#sync_loop = :loop AND #sync_page = :page", loop=self.current.loop_id, page=self.current.page)

    def committed_as_read(self) -> None:
        if self.current.cursor is None:
            self.condition("attribute_not_exists(#sync_cursor)")
        else:
            self.condition("#sync_cursor = :committed", committed=self.current.cursor)

    def apply(self) -> bool:
        sets = {k: v for k, v in self.values.items() if v is not None}
        removes = [k for k, v in self.values.items() if v is None]
        names = {f"#{n}": n for n in (*self.values, *self.names)}
        parts = []
        if sets:
            parts.append("SET " + ", ".join(f"#{k} = :v_{k}" for k in sets))
        if removes:
            parts.append("REMOVE " + ", ".join(f"#{k}" for k in removes))
        request: dict[str, Any] = {
            "Key": keys.sync_state_key(self.current.user_id, self.current.item_id),
            "UpdateExpression": " ".join(parts),
            "ConditionExpression": " AND ".join(self.conditions),
            "ExpressionAttributeNames": names,
        }
        attribute_values = {f":v_{k}": v for k, v in sets.items()} | self.condition_values
        if attribute_values:
            request["ExpressionAttributeValues"] = attribute_values
        try:
            with translated():
                tables.plaid().update_item(**request)
        except ConditionFailedError:
            return False
        return True
