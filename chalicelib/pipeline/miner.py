"""The miner: routes each webhook message (``docs/architecture.md#the-miners-rules``).

1. Parse; an unknown ``webhook_type`` or ITEM code is dropped without retry.
2. ``WEBHOOK_UPDATE_ACKNOWLEDGED``: done.
3. IDENTITY_VERIFICATION and SCREENING carry no item id: straight to the KYC handler.
4. Look the item up by id; not found: dropped.
5. A REMOVED item and ``source=FROM_LISTENER``: dropped.
6. Refresh the item from Plaid (status, error code, products, update times), except for a
   ``USER_PERMISSION_REVOKED``: that item is being removed, and a redelivery must get past
   a token already revoked and a row already REMOVED to finish the removal.
7. Route by type; every handled webhook writes a WEBHOOK_INFO row.

A synthetic webhook for a newly linked item (``FROM_ADD_ITEM``, ``FROM_LAYER_STUB``) also
applies the re-link rule (:mod:`chalicelib.pipeline.relink`) before it mines, so the rule
completes under the queue's retries whatever happened to it during the link request.

Every rule above is a pure function of :mod:`chalicelib.pipeline.decisions.miner`; this module
carries them out, reaching Plaid, the tables, the stream and the queues only through
:class:`~chalicelib.pipeline.effects.Effects`.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from chalicelib.data import items
from chalicelib.data.ttl import utcnow
from chalicelib.data.webhook_info import UpdateInfo, WebhookInfo, WebhookSource
from chalicelib.pipeline import kyc, lifecycle, sync_mining
from chalicelib.pipeline.batches import DropMessageError
from chalicelib.pipeline.decisions import Drop
from chalicelib.pipeline.decisions import miner as rules
from chalicelib.pipeline.decisions.miner import (
    AUTH,
    ITEM,
    LIABILITIES,
    TRANSACTIONS,
    MineWindow,
    PullBySync,
    PutRemovals,
    Screen,
)
from chalicelib.pipeline.effects import Effects, get_effects
from chalicelib.pipeline.messages import PageRecord, WebhookMessage, parse_webhook_message
from chalicelib.pipeline.mining import ItemRef, mine_page
from chalicelib.plaid.errors import PlaidItemError, PlaidItemNotFoundError


def handle_webhook_body(body: str, now: datetime | None = None, fx: Effects | None = None) -> None:
    """Route one queue message (raises to retry, DropMessageError to drop)."""
    route_webhook(parse_webhook_message(body), now or utcnow(), fx)


def route_webhook(message: WebhookMessage, now: datetime, fx: Effects | None = None) -> None:
    fx = fx or get_effects()
    screened = rules.screen(message)
    if isinstance(screened, Drop):
        raise DropMessageError.of(screened)
    if screened is Screen.DONE:
        return
    if screened is Screen.KYC:
        kyc.handle_kyc_webhook(message, now, fx)
        return
    plan = rules.plan_for_item(message, fx.store.get_item_by_id(str(message.item_id)))
    if isinstance(plan, Drop):
        raise DropMessageError.of(plan)
    item = plan.item
    if plan.relink:
        fx.removals.retire_older_logins(item, is_override=plan.is_override, now=now)
    if plan.refresh:
        item = refresh_item(item, fx)
    update_info = ROUTES[plan.route](message, item, now, fx)
    fx.store.record_webhook(
        WebhookInfo(
            user_id=item.user_id,
            item_id=item.item_id,
            webhook_type=message.webhook_type,
            webhook_code=message.webhook_code,
            source=WebhookSource(message.source),
            received_at=datetime.fromisoformat(message.received_at.replace("Z", "+00:00")),
            message_id=message.message_id,
            payload=message.to_json(),
            update_info=update_info,
        )
    )


def refresh_item(item: items.Item, fx: Effects) -> items.Item:
    """Bring the ITEM row up to date with Plaid's view of the item (the module's routing, step 6)."""
    try:
        response = fx.plaid.item_get(item.access_token)
    except PlaidItemNotFoundError as exc:
        raise DropMessageError("item_gone_at_plaid", item_id=item.item_id) from exc
    try:
        return fx.store.refresh_from_plaid(item, response)
    except items.ItemRemovedError as exc:
        raise DropMessageError("item_removed", item_id=item.item_id) from exc


# --- TRANSACTIONS ---------------------------------------------------------------------


def route_transactions(message: WebhookMessage, item: items.Item, now: datetime, fx: Effects) -> UpdateInfo | None:
    plan = rules.plan_transactions(message, item, now)
    if isinstance(plan, PullBySync):
        return pull_by_sync(message, item, plan, now, fx)
    if isinstance(plan, PutRemovals):
        fx.messages.put_records(
            PageRecord(item.user_id, item.item_id, message.message_id, True, None, list(plan.removed))
        )
        return None
    return mine_window(message, item, plan, fx)


def mine_window(message: WebhookMessage, item: items.Item, window: MineWindow, fx: Effects) -> UpdateInfo:
    """The first page of a ``/transactions/get`` mine; a Plaid item error may end it (no retry)."""
    ref = ItemRef(item.user_id, item.item_id, item.access_token)
    try:
        outcome = mine_page(ref, window.start, window.end, 0, message.message_id, fx)
    except PlaidItemError as exc:
        ended = rules.first_page_failure(message.webhook_code, exc, item.item_id)
        if ended is None:
            raise
        raise DropMessageError.of(ended) from exc
    return rules.mine_info(outcome.total, outcome.accounts, outcome.institution_id)


def pull_by_sync(
    message: WebhookMessage, item: items.Item, plan: PullBySync, now: datetime, fx: Effects
) -> UpdateInfo | None:
    """A sync item pulls from its committed cursor (:mod:`.sync_mining`), after putting its removals, if any.

    The WEBHOOK_INFO row records the first page's updates (added, modified, removed) and
    accounts; a pull that joined a running loop records none.
    """
    if plan.removed:
        fx.messages.put_records(
            PageRecord(item.user_id, item.item_id, message.message_id, True, None, list(plan.removed))
        )
    ref = ItemRef(item.user_id, item.item_id, item.access_token)
    outcome = sync_mining.start_pull(ref, message.message_id, now, fx)
    return rules.pull_info(outcome.action, outcome.updates, outcome.accounts, item.institution_id)


Route = Callable[[WebhookMessage, items.Item, datetime, Effects], UpdateInfo | None]

ROUTES: dict[str, Route] = {
    TRANSACTIONS: route_transactions,
    ITEM: lifecycle.route_item,
    AUTH: lifecycle.route_auth,
    LIABILITIES: lifecycle.route_liabilities,
}
