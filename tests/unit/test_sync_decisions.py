"""The ``/transactions/sync`` loop's rules as tables (chalicelib.pipeline.decisions.sync)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from chalicelib.data.sync_state import SyncState
from chalicelib.pipeline.decisions import Drop
from chalicelib.pipeline.decisions.sync import (
    PullStart,
    Restart,
    StepAction,
    commit_retry,
    first_loop,
    follow_up,
    is_stale,
    mine_of,
    page_failure,
    read_page,
    start_pull,
    step,
    successor,
)
from chalicelib.plaid.errors import (
    PlaidInvalidInputError,
    PlaidItemError,
    PlaidItemNotFoundError,
    PlaidProductNotReadyError,
    PlaidRateLimitError,
    PlaidServerError,
    PlaidSyncMutationError,
)

NOW = datetime(2026, 5, 16, 12, 0, tzinfo=UTC)
STALE_AFTER = timedelta(hours=1)


def row(**fields: Any) -> SyncState:
    return SyncState("u", "i", **fields)


def at(**ago: float) -> str:
    return (NOW - timedelta(**ago)).isoformat().replace("+00:00", "Z")


@pytest.mark.parametrize(
    ("loop_id", "expected_successor", "expected_mine"),
    [
        ("m1.0", "m1.1", "m1"),
        ("m1.9", "m1.10", "m1"),
        ("a.b.2", "a.b.3", "a.b"),
        ("plain", "plain.1", "plain"),
        ("m1.x", "m1.x.1", "m1.x"),
    ],
)
def test_loop_ids(loop_id: str, expected_successor: str, expected_mine: str) -> None:
    assert successor(loop_id) == expected_successor
    assert mine_of(loop_id) == expected_mine
    assert first_loop("m1") == "m1.0" and mine_of(None) is None


@pytest.mark.parametrize(
    ("state", "expected"),
    [
        # no loop: start one from the committed cursor
        (row(), PullStart.START),
        (row(cursor="c1", last_loop="old.0"), PullStart.START),
        # this webhook's own loop runs, or ran: a redelivery, carried on as its first page
        (row(loop_id="m1.0", page=2, loop_at=at(minutes=1)), PullStart.REDELIVERED),
        (row(loop_id="m1.1", page=0, loop_at=at(hours=5)), PullStart.REDELIVERED),
        (row(cursor="c1", last_loop="m1.0"), PullStart.REDELIVERED),
        # another live loop: ask it to pull again when it ends
        (row(loop_id="other.0", loop_at=at(minutes=59)), PullStart.WANT),
        (row(loop_id="other.0", loop_at=at(hours=1)), PullStart.WANT),
        # another loop with no progress for longer than the limit (or none readable): take it over
        (row(loop_id="other.0", loop_at=at(hours=1, seconds=1)), PullStart.TAKE_OVER),
        (row(loop_id="other.0", loop_at=None), PullStart.TAKE_OVER),
        (row(loop_id="other.0", loop_at="yesterday"), PullStart.TAKE_OVER),
    ],
)
def test_start_pull(state: SyncState, expected: PullStart) -> None:
    # GIVEN the item's SYNC row as read WHEN the webhook m1 pulls THEN
    assert start_pull(state, "m1", NOW, STALE_AFTER) is expected


def test_a_progress_time_without_a_zone_is_utc() -> None:
    naive = (NOW - timedelta(minutes=30)).replace(tzinfo=None).isoformat()
    assert not is_stale(row(loop_id="x.0", loop_at=naive), NOW, STALE_AFTER)


@pytest.mark.parametrize(
    ("state", "loop_id", "page", "expected"),
    [
        # the row names this step: read its page
        (row(loop_id="m.0", page=0), "m.0", 0, StepAction.READ),
        (row(loop_id="m.0", page=3), "m.0", 3, StepAction.READ),
        # the row moved just past it (the next page, or a follow-up loop): queue that again
        (row(loop_id="m.0", page=4), "m.0", 3, StepAction.RESEND),
        (row(loop_id="m.1", page=0), "m.0", 3, StepAction.RESEND),
        (row(loop_id="m.1", page=0), "m.0", 0, StepAction.RESEND),
        # anything else is stale
        (row(loop_id="m.0", page=5), "m.0", 3, StepAction.SUPERSEDED),
        (row(loop_id="other.0", page=1), "m.0", 3, StepAction.SUPERSEDED),
        (row(last_loop="m.0"), "m.0", 3, StepAction.SUPERSEDED),
        (row(last_loop="m.0"), "m.0", 0, StepAction.ALREADY_PULLED),
        (row(loop_id="other.0"), "m.0", 0, StepAction.ALREADY_PULLED),
    ],
)
def test_step(state: SyncState, loop_id: str, page: int, expected: StepAction) -> None:
    assert step(state, loop_id, page) is expected


def test_a_refused_commit_is_tried_again_only_while_the_row_names_the_step() -> None:
    assert commit_retry(row(loop_id="m.0", page=2, wanted="w"), "m.0", 2)
    assert not commit_retry(row(last_loop="m.0"), "m.0", 2)
    assert not commit_retry(row(loop_id="other.0"), "m.0", 2)


def test_a_wanted_pull_continues_as_the_successor_loop() -> None:
    assert follow_up(row(loop_id="m.0", wanted="w1")) == "m.1"
    assert follow_up(row(loop_id="m.0")) is None


@pytest.mark.parametrize(
    ("error", "next_cursor", "expected"),
    [
        (
            PlaidSyncMutationError("changed", error_code="TRANSACTIONS_SYNC_MUTATION_DURING_PAGINATION"),
            "c1",
            Restart("mutation"),
        ),
        (PlaidSyncMutationError("changed"), None, Restart("mutation")),
        # a cursor Plaid refuses is forgotten; without a cursor there is nothing to forget
        (
            PlaidInvalidInputError("bad", error_code="INVALID_FIELD"),
            "c1",
            Restart("invalid_cursor", forget_cursor=True),
        ),
        (
            PlaidInvalidInputError("bad", error_code="INVALID_FIELD"),
            None,
            Drop("sync_refused", {"item_id": "i", "error_code": "INVALID_FIELD"}),
        ),
        (
            PlaidInvalidInputError("bad", error_code="INVALID_API_KEYS"),
            "c1",
            Drop("sync_refused", {"item_id": "i", "error_code": "INVALID_API_KEYS"}),
        ),
        # an item error no retry can fix ends the loop
        (
            PlaidItemError("login", error_code="ITEM_LOGIN_REQUIRED"),
            "c1",
            Drop("mine_ended", {"item_id": "i", "error_code": "ITEM_LOGIN_REQUIRED"}),
        ),
        (
            PlaidItemNotFoundError("gone", error_code="ITEM_NOT_FOUND"),
            None,
            Drop("mine_ended", {"item_id": "i", "error_code": "ITEM_NOT_FOUND"}),
        ),
        # anything a retry may fix is retried
        (PlaidProductNotReadyError("later", error_code="PRODUCT_NOT_READY"), "c1", None),
        (PlaidServerError("5xx", error_code="INTERNAL_SERVER_ERROR"), "c1", None),
        (PlaidRateLimitError("429", error_code="TRANSACTIONS_SYNC_LIMIT"), "c1", None),
        (ConnectionError("reset"), "c1", None),
    ],
)
def test_page_failure(error: Exception, next_cursor: str | None, expected: Any) -> None:
    assert page_failure(error, next_cursor, "i") == expected


def page(has_more: bool, added: int = 0, modified: int = 0, removed: int = 0) -> dict[str, Any]:
    return {
        "added": [{"transaction_id": f"a{n}"} for n in range(added)],
        "modified": [{"transaction_id": f"m{n}"} for n in range(modified)],
        "removed": [{"transaction_id": f"r{n}"} for n in range(removed)],
        "accounts": [{"account_id": "acct"}],
        "has_more": has_more,
        "next_cursor": "next",
        "transactions_update_status": "HISTORICAL_UPDATE_COMPLETE",
    }


@pytest.mark.parametrize(
    ("response", "loop_transactions", "last", "announce", "removed"),
    [
        # a middle page is never the last and never announces
        (page(True, added=40), 0, False, False, None),
        # the last page announces when the loop stored anything, on this page or an earlier one
        (page(False, added=2), 0, True, True, None),
        (page(False, modified=1), 0, True, True, None),
        (page(False, removed=3), 80, True, True, ["r0", "r1", "r2"]),
        # a loop that stored nothing announces nothing
        (page(False, removed=1), 0, True, False, ["r0"]),
        (page(False), 0, True, False, None),
    ],
)
def test_a_page_becomes_one_stream_record(
    response: dict[str, Any], loop_transactions: int, last: bool, announce: bool, removed: list[str] | None
) -> None:
    read = read_page(response)
    record = read.record("u", "i", "m.0", loop_transactions)
    assert (record.last_page, record.announce, record.removed) == (last, announce, removed)
    assert record.mine_id == "m.0" and record.transactions is not None
    # added and modified are both upserts
    assert len(record.transactions["transactions"]) == read.stored == len(response["added"]) + len(response["modified"])
    assert read.next_cursor == "next" and read.has_more is response["has_more"]


def test_an_empty_next_cursor_reads_as_none() -> None:
    assert read_page({**page(False), "next_cursor": ""}).next_cursor is None
