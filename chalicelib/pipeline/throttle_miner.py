"""The throttle-miner: takes the next page of a mine from the throttle queue.

The throttle queue's 30-second delivery delay spaces the pages; each step repeats the
miner's until the last page. A message is either a MineRequest (the next ``/transactions/get``
offset) or a SyncRequest (the next page of a ``/transactions/sync`` loop,
:mod:`chalicelib.pipeline.sync_mining`). An item that is gone or removed ends the mine, and so
does a Plaid item error no retry can fix (the user must repair the item first): the rules are
:func:`~chalicelib.pipeline.decisions.miner.screen_step` and
:func:`~chalicelib.pipeline.decisions.miner.later_page_failure`; Plaid, the tables and the
queues are reached through :class:`~chalicelib.pipeline.effects.Effects`. The rules as a table:
``docs/architecture.md#the-miners-rules``.
"""

from __future__ import annotations

from datetime import datetime

from chalicelib.data.ttl import utcnow
from chalicelib.pipeline import sync_mining
from chalicelib.pipeline.batches import DropMessageError
from chalicelib.pipeline.decisions import Drop
from chalicelib.pipeline.decisions import miner as rules
from chalicelib.pipeline.effects import Effects, get_effects
from chalicelib.pipeline.messages import MineRequest, parse_throttle_message
from chalicelib.pipeline.mining import ItemRef, PageOutcome, mine_page
from chalicelib.pipeline.sync_mining import SyncOutcome
from chalicelib.plaid.errors import PlaidItemError


def handle_mine_request_body(
    body: str, now: datetime | None = None, fx: Effects | None = None
) -> PageOutcome | SyncOutcome:
    fx = fx or get_effects()
    request = parse_throttle_message(body)
    item = rules.screen_step(fx.store.get_item(request.user_id, request.item_id), request.item_id)
    if isinstance(item, Drop):
        raise DropMessageError.of(item)
    ref = ItemRef(item.user_id, item.item_id, item.access_token)
    if not isinstance(request, MineRequest):
        return sync_mining.continue_pull(request, ref, now or utcnow(), fx)
    try:
        return mine_page(ref, request.start_date, request.end_date, request.offset, request.mine_id, fx)
    except PlaidItemError as exc:
        ended = rules.later_page_failure(exc, item.item_id)
        if ended is None:
            raise
        raise DropMessageError.of(ended) from exc
