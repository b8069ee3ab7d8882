"""The throttle-miner: takes the next page of a mine from the throttle queue (seed 002, Pagination).

The throttle queue's 30-second delivery delay spaces the pages; each step repeats the
miner's until the last page. A message is either a MineRequest (the next ``/transactions/get``
offset) or a SyncRequest (the next page of a ``/transactions/sync`` loop,
:mod:`chalicelib.pipeline.sync_mining`). An item that is gone or removed ends the mine, and so
does a Plaid item error no retry can fix (the user must repair the item first).
"""

from __future__ import annotations

from datetime import datetime

from chalicelib.data import items
from chalicelib.data.ttl import utcnow
from chalicelib.pipeline import sync_mining
from chalicelib.pipeline.batches import DropMessageError
from chalicelib.pipeline.messages import MineRequest, parse_throttle_message
from chalicelib.pipeline.mining import ItemRef, PageOutcome, mine_page
from chalicelib.pipeline.sync_mining import SyncOutcome
from chalicelib.plaid.errors import PlaidItemError


def handle_mine_request_body(body: str, now: datetime | None = None) -> PageOutcome | SyncOutcome:
    request = parse_throttle_message(body)
    item = items.get_item(request.user_id, request.item_id)
    if item is None:
        raise DropMessageError("item_not_found", item_id=request.item_id)
    if item.status == items.ItemStatus.REMOVED:
        raise DropMessageError("item_removed", item_id=request.item_id)
    ref = ItemRef(item.user_id, item.item_id, item.access_token)
    if not isinstance(request, MineRequest):
        return sync_mining.continue_pull(request, ref, now or utcnow())
    try:
        return mine_page(ref, request.start_date, request.end_date, request.offset, request.mine_id)
    except PlaidItemError as exc:
        if exc.retryable:
            raise
        raise DropMessageError("mine_ended", item_id=item.item_id, error_code=exc.error_code) from exc
