"""Linking banks: Link tokens, adding an item from a public token, and Plaid Layer.

Adding an item (from Link or from a Layer stub) always does the same steps, each safe to
repeat: create the ITEM row (conditional: a second create changes nothing) with its accounts
as Plaid lists them now, retire the user's older items of the same login (see below), then
queue a synthetic TRANSACTIONS
HISTORICAL_UPDATE (``FROM_ADD_ITEM`` / ``FROM_LAYER_STUB``) so the new item is mined now
rather than when Plaid's own webhooks arrive. The window is 180 days, what Link asked for.

**Re-link rule** (:mod:`chalicelib.pipeline.relink`): linking a login the user already has
(same institution, equal set of account masks, types and subtypes as Plaid listed them at
link time) replaces the older item; the newest link survives. The older item is removed by
:func:`chalicelib.pipeline.removal.remove_item` (reason
:data:`~chalicelib.data.items.REMOVED_REASON_RELINKED`). A failure part way never fails the
link (the public token is already spent, so the client could not retry): the queued
synthetic webhook's handling finishes it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from chalicelib.data import institutions, items, layers
from chalicelib.data.items import Item, ItemStatus
from chalicelib.data.ttl import LAYER_TTL_DAYS, days_from, epoch, iso_timestamp
from chalicelib.data.webhook_info import WebhookSource
from chalicelib.errors import BadRequestBodyError, NotFoundError, ServiceError
from chalicelib.observability import count, logger
from chalicelib.pipeline import relink
from chalicelib.pipeline.intake import enqueue_synthetic
from chalicelib.plaid.client import get_plaid
from chalicelib.plaid.errors import PlaidError, PlaidInvalidInputError
from chalicelib.settings import get_settings

REMOVED_REASON_RELINKED = items.REMOVED_REASON_RELINKED
ADD_ITEM_WEBHOOK_CODE = "HISTORICAL_UPDATE"
INVALID_PUBLIC_TOKEN = "INVALID_PUBLIC_TOKEN"  # noqa: S105 - a Plaid error code


class PublicTokenNotFoundError(NotFoundError):
    """Plaid does not know the public token (never issued, expired or already exchanged)."""


class LayerResultsNotFoundError(NotFoundError):
    """No Layer stub for this public token and user (never stored, consumed or expired)."""


@dataclass(frozen=True)
class LinkedItem:
    item: Item
    replaced_item_ids: tuple[str, ...]


# --- Link -----------------------------------------------------------------------------


def create_link_token(user_id: str, item_id: str | None = None) -> dict[str, Any]:
    """A Link token for a new item (180 days of history), or update mode for ``item_id``."""
    access_token = None
    if item_id is not None:
        access_token = live_item(user_id, item_id).access_token
    response = get_plaid().link_token_create(
        client_user_id=user_id, webhook=get_settings().plaid_webhook_url, access_token=access_token
    )
    return {"link_token": str(response["link_token"]), "expiration": str(response["expiration"])}


def live_item(user_id: str, item_id: str) -> Item:
    """The user's item, refusing an unknown (404) or removed (409) one."""
    item = items.get_item(user_id, item_id)
    if item is None:
        raise items.ItemNotFoundError(f"item {item_id} not found")
    if item.status is ItemStatus.REMOVED:
        raise items.ItemRemovedError(f"item {item_id} is removed")
    return item


def add_item(
    user_id: str, public_token: str, main_account_id: str | None, purpose: str, *, is_override: bool, now: datetime
) -> LinkedItem:
    """Exchange the public token and add the item (see the module docstring)."""
    try:
        exchange = get_plaid().item_public_token_exchange(public_token)
    except PlaidInvalidInputError as exc:
        if exc.error_code == INVALID_PUBLIC_TOKEN:
            raise PublicTokenNotFoundError("the public token is unknown, expired or already exchanged") from exc
        raise
    return _link(
        user_id,
        str(exchange["item_id"]),
        str(exchange["access_token"]),
        main_account_id,
        purpose,
        WebhookSource.FROM_ADD_ITEM,
        is_override=is_override,
        now=now,
    )


def _link(
    user_id: str,
    item_id: str,
    access_token: str,
    main_account_id: str | None,
    purpose: str,
    source: WebhookSource,
    *,
    is_override: bool,
    now: datetime,
) -> LinkedItem:
    state = get_plaid().item_get(access_token)
    plaid_item = state.get("item") or {}
    institution_id = plaid_item.get("institution_id")
    pending = purpose in ("PREQUAL", "REACTIVATION")
    fresh = items.plaid_item_state(state)
    item = Item(
        user_id=user_id,
        item_id=item_id,
        access_token=access_token,
        institution_id=institution_id,
        institution_name=plaid_item.get("institution_name") or _institution_name(institution_id),
        status=fresh.status,
        error_code=fresh.error_code,
        available_products=fresh.available_products,
        billed_products=fresh.billed_products,
        last_successful_update=fresh.last_successful_update,
        created_at=iso_timestamp(now),
        main_account_id=main_account_id,
        source=items.ITEM_SOURCE_PREQUAL if purpose == "PREQUAL" else None,
        ttl=epoch(now + timedelta(days=get_settings().pending_item_ttl_days)) if pending else None,
        link_accounts=_link_accounts(item_id, access_token),
        mining_mode=items.MiningMode(get_settings().new_item_mining_mode),
    )
    if not items.create_item(item, now):
        stored = items.get_item(user_id, item_id)
        if stored is None:  # created and expired in between: nothing left to link
            raise items.ItemNotFoundError(f"item {item_id} not found")
        item = stored
    payload: dict[str, Any] = {
        "webhook_type": "TRANSACTIONS",
        "webhook_code": ADD_ITEM_WEBHOOK_CODE,
        "item_id": item_id,
    }
    if is_override:
        payload["is_override"] = True
    # The rule runs first (best effort), then the mine is queued: whichever of the two fails,
    # the other still happens, and the miner applies the rule again for this message.
    replaced = _apply_relink_rule(item, is_override=is_override, now=now)
    enqueue_synthetic(source.value, payload, now)
    count("api.item.linked", source=source.value)
    return LinkedItem(item, replaced)


def _link_accounts(item_id: str, access_token: str) -> frozenset[items.LinkAccount] | None:
    """The item's accounts as Plaid lists them now, at link time (None if Plaid does not answer).

    They decide whether a later link is the same login; unknown accounts never match.
    """
    try:
        response = get_plaid().accounts_get(access_token)
    except PlaidError as exc:
        logger.warning("accounts unknown at link time", extra={"item_id": item_id, "plaid_error": exc.describe()})
        count("api.item.link_accounts_unknown")
        return None
    return items.link_accounts_from(response.get("accounts"))


def _apply_relink_rule(item: Item, *, is_override: bool, now: datetime) -> tuple[str, ...]:
    """The re-link rule, in the request: best effort, because the public token is spent.

    The items it replaces are decided here and answered; if removing them fails part way,
    the queued synthetic webhook's handling finishes it (``api.item.relink_deferred``).
    """
    older = relink.older_logins(item)
    try:
        return relink.retire(item, older, is_override=is_override, now=now)
    except ServiceError as exc:
        logger.warning(
            "re-link rule not finished in the request; the item's first mine finishes it",
            extra={"item_id": item.item_id, "error_class": type(exc).__name__},
        )
        count("api.item.relink_deferred")
        return tuple(o.item_id for o in older)


def _institution_name(institution_id: str | None) -> str | None:
    if not institution_id:
        return None
    found = institutions.get_institution(institution_id)
    return found.name if found else None


# --- Layer ----------------------------------------------------------------------------


def start_layer_session(user_id: str) -> dict[str, Any]:
    """A Layer session (Link token) for the configured template."""
    settings = get_settings()
    response = get_plaid().session_token_create(
        template_id=settings.plaid_layer_template_id, client_user_id=user_id, webhook=settings.plaid_webhook_url
    )
    link = response.get("link") or {}
    return {"link_token": str(link["link_token"]), "expiration": str(link["expiration"])}


def store_layer_results(user_id: str, public_token: str, now: datetime) -> dict[str, Any]:
    """Read a finished Layer session from Plaid and keep its items as a 7-day stub."""
    stub = layers.get_layer_stub(public_token, now=now)
    if stub is None or stub.user_id != user_id:
        try:
            session = get_plaid().user_account_session_get(public_token)
        except PlaidInvalidInputError as exc:
            if exc.error_code == INVALID_PUBLIC_TOKEN:
                raise PublicTokenNotFoundError("the Layer public token is unknown or expired") from exc
            raise
        entries = tuple(
            layers.LayerStubEntry(str(entry["item_id"]), str(entry["access_token"]))
            for entry in session.get("items") or []
        )
        stub = layers.LayerStub(public_token=public_token, user_id=user_id, items=entries)
        layers.put_layer_stub(stub, now)
        stub = layers.LayerStub(public_token, user_id, entries, days_from(now, LAYER_TTL_DAYS))
    return {"item_ids": [e.item_id for e in stub.items], "expires_at": _epoch_text(stub.ttl)}


def create_layer_items(
    user_id: str,
    public_token: str,
    item_ids: Sequence[str] | None,
    main_account_id: str | None,
    purpose: str,
    *,
    is_override: bool,
    now: datetime,
) -> list[LinkedItem]:
    """Create the user's items from the stub (all, or ``item_ids``), then consume those entries."""
    stub = layers.get_layer_stub(public_token, now=now)
    if stub is None or stub.user_id != user_id:
        raise LayerResultsNotFoundError("no Layer results for this public token")
    wanted = list(dict.fromkeys(item_ids)) if item_ids else [e.item_id for e in stub.items]
    by_id = {e.item_id: e for e in stub.items}
    unknown = [i for i in wanted if i not in by_id]
    if unknown:
        raise BadRequestBodyError("item ids not in this Layer session", {"fields": {"item_ids": unknown}})
    if main_account_id is not None and len(wanted) != 1:
        details = {"fields": {"main_account_id": ["needs exactly one item"]}}
        raise BadRequestBodyError("main_account_id needs exactly one item", details)
    linked = [
        _link(
            user_id,
            item_id,
            by_id[item_id].access_token,
            main_account_id,
            purpose,
            WebhookSource.FROM_LAYER_STUB,
            is_override=is_override,
            now=now,
        )
        for item_id in wanted
    ]
    layers.consume_layer_stub(public_token, user_id, wanted)
    return linked


def _epoch_text(ttl: int | None) -> str | None:
    if ttl is None:
        return None
    return datetime.fromtimestamp(ttl, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
