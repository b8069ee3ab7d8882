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
from datetime import UTC, datetime, timedelta
from typing import Any

from chalicelib.aws.messaging import send_message
from chalicelib.data import sync_state
from chalicelib.data.sync_state import SyncState
from chalicelib.data.ttl import iso_timestamp
from chalicelib.errors import DataError
from chalicelib.observability import count, logger
from chalicelib.pipeline.batches import DropMessageError
from chalicelib.pipeline.messages import PageRecord, SyncRequest
from chalicelib.pipeline.mining import ItemRef, put_records
from chalicelib.plaid.client import get_plaid
from chalicelib.plaid.errors import PlaidInvalidInputError, PlaidItemError, PlaidSyncMutationError
from chalicelib.settings import get_settings

#: Reads of the SYNC row a pull or a commit makes before giving up to a retry of its message.
MAX_ATTEMPTS = 5
#: The error Plaid answers for a cursor it does not know for this access token.
INVALID_CURSOR_CODE = "INVALID_FIELD"
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


def first_loop(mine_id: str) -> str:
    return f"{mine_id}.0"


def successor(loop_id: str) -> str:
    """The loop that replaces ``loop_id`` (a restart) or follows it (a wanted pull)."""
    base, _, n = loop_id.rpartition(".")
    return f"{base}.{int(n) + 1}" if base and n.isdigit() else f"{loop_id}.1"


def mine_of(loop_id: str | None) -> str | None:
    """The mine (webhook message) a loop was started for."""
    if loop_id is None:
        return None
    base, _, n = loop_id.rpartition(".")
    return base if base and n.isdigit() else loop_id


# --- entry points ---------------------------------------------------------------------------


def start_pull(item: ItemRef, mine_id: str, now: datetime) -> SyncOutcome:
    """Pull the item's changes for the webhook ``mine_id``: start a loop, or ask the running one for more."""
    first = first_loop(mine_id)
    for _ in range(MAX_ATTEMPTS):
        state = sync_state.get_sync_state(item.user_id, item.item_id)
        if mine_id in (mine_of(state.loop_id), mine_of(state.last_loop)):
            # A redelivery of this webhook: its loop ran or runs. Carry on as a redelivered first page.
            return _resume(item, state, first, 0, now)
        if state.running and not _stale(state, now):
            if sync_state.want_pull(state, mine_id):
                count(f"{METRIC}.wanted")
                logger.info("sync: a loop is running; it pulls again when it ends", extra=_ids(state))
                return SyncOutcome("wanted", state.loop_id)
            continue
        if state.running:
            logger.warning("sync: taking over a loop with no progress", extra={**_ids(state), "loop_at": state.loop_at})
            count(f"{METRIC}.takeover")
        if sync_state.start_loop(state, first, now):
            started = replace(
                state,
                loop_id=first,
                page=0,
                next_cursor=state.cursor,
                loop_at=iso_timestamp(now),
                loop_transactions=0,
                wanted=None,
            )
            return pull_page(item, started, now)
    raise SyncContentionError(f"the SYNC row of item {item.item_id} kept changing")


def continue_pull(request: SyncRequest, item: ItemRef, now: datetime) -> SyncOutcome:
    """A queued page of a loop (the throttle-miner)."""
    state = sync_state.get_sync_state(item.user_id, item.item_id)
    return _resume(item, state, request.loop_id, request.page, now)


def _resume(item: ItemRef, state: SyncState, loop_id: str, page: int, now: datetime) -> SyncOutcome:
    """Step ``(loop_id, page)`` against the row as read: read the page, finish a handover, or stop."""
    if state.holds(loop_id, page):
        return pull_page(item, state, now)
    if state.holds(loop_id, page + 1) or state.holds(successor(loop_id), 0):
        # This step moved the row on, then may have died before queuing what follows: queue it
        # (again). A duplicate queued this way reads its page once more and stops at its write.
        _queue(state)
        return SyncOutcome("resent", state.loop_id, state.page)
    return SyncOutcome("already_pulled" if page == 0 else "superseded", state.loop_id)


# --- one page ----------------------------------------------------------------------------------


def pull_page(item: ItemRef, state: SyncState, now: datetime) -> SyncOutcome:
    """Read the page ``state`` names, put it on the stream, then move the row on (or commit)."""
    loop_id = str(state.loop_id)
    try:
        size = get_settings().sync_page_size
        response = get_plaid().transactions_sync(item.access_token, cursor=state.next_cursor, count=size)
    except PlaidSyncMutationError:
        return _restart(state, now, reason="mutation")
    except PlaidInvalidInputError as exc:
        if exc.error_code == INVALID_CURSOR_CODE and state.next_cursor is not None:
            return _restart(state, now, reason="invalid_cursor", forget_cursor=True)
        sync_state.release(state)
        raise DropMessageError("sync_refused", item_id=item.item_id, error_code=exc.error_code) from exc
    except PlaidItemError as exc:
        if exc.retryable:
            raise
        sync_state.release(state)
        raise DropMessageError("mine_ended", item_id=item.item_id, error_code=exc.error_code) from exc

    added: list[dict[str, Any]] = response.get("added") or []
    modified: list[dict[str, Any]] = response.get("modified") or []
    removed = [str(r["transaction_id"]) for r in response.get("removed") or []]
    accounts: list[dict[str, Any]] = response.get("accounts") or []
    has_more = bool(response.get("has_more"))
    next_cursor = response.get("next_cursor") or None
    stored = len(added) + len(modified)
    page = {
        "accounts": accounts,
        "transactions": added + modified,
        "transactions_update_status": response.get("transactions_update_status"),
    }
    put_records(
        PageRecord(
            item.user_id,
            item.item_id,
            loop_id,
            last_page=not has_more,
            transactions=page,
            removed=removed or None,
            announce=not has_more and state.loop_transactions + stored > 0,
        )
    )
    outcome = SyncOutcome(
        "page", loop_id, state.page, len(added), len(modified), len(removed), has_more, tuple(accounts)
    )
    count(f"{METRIC}.page", last=str(not has_more).lower())
    if has_more:
        if sync_state.advance(state, next_cursor, stored, now):
            _queue(replace(state, page=state.page + 1, next_cursor=next_cursor))
            return outcome
        return replace(outcome, action="superseded")  # a duplicate of this step moved the row first
    return _commit(item, state, next_cursor, outcome, now)


def _commit(
    item: ItemRef, state: SyncState, next_cursor: str | None, outcome: SyncOutcome, now: datetime
) -> SyncOutcome:
    """Make ``next_cursor`` the committed cursor, continuing with a follow-up loop if a pull was wanted."""
    for _ in range(MAX_ATTEMPTS):
        follow_up = successor(str(state.loop_id)) if state.wanted else None
        if sync_state.commit(state, next_cursor, now, follow_up=follow_up):
            count(f"{METRIC}.committed", follow_up=str(follow_up is not None).lower())
            logger.info("sync: loop committed", extra={**_ids(state), "follow_up": follow_up})
            if follow_up is not None:
                _queue(replace(state, loop_id=follow_up, page=0, next_cursor=next_cursor))
            return replace(outcome, action="committed")
        fresh = sync_state.get_sync_state(state.user_id, state.item_id)
        if not fresh.holds(str(state.loop_id), state.page):
            return replace(outcome, action="superseded")  # another step of this loop got there, or a takeover
        state = fresh  # a pull was wanted since the read: commit with it
    raise SyncContentionError(f"the SYNC row of item {item.item_id} kept changing at commit")


def _restart(state: SyncState, now: datetime, *, reason: str, forget_cursor: bool = False) -> SyncOutcome:
    """Start the loop again from the committed cursor (or from none), under a new loop id."""
    new_loop = successor(str(state.loop_id))
    count(f"{METRIC}.restarted", reason=reason)
    logger.warning("sync: loop restarts", extra={**_ids(state), "reason": reason, "new_loop": new_loop})
    if not sync_state.restart(state, new_loop, now, forget_cursor=forget_cursor):
        return SyncOutcome("superseded", state.loop_id, state.page)
    start = None if forget_cursor else state.cursor
    restarted = replace(state, loop_id=new_loop, page=0, next_cursor=start, cursor=start, loop_transactions=0)
    _queue(restarted)
    return SyncOutcome("restarted", new_loop, 0)


def _queue(state: SyncState) -> None:
    """Queue the page the row names, on the throttle queue (its delay spaces the pages)."""
    request = SyncRequest(state.item_id, state.user_id, str(state.loop_id), state.page)
    settings = get_settings()
    send_message(settings.throttle_queue, request.to_json(), delay_seconds=settings.throttle_delay_seconds)


def _stale(state: SyncState, now: datetime) -> bool:
    if not state.loop_at:
        return True
    try:
        moment = datetime.fromisoformat(state.loop_at.replace("Z", "+00:00"))
    except ValueError:
        return True
    moment = moment if moment.tzinfo else moment.replace(tzinfo=UTC)
    return now - moment > timedelta(seconds=get_settings().sync_loop_stale_seconds)


def _ids(state: SyncState) -> dict[str, Any]:
    return {"user_id": state.user_id, "item_id": state.item_id, "loop_id": state.loop_id, "page": state.page}
