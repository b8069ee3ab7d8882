"""Mining by ``/transactions/sync``: one pagination loop per item at a time, pages on the stream.

A *pull* (any TRANSACTIONS webhook for a sync item, the listener's and the API's remines)
reads the item's changes from its **committed** cursor. It starts a *loop* (``<mine id>.0``)
on the item's SYNC row (:mod:`chalicelib.data.sync_state`) and reads its first page at once;
while ``has_more``, each page's successor is queued on the throttle queue (a
:class:`~chalicelib.pipeline.messages.SyncRequest`) so pages are spaced like ``/transactions/get``
pages. Every page becomes a page record the refiner already applies (``added`` and ``modified``
upserted as transactions, ``removed`` tombstoned) and goes on the stream *before* the row moves:

* not the last page: the row's page and **next** cursor advance, then the next page is queued;
* the last page: its ``next_cursor`` becomes the committed cursor, and the loop ends.

So a crash or a redelivery anywhere re-reads a page (harmless: the refiner is idempotent) and
never skips one, and the committed cursor only ever names changes that are all on the stream.

Two loops for one item cannot interleave: every write is conditional on the loop and page
its step read. A pull that finds a loop running records that a pull is wanted and stops; the
running loop, when it commits, continues at once with a follow-up loop (``<mine id>.<n+1>``)
from the new cursor, so nothing asked for is lost and concurrent webhooks cost one extra
loop, not one each. A loop with no progress for ``SYNC_LOOP_STALE_SECONDS`` (its step died in
the DLQ) is taken over by the next pull; the old loop, if it ever wakes, can no longer write.

``TRANSACTIONS_SYNC_MUTATION_DURING_PAGINATION`` restarts the loop from the committed cursor,
as Plaid documents. A cursor Plaid refuses is forgotten and the loop restarts from none (the
whole history: duplicates are upserts). An item error no retry can fix ends the loop without
committing; the next pull after the user repairs the item starts from the same cursor.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any

from chalicelib.data.sync_state import SyncState
from chalicelib.data.ttl import iso_timestamp
from chalicelib.errors import DataError
from chalicelib.observability import count, logger
from chalicelib.pipeline.batches import DropMessageError
from chalicelib.pipeline.decisions import Drop
from chalicelib.pipeline.decisions import sync as rules
from chalicelib.pipeline.decisions.sync import (
    INVALID_CURSOR_CODE,
    PullStart,
    Restart,
    StepAction,
    first_loop,
    mine_of,
    successor,
)
from chalicelib.pipeline.effects import Effects, get_effects
from chalicelib.pipeline.messages import SyncRequest
from chalicelib.pipeline.mining import ItemRef
from chalicelib.settings import get_settings

__all__ = [
    "INVALID_CURSOR_CODE",
    "MAX_ATTEMPTS",
    "SyncContentionError",
    "SyncOutcome",
    "continue_pull",
    "first_loop",
    "mine_of",
    "pull_page",
    "start_pull",
    "successor",
]

#: Reads of the SYNC row a pull or a commit makes before giving up to a retry of its message.
MAX_ATTEMPTS = 5
METRIC = "txn.sync"


class SyncContentionError(DataError):
    """The item's SYNC row kept changing under a pull; its message is retried."""

    retryable = True


@dataclass(frozen=True)
class SyncOutcome:
    """What one pull or one step did; ``action`` says which."""

    action: str  # page | committed | wanted | restarted | resent | already_pulled | superseded
    loop_id: str | None
    page: int | None = None
    added: int = 0
    modified: int = 0
    removed: int = 0
    has_more: bool = False
    accounts: tuple[dict[str, Any], ...] = ()

    @property
    def updates(self) -> int:
        return self.added + self.modified + self.removed


# --- entry points ---------------------------------------------------------------------------


def start_pull(item: ItemRef, mine_id: str, now: datetime, fx: Effects | None = None) -> SyncOutcome:
    """Pull the item's changes for the webhook ``mine_id``: start a loop, or ask the running one for more."""
    fx = fx or get_effects()
    first = first_loop(mine_id)
    stale_after = timedelta(seconds=get_settings().sync_loop_stale_seconds)
    for _ in range(MAX_ATTEMPTS):
        state = fx.store.get_sync_state(item.user_id, item.item_id)
        start = rules.start_pull(state, mine_id, now, stale_after)
        if start is PullStart.REDELIVERED:
            # A redelivery of this webhook: its loop ran or runs. Carry on as a redelivered first page.
            return _resume(item, state, first, 0, now, fx)
        if start is PullStart.WANT:
            if fx.store.want_pull(state, mine_id):
                count(f"{METRIC}.wanted")
                logger.info("sync: a loop is running; it pulls again when it ends", extra=_ids(state))
                return SyncOutcome("wanted", state.loop_id)
            continue
        if start is PullStart.TAKE_OVER:
            logger.warning("sync: taking over a loop with no progress", extra={**_ids(state), "loop_at": state.loop_at})
            count(f"{METRIC}.takeover")
        if fx.store.start_loop(state, first, now):
            started = replace(
                state,
                loop_id=first,
                page=0,
                next_cursor=state.cursor,
                loop_at=iso_timestamp(now),
                loop_transactions=0,
                wanted=None,
            )
            return pull_page(item, started, now, fx)
    raise SyncContentionError(f"the SYNC row of item {item.item_id} kept changing")


def continue_pull(request: SyncRequest, item: ItemRef, now: datetime, fx: Effects | None = None) -> SyncOutcome:
    """A queued page of a loop (the throttle-miner)."""
    fx = fx or get_effects()
    state = fx.store.get_sync_state(item.user_id, item.item_id)
    return _resume(item, state, request.loop_id, request.page, now, fx)


def _resume(item: ItemRef, state: SyncState, loop_id: str, page: int, now: datetime, fx: Effects) -> SyncOutcome:
    """Step ``(loop_id, page)`` against the row as read: read the page, finish a handover, or stop."""
    action = rules.step(state, loop_id, page)
    if action is StepAction.READ:
        return pull_page(item, state, now, fx)
    if action is StepAction.RESEND:
        _queue(state, fx)
        return SyncOutcome("resent", state.loop_id, state.page)
    return SyncOutcome(action.value, state.loop_id)


# --- one page ----------------------------------------------------------------------------------


def pull_page(item: ItemRef, state: SyncState, now: datetime, fx: Effects | None = None) -> SyncOutcome:
    """Read the page ``state`` names, put it on the stream, then move the row on (or commit)."""
    fx = fx or get_effects()
    loop_id = str(state.loop_id)
    try:
        size = get_settings().sync_page_size
        response = fx.plaid.transactions_sync(item.access_token, cursor=state.next_cursor, count=size)
    except Exception as exc:
        failure = rules.page_failure(exc, state.next_cursor, item.item_id)
        if isinstance(failure, Restart):
            return _restart(state, now, fx, reason=failure.reason, forget_cursor=failure.forget_cursor)
        if isinstance(failure, Drop):
            fx.store.release(state)
            raise DropMessageError(failure.reason, **failure.context) from exc
        raise

    page = rules.read_page(response)
    fx.messages.put_records(page.record(item.user_id, item.item_id, loop_id, state.loop_transactions))
    outcome = SyncOutcome(
        "page",
        loop_id,
        state.page,
        len(page.added),
        len(page.modified),
        len(page.removed),
        page.has_more,
        tuple(page.accounts),
    )
    count(f"{METRIC}.page", last=str(not page.has_more).lower())
    if page.has_more:
        if fx.store.advance(state, page.next_cursor, page.stored, now):
            _queue(replace(state, page=state.page + 1, next_cursor=page.next_cursor), fx)
            return outcome
        return replace(outcome, action="superseded")  # a duplicate of this step moved the row first
    return _commit(item, state, page.next_cursor, outcome, now, fx)


def _commit(
    item: ItemRef, state: SyncState, next_cursor: str | None, outcome: SyncOutcome, now: datetime, fx: Effects
) -> SyncOutcome:
    """Make ``next_cursor`` the committed cursor, continuing with a follow-up loop if a pull was wanted."""
    for _ in range(MAX_ATTEMPTS):
        follow_up = rules.follow_up(state)
        if fx.store.commit(state, next_cursor, now, follow_up=follow_up):
            count(f"{METRIC}.committed", follow_up=str(follow_up is not None).lower())
            logger.info("sync: loop committed", extra={**_ids(state), "follow_up": follow_up})
            if follow_up is not None:
                _queue(replace(state, loop_id=follow_up, page=0, next_cursor=next_cursor), fx)
            return replace(outcome, action="committed")
        fresh = fx.store.get_sync_state(state.user_id, state.item_id)
        if not rules.commit_retry(fresh, str(state.loop_id), state.page):
            return replace(outcome, action="superseded")  # another step of this loop got there, or a takeover
        state = fresh  # a pull was wanted since the read: commit with it
    raise SyncContentionError(f"the SYNC row of item {item.item_id} kept changing at commit")


def _restart(state: SyncState, now: datetime, fx: Effects, *, reason: str, forget_cursor: bool) -> SyncOutcome:
    """Start the loop again from the committed cursor (or from none), under a new loop id."""
    new_loop = successor(str(state.loop_id))
    count(f"{METRIC}.restarted", reason=reason)
    logger.warning("sync: loop restarts", extra={**_ids(state), "reason": reason, "new_loop": new_loop})
    if not fx.store.restart_loop(state, new_loop, now, forget_cursor=forget_cursor):
        return SyncOutcome("superseded", state.loop_id, state.page)
    start = None if forget_cursor else state.cursor
    restarted = replace(state, loop_id=new_loop, page=0, next_cursor=start, cursor=start, loop_transactions=0)
    _queue(restarted, fx)
    return SyncOutcome("restarted", new_loop, 0)


def _queue(state: SyncState, fx: Effects) -> None:
    """Queue the page the row names, on the throttle queue (its delay spaces the pages)."""
    fx.messages.send_throttled(SyncRequest(state.item_id, state.user_id, str(state.loop_id), state.page).to_json())


def _ids(state: SyncState) -> dict[str, Any]:
    return {"user_id": state.user_id, "item_id": state.item_id, "loop_id": state.loop_id, "page": state.page}
