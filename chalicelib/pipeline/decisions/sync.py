"""The ``/transactions/sync`` loop's rules (pure): which loop runs, which step acts, what a failure does.

:mod:`chalicelib.pipeline.sync_mining` carries them out against the item's SYNC row
(:class:`~chalicelib.data.sync_state.SyncState`, as read):

* a pull (:func:`start_pull`) resumes its own loop when it is a redelivery, asks a live loop
  for a follow-up, takes over a loop with no progress for too long, or starts one;
* a step (:func:`step`) reads its page only when the row names it; a step the row moved past
  queues what follows again (it may have died before queuing it); any other is stale;
* a failed page (:func:`page_failure`) restarts the loop (Plaid's mutation error, or a cursor
  Plaid refuses: then from no cursor), ends it (an error no retry can fix), or is retried;
* a page (:func:`read_page`) goes on the stream as one record; the loop's last page commits,
  with a follow-up loop when a pull was wanted (:func:`follow_up`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from enum import StrEnum
from typing import Any

from chalicelib.data.sync_state import SyncState
from chalicelib.pipeline.decisions import Drop
from chalicelib.pipeline.messages import PageRecord
from chalicelib.plaid.errors import PlaidInvalidInputError, PlaidItemError, PlaidSyncMutationError

#: The error Plaid answers for a cursor it does not know for this access token.
INVALID_CURSOR_CODE = "INVALID_FIELD"


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


# --- a pull ----------------------------------------------------------------------------------------


class PullStart(StrEnum):
    REDELIVERED = "redelivered"  # this webhook's loop ran or runs: carry on as its first page
    WANT = "want"  # a live loop runs: ask it to pull again when it ends
    TAKE_OVER = "take_over"  # a loop runs with no progress for too long: start a new one over it
    START = "start"  # no loop runs: start one from the committed cursor


def start_pull(state: SyncState, mine_id: str, now: datetime, stale_after: timedelta) -> PullStart:
    """What a pull for the webhook ``mine_id`` does, given the item's SYNC row as read."""
    if mine_id in (mine_of(state.loop_id), mine_of(state.last_loop)):
        return PullStart.REDELIVERED
    if not state.running:
        return PullStart.START
    return PullStart.TAKE_OVER if is_stale(state, now, stale_after) else PullStart.WANT


def is_stale(state: SyncState, now: datetime, stale_after: timedelta) -> bool:
    """A loop with no progress for longer than ``stale_after`` (or no readable progress time)."""
    if not state.loop_at:
        return True
    try:
        moment = datetime.fromisoformat(state.loop_at.replace("Z", "+00:00"))
    except ValueError:
        return True
    moment = moment if moment.tzinfo else moment.replace(tzinfo=UTC)
    return now - moment > stale_after


# --- a step ------------------------------------------------------------------------------------------


class StepAction(StrEnum):
    READ = "read"  # the row names this step: read its page
    RESEND = "resend"  # the row moved just past this step: queue the page it names (again)
    ALREADY_PULLED = "already_pulled"  # a redelivered first page whose loop has moved on or ended
    SUPERSEDED = "superseded"  # a later page of a loop that moved on, ended or was taken over


def step(state: SyncState, loop_id: str, page: int) -> StepAction:
    """What step ``(loop_id, page)`` does against the row as read."""
    if state.holds(loop_id, page):
        return StepAction.READ
    if state.holds(loop_id, page + 1) or state.holds(successor(loop_id), 0):
        # This step moved the row on, then may have died before queuing what follows. A
        # duplicate queued this way reads its page once more and stops at its write.
        return StepAction.RESEND
    return StepAction.ALREADY_PULLED if page == 0 else StepAction.SUPERSEDED


def commit_retry(fresh: SyncState, loop_id: str, page: int) -> bool:
    """A commit the row refused: try again with ``fresh`` only if it still names this step
    (a pull was wanted since the read); else another step of the loop or a takeover got there."""
    return fresh.holds(loop_id, page)


def follow_up(state: SyncState) -> str | None:
    """The loop that continues at once after ``state``'s loop commits: one when a pull was wanted."""
    return successor(str(state.loop_id)) if state.wanted else None


# --- a failed page -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Restart:
    """Start the loop again under its successor's id, from the committed cursor or from none."""

    reason: str
    forget_cursor: bool = False


def page_failure(error: Exception, next_cursor: str | None, item_id: str) -> Restart | Drop | None:
    """A page Plaid refused: restart the loop, end it (release the row, drop the message), or ``None``: retry.

    * ``TRANSACTIONS_SYNC_MUTATION_DURING_PAGINATION``: restart from the committed cursor, as Plaid says;
    * ``INVALID_FIELD`` for a cursor: forget it and restart from none (duplicates are upserts);
    * any other invalid request, or an item error no retry can fix: end the loop without committing;
    * anything else (Plaid 5xx or 429, a connection, a product not ready, AWS): retry the message.
    """
    if isinstance(error, PlaidSyncMutationError):
        return Restart("mutation")
    if isinstance(error, PlaidInvalidInputError):
        if error.error_code == INVALID_CURSOR_CODE and next_cursor is not None:
            return Restart("invalid_cursor", forget_cursor=True)
        return Drop("sync_refused", {"item_id": item_id, "error_code": error.error_code})
    if isinstance(error, PlaidItemError) and not error.retryable:
        return Drop("mine_ended", {"item_id": item_id, "error_code": error.error_code})
    return None


# --- a page ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SyncPage:
    """One ``/transactions/sync`` response, as the loop uses it."""

    added: list[dict[str, Any]]
    modified: list[dict[str, Any]]
    removed: list[str]
    accounts: list[dict[str, Any]]
    has_more: bool
    next_cursor: str | None
    update_status: Any

    @property
    def stored(self) -> int:
        """Transactions this page stores (added and modified are both upserts)."""
        return len(self.added) + len(self.modified)

    def record(self, user_id: str, item_id: str, loop_id: str, loop_transactions: int) -> PageRecord:
        """The stream record of this page: upserts as transactions, removals as tombstones.

        The loop's last record says ``announce`` when the loop stored any transaction, so the
        batch event goes out even if this last page holds only removals.
        """
        return PageRecord(
            user_id,
            item_id,
            loop_id,
            last_page=not self.has_more,
            transactions={
                "accounts": self.accounts,
                "transactions": self.added + self.modified,
                "transactions_update_status": self.update_status,
            },
            removed=self.removed or None,
            announce=not self.has_more and loop_transactions + self.stored > 0,
        )


def read_page(response: Mapping[str, Any]) -> SyncPage:
    return SyncPage(
        added=response.get("added") or [],
        modified=response.get("modified") or [],
        removed=[str(r["transaction_id"]) for r in response.get("removed") or []],
        accounts=response.get("accounts") or [],
        has_more=bool(response.get("has_more")),
        next_cursor=response.get("next_cursor") or None,
        update_status=response.get("transactions_update_status"),
    )
