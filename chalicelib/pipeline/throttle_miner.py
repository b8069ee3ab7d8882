"""The throttle-miner: takes the next page of a mine from a MineRequest (seed 002, Pagination).

The throttle queue's 30-second delivery delay spaces the pages; each step repeats the
miner's until the last page. An item that is gone or removed ends the mine, and so does
a Plaid item error no retry can fix (the user must repair the item first).
"""

from __future__ import annotations

from chalicelib.data import items
from chalicelib.pipeline.batches import DropMessageError
from chalicelib.pipeline.messages import parse_mine_request
from chalicelib.pipeline.mining import ItemRef, PageOutcome, mine_page
from chalicelib.plaid.errors import PlaidItemError


def handle_mine_request_body(body: str) -> PageOutcome:
    request = parse_mine_request(body)
    item = items.get_item(request.user_id, request.item_id)
    if item is None:
        raise DropMessageError("item_not_found", item_id=request.item_id)
    if item.status == items.ItemStatus.REMOVED:
        raise DropMessageError("item_removed", item_id=request.item_id)
    try:
        return mine_page(
            ItemRef(item.user_id, item.item_id, item.access_token),
            request.start_date,
            request.end_date,
            request.offset,
            request.mine_id,
        )
    except PlaidItemError as exc:
        if exc.retryable:
            raise
        raise DropMessageError("mine_ended", item_id=item.item_id, error_code=exc.error_code) from exc
