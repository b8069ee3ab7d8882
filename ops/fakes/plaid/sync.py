"""``/transactions/sync`` for the fake: a change log per Item and Plaid-style cursors.

Every change to an Item's transactions (creation, additions, modifications, removals,
pending rows posting) is one new *version* of its data. :class:`ChangeLog` remembers, per
transaction id, at which versions it appeared, changed or went away, so the net changes
between any two versions can be computed: a transaction that did not exist at the
cursor's version and exists now is ``added``; one that existed then and exists now but
changed is ``modified``; one that existed then and is gone is ``removed``. Something
added and removed again in between is not reported at all, as with Plaid.

A cursor is opaque to the client (base64 of JSON) and names the Item, the version the
changes start after and, in the middle of a pagination loop, the version the loop's first
page saw plus the offset of the next page. A page asked for with a mid-loop cursor after
the data has changed answers ``TRANSACTIONS_SYNC_MUTATION_DURING_PAGINATION``: the client
must restart the loop from the cursor its first page used, exactly as Plaid documents.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ops.fakes.plaid.errors import FakeApiError

#: Added, modified and removed transaction ids, in the order a loop returns them.
NetChanges = tuple[list[str], list[str], list[str]]


@dataclass
class ChangeLog:
    """Which transaction ids changed at which version of an Item's data."""

    version: int = 1
    #: id -> [(version, exists after that version)], oldest first.
    history: dict[str, list[tuple[int, bool]]] = field(default_factory=dict)
    #: id -> its account (a removal still names it).
    accounts: dict[str, str] = field(default_factory=dict)

    @classmethod
    def starting_with(cls, transactions: Sequence[Mapping[str, Any]]) -> ChangeLog:
        """The log of a new Item: every transaction appeared at version 1."""
        log = cls()
        for txn in transactions:
            log.history[txn["transaction_id"]] = [(1, True)]
            log.accounts[txn["transaction_id"]] = txn["account_id"]
        return log

    def record(self, present: Sequence[Mapping[str, Any]] = (), gone: Sequence[Mapping[str, Any]] = ()) -> int:
        """One new version: ``present`` transactions were added or changed, ``gone`` ones removed."""
        if not present and not gone:
            return self.version
        self.version += 1
        for txn, exists in [(t, True) for t in present] + [(t, False) for t in gone]:
            self.history.setdefault(txn["transaction_id"], []).append((self.version, exists))
            self.accounts[txn["transaction_id"]] = txn["account_id"]
        return self.version

    def net_changes(self, since: int, until: int) -> NetChanges:
        """What changed after version ``since`` up to version ``until``, oldest change first."""
        touched: list[tuple[int, str, str]] = []
        for txn_id, entries in self.history.items():
            between = [(v, e) for v, e in entries if since < v <= until]
            if not between:
                continue
            before = [e for v, e in entries if v <= since]
            existed, exists = bool(before and before[-1]), between[-1][1]
            if exists and not existed:
                kind = "added"
            elif exists:
                kind = "modified"
            elif existed:
                kind = "removed"
            else:
                continue  # added and removed again since the cursor: nothing to report
            touched.append((between[-1][0], txn_id, kind))
        touched.sort()
        added = [t for _, t, k in touched if k == "added"]
        modified = [t for _, t, k in touched if k == "modified"]
        removed = [t for _, t, k in touched if k == "removed"]
        return added, modified, removed


@dataclass(frozen=True)
class Cursor:
    """Where a sync stands: changes after ``since``; mid-loop also the loop's version and offset."""

    item_id: str
    since: int
    loop_version: int | None = None
    offset: int = 0

    def encode(self) -> str:
        raw = json.dumps([self.item_id, self.since, self.loop_version, self.offset], separators=(",", ":"))
        return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")

    @classmethod
    def decode(cls, text: str, item_id: str) -> Cursor:
        """The cursor a client sent; one that is not ours or not this Item's is refused like Plaid does."""
        try:
            raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
            owner, since, loop_version, offset = json.loads(raw)
            cursor = cls(str(owner), int(since), None if loop_version is None else int(loop_version), int(offset))
        except (binascii.Error, ValueError, TypeError, UnicodeDecodeError) as exc:
            raise FakeApiError("INVALID_FIELD", "cursor is not a valid cursor") from exc
        if cursor.item_id != item_id:
            raise FakeApiError("INVALID_FIELD", "cursor not associated with access_token")
        return cursor


@dataclass(frozen=True)
class SyncPage:
    added: list[str]
    modified: list[str]
    removed: list[str]
    next_cursor: str
    has_more: bool


def sync_page(log: ChangeLog, item_id: str, cursor_text: str | None, count: int) -> SyncPage:
    """One page of net changes from ``cursor_text`` (None or "": the whole history)."""
    cursor = Cursor.decode(cursor_text, item_id) if cursor_text else Cursor(item_id, 0)
    if cursor.loop_version is not None and cursor.loop_version != log.version:
        raise FakeApiError("TRANSACTIONS_SYNC_MUTATION_DURING_PAGINATION")
    until = log.version if cursor.loop_version is None else cursor.loop_version
    added, modified, removed = log.net_changes(cursor.since, until)
    # One ordered list of updates, paged by ``count``: added first, then modified, then removed.
    updates = [("added", t) for t in added] + [("modified", t) for t in modified] + [("removed", t) for t in removed]
    window = updates[cursor.offset : cursor.offset + count]
    has_more = cursor.offset + count < len(updates)
    following = Cursor(item_id, cursor.since, until, cursor.offset + count) if has_more else Cursor(item_id, until)
    return SyncPage(
        added=[t for k, t in window if k == "added"],
        modified=[t for k, t in window if k == "modified"],
        removed=[t for k, t in window if k == "removed"],
        next_cursor=following.encode(),
        has_more=has_more,
    )
