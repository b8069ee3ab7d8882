"""The pipeline's one seam to the world: every side effect of the miner, throttle-miner, listener and feeder.

The consumers decide with pure functions (:mod:`chalicelib.pipeline.decisions`) and act only
through an :class:`Effects`: Plaid, the peer services, the tables, the queues and the stream,
the event bus, and the removal workflows (each a port below, typed as a Protocol). The live
one is built in one place, :func:`get_effects`; each entry point takes an optional ``fx`` and
uses the live one when none is given, so a test of the orchestration passes an ``Effects`` of
recording fakes instead of patching modules.

The live ports build nothing when they are built: each call imports its module and asks the
process-wide factory for its client (:func:`~chalicelib.plaid.client.get_plaid`,
``chalicelib.peers``, ``chalicelib.aws.clients``) at that moment, so a handler loads and
builds only what its path uses, and a reset of those factories (tests, settings) is seen at
once.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from collections.abc import Sequence

    from chalicelib.data.accounts import Account
    from chalicelib.data.identity_verifications import IdentityVerification
    from chalicelib.data.items import Item
    from chalicelib.data.liabilities import Liability
    from chalicelib.data.sync_state import SyncState
    from chalicelib.data.webhook_info import WebhookInfo
    from chalicelib.peers import User
    from chalicelib.pipeline.messages import PageRecord, WebhookMessage
    from chalicelib.pipeline.removal import Removal, RemovalOutcome, RevokeResult


# --- the ports ----------------------------------------------------------------------------------------


class PlaidPort(Protocol):
    """The Plaid calls the pipeline makes (:class:`~chalicelib.plaid.client.PlaidClient`)."""

    def item_get(self, access_token: str) -> dict[str, Any]: ...

    def transactions_get(
        self, access_token: str, start_date: date, end_date: date, *, offset: int = ..., count: int = ...
    ) -> dict[str, Any]: ...

    def transactions_sync(self, access_token: str, *, cursor: str | None = ..., count: int = ...) -> dict[str, Any]: ...

    def liabilities_get(self, access_token: str, *, account_ids: Sequence[str] | None = ...) -> dict[str, Any]: ...

    def identity_verification_get(self, identity_verification_id: str) -> dict[str, Any]: ...

    def watchlist_screening_individual_get(self, watchlist_screening_id: str) -> dict[str, Any]: ...


class PeersPort(Protocol):
    """The User Service, Segment and the Payments Service."""

    def get_user(self, user_id: str) -> User:
        """The user, or ``UserNotFoundError`` / ``UserServiceError``."""

    def item_repaired(self, user_id: str, item_id: str, *, message_id: str, institution_id: str | None) -> str: ...

    def item_errored(
        self, user_id: str, item_id: str, error_code: str | None, *, message_id: str, institution_id: str | None
    ) -> str: ...

    def delete_bank_account(self, user_id: str) -> bool: ...


class StorePort(Protocol):
    """The rows the pipeline reads and writes (the data layer, one method per access)."""

    def get_item_by_id(self, item_id: str) -> Item | None: ...

    def get_item(self, user_id: str, item_id: str) -> Item | None: ...

    def list_items(self, user_id: str) -> list[Item]: ...

    def refresh_from_plaid(self, item: Item, response: dict[str, Any]) -> Item:
        """The ITEM row updated from ``/item/get`` (``ItemRemovedError`` for a REMOVED row)."""

    def create_item(self, item: Item, now: datetime) -> bool: ...

    def record_webhook(self, info: WebhookInfo) -> WebhookInfo: ...

    def transaction_webhooks(self, item_id: str, now: datetime) -> list[WebhookInfo]: ...

    def get_account(self, user_id: str, acct_id: str) -> Account | None: ...

    def store_liabilities(self, found: list[Liability]) -> list[Liability]: ...

    def put_identity_verification(self, idv: IdentityVerification) -> None: ...

    def find_by_watchlist_screening(self, user_id: str, screening_id: str) -> IdentityVerification | None: ...

    def set_watchlist_status(self, user_id: str, idv_id: str, status: str) -> IdentityVerification: ...

    def get_sync_state(self, user_id: str, item_id: str) -> SyncState: ...

    def start_loop(self, current: SyncState, loop_id: str, now: datetime) -> bool: ...

    def want_pull(self, current: SyncState, mine_id: str) -> bool: ...

    def advance(self, current: SyncState, next_cursor: str | None, transactions: int, now: datetime) -> bool: ...

    def restart_loop(self, current: SyncState, loop_id: str, now: datetime, *, forget_cursor: bool) -> bool: ...

    def commit(self, current: SyncState, next_cursor: str | None, now: datetime, *, follow_up: str | None) -> bool: ...

    def release(self, current: SyncState) -> bool: ...


class MessagesPort(Protocol):
    """The transactions stream, the throttle queue and the webhooks queue."""

    def put_records(self, record: PageRecord) -> int:
        """Put a page record on the stream (split if needed), in order; returns the parts written."""

    def send_throttled(self, body: str) -> None:
        """Queue the next step of a mine on the throttle queue (its delivery delay spaces the pages)."""

    def enqueue_webhook(self, source: str, payload: dict[str, Any], now: datetime) -> WebhookMessage:
        """Queue a synthetic webhook (``source`` says who) on the webhooks queue."""


class EventsPort(Protocol):
    """Domain events on the service's bus (:mod:`chalicelib.events.publisher`)."""

    def connection_lost(self, user_id: str, item_id: str, error_code: str, cause_id: str) -> str: ...

    def connection_revoked(
        self, user_id: str, item_id: str, reason: str, cause_id: str, account_id: str | None
    ) -> str: ...

    def new_account(self, account: Account, *, is_main: bool, main_since: str | None) -> str: ...


class RemovalsPort(Protocol):
    """The removal workflows (:mod:`chalicelib.pipeline.removal`, :mod:`chalicelib.pipeline.relink`)."""

    def remove_item(self, item: Item, removal: Removal, now: datetime) -> RemovalOutcome: ...

    def revoke_token(self, item_id: str, access_token: str) -> RevokeResult: ...

    def retire_older_logins(self, item: Item, *, is_override: bool, now: datetime) -> tuple[str, ...]: ...


@dataclass(frozen=True)
class Effects:
    """Every side effect a pipeline handler makes, one port each."""

    plaid: PlaidPort
    peers: PeersPort
    store: StorePort
    messages: MessagesPort
    events: EventsPort
    removals: RemovalsPort


@lru_cache(maxsize=1)
def get_effects() -> Effects:
    """The live effects (one per process); nothing is imported or built until a port is used."""
    return Effects(
        plaid=_LivePlaid(),
        peers=_LivePeers(),
        store=_LiveStore(),
        messages=_LiveMessages(),
        events=_LiveEvents(),
        removals=_LiveRemovals(),
    )


# --- the live ports ----------------------------------------------------------------------------------


class _LivePlaid:
    def item_get(self, access_token: str) -> dict[str, Any]:
        from chalicelib.plaid.client import get_plaid

        return get_plaid().item_get(access_token)

    def transactions_get(
        self, access_token: str, start_date: date, end_date: date, *, offset: int = 0, count: int = 500
    ) -> dict[str, Any]:
        from chalicelib.plaid.client import get_plaid

        return get_plaid().transactions_get(access_token, start_date, end_date, offset=offset, count=count)

    def transactions_sync(self, access_token: str, *, cursor: str | None = None, count: int = 500) -> dict[str, Any]:
        from chalicelib.plaid.client import get_plaid

        return get_plaid().transactions_sync(access_token, cursor=cursor, count=count)

    def liabilities_get(self, access_token: str, *, account_ids: Sequence[str] | None = None) -> dict[str, Any]:
        from chalicelib.plaid.client import get_plaid

        return get_plaid().liabilities_get(access_token, account_ids=account_ids)

    def identity_verification_get(self, identity_verification_id: str) -> dict[str, Any]:
        from chalicelib.plaid.client import get_plaid

        return get_plaid().identity_verification_get(identity_verification_id)

    def watchlist_screening_individual_get(self, watchlist_screening_id: str) -> dict[str, Any]:
        from chalicelib.plaid.client import get_plaid

        return get_plaid().watchlist_screening_individual_get(watchlist_screening_id)


class _LivePeers:
    def get_user(self, user_id: str) -> User:
        from chalicelib.peers import get_user_service

        return get_user_service().get_user(user_id)

    def item_repaired(self, user_id: str, item_id: str, *, message_id: str, institution_id: str | None) -> str:
        from chalicelib.peers import get_segment

        return get_segment().item_repaired(user_id, item_id, message_id=message_id, institution_id=institution_id)

    def item_errored(
        self, user_id: str, item_id: str, error_code: str | None, *, message_id: str, institution_id: str | None
    ) -> str:
        from chalicelib.peers import get_segment

        return get_segment().item_errored(
            user_id, item_id, error_code, message_id=message_id, institution_id=institution_id
        )

    def delete_bank_account(self, user_id: str) -> bool:
        from chalicelib.peers import get_payments_service

        return get_payments_service().delete_bank_account(user_id)


class _LiveStore:
    def get_item_by_id(self, item_id: str) -> Item | None:
        from chalicelib.data import items

        return items.get_item_by_id(item_id)

    def get_item(self, user_id: str, item_id: str) -> Item | None:
        from chalicelib.data import items

        return items.get_item(user_id, item_id)

    def list_items(self, user_id: str) -> list[Item]:
        from chalicelib.data import items

        return items.list_items(user_id)

    def refresh_from_plaid(self, item: Item, response: dict[str, Any]) -> Item:
        from chalicelib.data import items

        return items.refresh_from_plaid(item, response)

    def create_item(self, item: Item, now: datetime) -> bool:
        from chalicelib.data import items

        return items.create_item(item, now)

    def record_webhook(self, info: WebhookInfo) -> WebhookInfo:
        from chalicelib.data import webhook_info

        return webhook_info.record_webhook(info)

    def transaction_webhooks(self, item_id: str, now: datetime) -> list[WebhookInfo]:
        """The item's transaction webhooks not expired at ``now`` (the handler's instant)."""
        from chalicelib.data import webhook_info

        return webhook_info.transaction_webhooks(item_id, now=now)

    def get_account(self, user_id: str, acct_id: str) -> Account | None:
        from chalicelib.data import accounts

        return accounts.get_account(user_id, acct_id)

    def store_liabilities(self, found: list[Liability]) -> list[Liability]:
        from chalicelib.data import liabilities

        return liabilities.store_liabilities(found)

    def put_identity_verification(self, idv: IdentityVerification) -> None:
        from chalicelib.data import identity_verifications

        identity_verifications.put_identity_verification(idv)

    def find_by_watchlist_screening(self, user_id: str, screening_id: str) -> IdentityVerification | None:
        from chalicelib.data import identity_verifications

        return identity_verifications.find_by_watchlist_screening(user_id, screening_id)

    def set_watchlist_status(self, user_id: str, idv_id: str, status: str) -> IdentityVerification:
        from chalicelib.data import identity_verifications

        return identity_verifications.set_watchlist_status(user_id, idv_id, status)

    def get_sync_state(self, user_id: str, item_id: str) -> SyncState:
        from chalicelib.data import sync_state

        return sync_state.get_sync_state(user_id, item_id)

    def start_loop(self, current: SyncState, loop_id: str, now: datetime) -> bool:
        from chalicelib.data import sync_state

        return sync_state.start_loop(current, loop_id, now)

    def want_pull(self, current: SyncState, mine_id: str) -> bool:
        from chalicelib.data import sync_state

        return sync_state.want_pull(current, mine_id)

    def advance(self, current: SyncState, next_cursor: str | None, transactions: int, now: datetime) -> bool:
        from chalicelib.data import sync_state

        return sync_state.advance(current, next_cursor, transactions, now)

    def restart_loop(self, current: SyncState, loop_id: str, now: datetime, *, forget_cursor: bool) -> bool:
        from chalicelib.data import sync_state

        return sync_state.restart(current, loop_id, now, forget_cursor=forget_cursor)

    def commit(self, current: SyncState, next_cursor: str | None, now: datetime, *, follow_up: str | None) -> bool:
        from chalicelib.data import sync_state

        return sync_state.commit(current, next_cursor, now, follow_up=follow_up)

    def release(self, current: SyncState) -> bool:
        from chalicelib.data import sync_state

        return sync_state.release(current)


class _LiveMessages:
    def put_records(self, record: PageRecord) -> int:
        """Put a record (split if needed) on the stream in order; returns the parts written.

        Records of one item share its id as the partition key, and each part is put after the
        one before it (``SequenceNumberForOrdering``), so the refiner reads them in order.
        """
        from chalicelib.aws.messaging import put_record
        from chalicelib.pipeline.messages import encode_page_record
        from chalicelib.settings import get_settings

        stream = get_settings().transactions_stream
        previous: str | None = None
        payloads = encode_page_record(record)
        for payload in payloads:
            previous = put_record(stream, payload, record.item_id, after_sequence=previous)
        return len(payloads)

    def send_throttled(self, body: str) -> None:
        from chalicelib.aws.messaging import send_message
        from chalicelib.settings import get_settings

        settings = get_settings()
        send_message(settings.throttle_queue, body, delay_seconds=settings.throttle_delay_seconds)

    def enqueue_webhook(self, source: str, payload: dict[str, Any], now: datetime) -> WebhookMessage:
        from chalicelib.pipeline.intake import enqueue_synthetic

        return enqueue_synthetic(source, payload, now=now)


class _LiveEvents:
    def connection_lost(self, user_id: str, item_id: str, error_code: str, cause_id: str) -> str:
        from chalicelib.events import publisher

        return publisher.connection_lost(user_id, item_id, error_code, cause_id)

    def connection_revoked(self, user_id: str, item_id: str, reason: str, cause_id: str, account_id: str | None) -> str:
        from chalicelib.events import publisher

        return publisher.connection_revoked(user_id, item_id, reason, cause_id, account_id)

    def new_account(self, account: Account, *, is_main: bool, main_since: str | None) -> str:
        from chalicelib.events import publisher

        return publisher.new_account(account, is_main=is_main, main_since=main_since)


class _LiveRemovals:
    def remove_item(self, item: Item, removal: Removal, now: datetime) -> RemovalOutcome:
        from chalicelib.pipeline import removal as removals

        return removals.remove_item(item, removal, now)

    def revoke_token(self, item_id: str, access_token: str) -> RevokeResult:
        from chalicelib.pipeline import removal as removals

        return removals.revoke_token(item_id, access_token)

    def retire_older_logins(self, item: Item, *, is_override: bool, now: datetime) -> tuple[str, ...]:
        from chalicelib.pipeline import relink

        return relink.retire_older_logins(item, is_override=is_override, now=now)
