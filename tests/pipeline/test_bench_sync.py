"""The mining benchmark runs both modes end to end and counts what sync adds."""

from __future__ import annotations

import pytest

from ops.bench_sync import TRANSACTIONS, measure, report

pytestmark = pytest.mark.integration


def test_the_benchmark_mines_both_ways_and_sync_adds_only_its_cursor_writes(aws_endpoint: str) -> None:
    # GIVEN the session's local AWS WHEN both modes mine 1,000 transactions
    get, sync = measure()
    # THEN each read two 500-transaction pages from Plaid
    assert (get.transactions, get.plaid_calls, sync.plaid_calls) == (TRANSACTIONS, 2, 2)
    # AND sync writes what /get writes plus its SYNC row: the loop's start, one advance, the commit
    assert sync.item_writes - get.item_writes == 3
    # AND the rows go in as many batches, give or take one per page: each page's rows are packed
    # into 25-row batches of their own, and the two items' random rows (accounts, the categories
    # one of them is the first to use) can need one more batch on either page
    assert abs(sync.batch_writes - get.batch_writes) <= get.plaid_calls
    # AND the report prints both figures
    lines = report(get, sync)
    assert "/transactions/get:" in lines[1] and "/transactions/sync:" in lines[2]
