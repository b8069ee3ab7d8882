"""One step of a transactions mine: fetch a page from Plaid, put it on Kinesis, queue the next.

The miner takes the first step for a webhook; the throttle-miner takes every later one
from a MineRequest on the throttle queue, whose 30-second delivery delay spaces the pages.
A page holds up to ``TRANSACTIONS_PAGE_SIZE`` transactions (500 by default) and is the last
when ``total - offset`` fits in it. Records of one item share its id as the partition key, so
its pages and removals reach the refiner in order.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any

from chalicelib.pipeline.decisions.miner import page_plan
from chalicelib.pipeline.effects import Effects
from chalicelib.pipeline.messages import MineRequest, PageRecord
from chalicelib.settings import get_settings


@dataclass(frozen=True)
class ItemRef:
    """What a mine needs of an ITEM row (the access token never leaves this path)."""

    user_id: str
    item_id: str
    access_token: str


@dataclass(frozen=True)
class PageOutcome:
    total: int
    fetched: int
    last_page: bool
    next_offset: int | None
    accounts: list[dict[str, Any]]
    institution_id: str | None


def mine_page(item: ItemRef, start: date, end: date, offset: int, mine_id: str, fx: Effects) -> PageOutcome:
    """Fetch one page at ``offset``, publish it, and queue the next request if more remain."""
    page_size = get_settings().transactions_page_size
    response = fx.plaid.transactions_get(item.access_token, start, end, offset=offset, count=page_size)
    txns = response.get("transactions") or []
    total = int(response.get("total_transactions") or 0)
    last_page, next_offset = page_plan(total, offset, len(txns), page_size)
    accounts: list[dict[str, Any]] = response.get("accounts") or []
    page = {
        "accounts": accounts,
        "transactions": txns,
        "total_transactions": total,
        "item": response.get("item") or {},
    }
    fx.messages.put_records(PageRecord(item.user_id, item.item_id, mine_id, last_page, page))
    if next_offset is not None:
        fx.messages.send_throttled(MineRequest(item.item_id, item.user_id, start, end, next_offset, mine_id).to_json())
    institution = (response.get("item") or {}).get("institution_id")
    return PageOutcome(total, len(txns), last_page, next_offset, accounts, institution)
