"""One step of a transactions mine: fetch a page from Plaid, put it on Kinesis, queue the next.

The miner takes the first step for a webhook; the throttle-miner takes every later one
from a MineRequest on the throttle queue, whose 30-second delivery delay spaces the pages.
A page is the last when ``total - offset <= 500``. Records of one item share its id as the
partition key, so its pages and removals reach the refiner in order.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any

from chalicelib.aws.messaging import put_record, send_message
from chalicelib.pipeline.messages import MineRequest, PageRecord, encode_page_record
from chalicelib.plaid.client import get_plaid
from chalicelib.settings import get_settings

PAGE_SIZE = 500


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


def mine_page(item: ItemRef, start: date, end: date, offset: int, mine_id: str) -> PageOutcome:
    """Fetch one page at ``offset``, publish it, and queue the next request if more remain."""
    response = get_plaid().transactions_get(item.access_token, start, end, offset=offset, count=PAGE_SIZE)
    txns = response.get("transactions") or []
    total = int(response.get("total_transactions") or 0)
    # An empty page ends the mine even if the total says otherwise, so paging always ends.
    last_page = total - offset <= PAGE_SIZE or not txns
    accounts: list[dict[str, Any]] = response.get("accounts") or []
    page = {
        "accounts": accounts,
        "transactions": txns,
        "total_transactions": total,
        "item": response.get("item") or {},
    }
    put_records(PageRecord(item.user_id, item.item_id, mine_id, last_page, page))
    next_offset = None if last_page else offset + len(txns)
    if next_offset is not None:
        request = MineRequest(item.item_id, item.user_id, start, end, next_offset, mine_id)
        settings = get_settings()
        send_message(settings.throttle_queue, request.to_json(), delay_seconds=settings.throttle_delay_seconds)
    institution = (response.get("item") or {}).get("institution_id")
    return PageOutcome(total, len(txns), last_page, next_offset, accounts, institution)


def put_records(record: PageRecord) -> int:
    """Put a record (split if needed) on the stream in order; returns the parts written."""
    stream = get_settings().transactions_stream
    previous: str | None = None
    payloads = encode_page_record(record)
    for payload in payloads:
        previous = put_record(stream, payload, record.item_id, after_sequence=previous)
    return len(payloads)
