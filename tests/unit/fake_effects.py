"""Recording fakes of the pipeline's one seam (:class:`chalicelib.pipeline.effects.Effects`).

A :class:`World` holds what a test sets up (items, users, WEBHOOK_INFO rows, accounts, SYNC
rows, Plaid's answers) in memory, and every port records each call in one ordered log. A test
hands ``world.effects`` to a handler and asserts what the handler did to the world, and what it
did not, without a local AWS, a fake HTTP server or patching a module. The handlers and the
decisions run unchanged; only the world around them is replaced.
"""

from __future__ import annotations

import json
from collections import deque
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

from chalicelib.data.accounts import Account
from chalicelib.data.items import Item, ItemRemovedError, ItemStatus, plaid_item_state
from chalicelib.data.sync_state import SyncState
from chalicelib.data.ttl import iso_timestamp
from chalicelib.data.webhook_info import WebhookInfo
from chalicelib.peers import User, UserNotFoundError, UserStatus
from chalicelib.pipeline.effects import Effects
from chalicelib.pipeline.messages import PageRecord, WebhookMessage, webhook_message_id
from chalicelib.pipeline.removal import Removal, RemovalOutcome, RevokeResult

NOW = datetime(2026, 5, 16, 12, 0, tzinfo=UTC)


@dataclass(frozen=True)
class Call:
    port: str
    method: str
    args: tuple[Any, ...]
    kwargs: dict[str, Any]


class _Port:
    name = ""

    def __init__(self, world: World) -> None:
        self.world = world

    def _record(self, method: str, *args: Any, **kwargs: Any) -> None:
        self.world.calls.append(Call(self.name, method, args, kwargs))


class FakePlaid(_Port):
    """Plaid: each method answers its queued answers first (a dict, or an exception to raise), then its default."""

    name = "plaid"
    DEFAULTS: dict[str, dict[str, Any]] = {
        "item_get": {"item": {"error": None, "available_products": ["transactions"]}, "status": {}},
        "transactions_get": {"transactions": [], "total_transactions": 0, "accounts": [], "item": {}},
        "transactions_sync": {
            "added": [],
            "modified": [],
            "removed": [],
            "accounts": [],
            "has_more": False,
            "next_cursor": "cursor-1",
            "transactions_update_status": "HISTORICAL_UPDATE_COMPLETE",
        },
        "liabilities_get": {"liabilities": {}},
        "identity_verification_get": {},
        "watchlist_screening_individual_get": {},
    }

    def __init__(self, world: World) -> None:
        super().__init__(world)
        self.queued: dict[str, deque[Any]] = {}
        self.defaults = dict(self.DEFAULTS)

    def answer(self, method: str, *answers: Any) -> None:
        """Queue answers for ``method``: a response dict, or an exception instance to raise."""
        self.queued.setdefault(method, deque()).extend(answers)

    def _answer(self, method: str, *args: Any, **kwargs: Any) -> dict[str, Any]:
        self._record(method, *args, **kwargs)
        queue = self.queued.get(method)
        answer = queue.popleft() if queue else self.defaults[method]
        if isinstance(answer, BaseException):
            raise answer
        return dict(answer)

    def item_get(self, access_token: str) -> dict[str, Any]:
        return self._answer("item_get", access_token)

    def transactions_get(self, access_token: str, start_date: Any, end_date: Any, **kwargs: Any) -> dict[str, Any]:
        return self._answer("transactions_get", access_token, start_date, end_date, **kwargs)

    def transactions_sync(self, access_token: str, **kwargs: Any) -> dict[str, Any]:
        return self._answer("transactions_sync", access_token, **kwargs)

    def liabilities_get(self, access_token: str, **kwargs: Any) -> dict[str, Any]:
        return self._answer("liabilities_get", access_token, **kwargs)

    def identity_verification_get(self, identity_verification_id: str) -> dict[str, Any]:
        return self._answer("identity_verification_get", identity_verification_id)

    def watchlist_screening_individual_get(self, watchlist_screening_id: str) -> dict[str, Any]:
        return self._answer("watchlist_screening_individual_get", watchlist_screening_id)


class FakePeers(_Port):
    """The User Service knows ``users`` (id -> status); a status may be an exception to raise."""

    name = "peers"

    def __init__(self, world: World) -> None:
        super().__init__(world)
        self.users: dict[str, Any] = {}

    def get_user(self, user_id: str) -> User:
        self._record("get_user", user_id)
        status = self.users.get(user_id)
        if status is None:
            raise UserNotFoundError(user_id)
        if isinstance(status, BaseException):
            raise status
        return User(user_id, UserStatus(status), raw_status=status)

    def item_repaired(self, user_id: str, item_id: str, **kwargs: Any) -> str:
        self._record("item_repaired", user_id, item_id, **kwargs)
        return str(kwargs["message_id"])

    def item_errored(self, user_id: str, item_id: str, error_code: str | None, **kwargs: Any) -> str:
        self._record("item_errored", user_id, item_id, error_code, **kwargs)
        return str(kwargs["message_id"])

    def delete_bank_account(self, user_id: str) -> bool:
        self._record("delete_bank_account", user_id)
        return True


class FakeStore(_Port):
    """The rows: items by id, WEBHOOK_INFO rows, accounts, SYNC rows; writes change them as the tables would."""

    name = "store"

    def __init__(self, world: World) -> None:
        super().__init__(world)
        self.items: dict[str, Item] = {}
        self.webhooks: list[WebhookInfo] = []
        self.accounts: dict[tuple[str, str], Account] = {}
        self.sync_states: dict[tuple[str, str], SyncState] = {}
        #: What the conditional SYNC row writes answer (True: the row was as read).
        self.sync_writes_succeed = True
        self.liabilities: list[Any] = []

    def add_item(self, item: Item) -> Item:
        self.items[item.item_id] = item
        return item

    def get_item_by_id(self, item_id: str) -> Item | None:
        self._record("get_item_by_id", item_id)
        return self.items.get(item_id)

    def get_item(self, user_id: str, item_id: str) -> Item | None:
        self._record("get_item", user_id, item_id)
        item = self.items.get(item_id)
        return item if item is not None and item.user_id == user_id else None

    def list_items(self, user_id: str) -> list[Item]:
        self._record("list_items", user_id)
        return [i for i in self.items.values() if i.user_id == user_id]

    def refresh_from_plaid(self, item: Item, response: dict[str, Any]) -> Item:
        self._record("refresh_from_plaid", item.item_id)
        stored = self.items.get(item.item_id, item)
        if stored.status is ItemStatus.REMOVED:
            raise ItemRemovedError(item.item_id)
        state = plaid_item_state(response)
        refreshed = replace(stored, status=state.status, error_code=state.error_code)
        self.items[item.item_id] = refreshed
        return refreshed

    def create_item(self, item: Item, now: datetime) -> bool:
        self._record("create_item", item)
        if item.item_id in self.items:
            return False
        self.items[item.item_id] = item
        return True

    def record_webhook(self, info: WebhookInfo) -> WebhookInfo:
        self._record("record_webhook", info)
        if not any(w.message_id == info.message_id for w in self.webhooks):
            self.webhooks.append(info)
        return info

    def transaction_webhooks(self, item_id: str, now: datetime) -> list[WebhookInfo]:
        self._record("transaction_webhooks", item_id)
        return [w for w in self.webhooks if w.item_id == item_id and w.webhook_type == "TRANSACTIONS"]

    def get_account(self, user_id: str, acct_id: str) -> Account | None:
        self._record("get_account", user_id, acct_id)
        return self.accounts.get((user_id, acct_id))

    def store_liabilities(self, found: list[Any]) -> list[Any]:
        self._record("store_liabilities", found)
        self.liabilities += found
        return found

    def put_identity_verification(self, idv: Any) -> None:
        self._record("put_identity_verification", idv)

    def find_by_watchlist_screening(self, user_id: str, screening_id: str) -> Any:
        self._record("find_by_watchlist_screening", user_id, screening_id)
        return None

    def set_watchlist_status(self, user_id: str, idv_id: str, status: str) -> Any:
        self._record("set_watchlist_status", user_id, idv_id, status)

    def get_sync_state(self, user_id: str, item_id: str) -> SyncState:
        self._record("get_sync_state", user_id, item_id)
        return self.sync_states.get((user_id, item_id)) or SyncState(user_id, item_id)

    def _sync_write(self, method: str, *args: Any, **kwargs: Any) -> bool:
        self._record(method, *args, **kwargs)
        return self.sync_writes_succeed

    def start_loop(self, current: SyncState, loop_id: str, now: datetime) -> bool:
        return self._sync_write("start_loop", current, loop_id)

    def want_pull(self, current: SyncState, mine_id: str) -> bool:
        return self._sync_write("want_pull", current, mine_id)

    def advance(self, current: SyncState, next_cursor: str | None, transactions: int, now: datetime) -> bool:
        return self._sync_write("advance", current, next_cursor, transactions)

    def restart_loop(self, current: SyncState, loop_id: str, now: datetime, *, forget_cursor: bool) -> bool:
        return self._sync_write("restart_loop", current, loop_id, forget_cursor=forget_cursor)

    def commit(self, current: SyncState, next_cursor: str | None, now: datetime, *, follow_up: str | None) -> bool:
        return self._sync_write("commit", current, next_cursor, follow_up=follow_up)

    def release(self, current: SyncState) -> bool:
        return self._sync_write("release", current)


class FakeMessages(_Port):
    """The stream and the queues: what was put and sent, in order."""

    name = "messages"

    def __init__(self, world: World) -> None:
        super().__init__(world)
        self.records: list[PageRecord] = []
        self.throttled: list[dict[str, Any]] = []
        self.webhooks: list[WebhookMessage] = []

    def put_records(self, record: PageRecord) -> int:
        self._record("put_records", record)
        self.records.append(record)
        return 1

    def send_throttled(self, body: str) -> None:
        self._record("send_throttled", body)
        self.throttled.append(json.loads(body))

    def enqueue_webhook(self, source: str, payload: dict[str, Any], now: datetime) -> WebhookMessage:
        """As the intake's synthetic webhooks: the id derives from the source, the payload and the time."""
        self._record("enqueue_webhook", source, payload, now)
        received_at = iso_timestamp(now)
        body = json.dumps(payload, sort_keys=True, separators=(",", ":")).encode()
        message = WebhookMessage(webhook_message_id(source, body, received_at), source, received_at, payload)
        self.webhooks.append(message)
        return message


class FakeEvents(_Port):
    name = "events"

    def __init__(self, world: World) -> None:
        super().__init__(world)
        self.published: list[tuple[str, dict[str, Any]]] = []

    def _publish(self, name: str, **detail: Any) -> str:
        self._record(name, **detail)
        self.published.append((name, detail))
        return f"{name}:{len(self.published)}"

    def connection_lost(self, user_id: str, item_id: str, error_code: str, cause_id: str) -> str:
        return self._publish("connection_lost", user_id=user_id, item_id=item_id, error_code=error_code)

    def connection_revoked(self, user_id: str, item_id: str, reason: str, cause_id: str, account_id: str | None) -> str:
        return self._publish(
            "connection_revoked", user_id=user_id, item_id=item_id, reason=reason, account_id=account_id
        )

    def new_account(self, account: Account, *, is_main: bool, main_since: str | None) -> str:
        return self._publish("new_account", account_id=account.acct_id, is_main=is_main, main_since=main_since)


class FakeRemovals(_Port):
    """The removal workflows: what was asked; ``outcome`` says what a removal found (default: removed now)."""

    name = "removals"

    def __init__(self, world: World) -> None:
        super().__init__(world)
        self.removed: list[tuple[Item, Removal]] = []
        self.revoked: list[str] = []
        self.outcome: dict[str, Any] = {"removed_now": True, "owned": True}

    def remove_item(self, item: Item, removal: Removal, now: datetime) -> RemovalOutcome:
        self._record("remove_item", item, removal)
        self.removed.append((item, removal))
        return RemovalOutcome(item, **self.outcome)

    def revoke_token(self, item_id: str, access_token: str) -> RevokeResult:
        self._record("revoke_token", item_id, access_token)
        self.revoked.append(item_id)
        return RevokeResult.REVOKED

    def retire_older_logins(self, item: Item, *, is_override: bool, now: datetime) -> tuple[str, ...]:
        self._record("retire_older_logins", item, is_override=is_override)
        return ()


@dataclass
class World:
    """Everything around the handlers, in memory; ``calls`` is every port call in order."""

    calls: list[Call] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.plaid = FakePlaid(self)
        self.peers = FakePeers(self)
        self.store = FakeStore(self)
        self.messages = FakeMessages(self)
        self.events = FakeEvents(self)
        self.removals = FakeRemovals(self)

    @property
    def effects(self) -> Effects:
        return Effects(
            plaid=self.plaid,
            peers=self.peers,
            store=self.store,
            messages=self.messages,
            events=self.events,
            removals=self.removals,
        )

    def called(self, port: str, method: str | None = None) -> list[Call]:
        return [c for c in self.calls if c.port == port and (method is None or c.method == method)]


def item(user_id: str = "user-1", item_id: str = "item-1", **fields: Any) -> Item:
    """An ITEM row as the tables would return it."""
    fields.setdefault("access_token", f"access-{item_id}")
    fields.setdefault("institution_id", "ins_1")
    fields.setdefault("main_account_id", "acct-main")
    return Item(user_id=user_id, item_id=item_id, **fields)


def message(
    code: str, *, kind: str = "TRANSACTIONS", item_id: str | None = "item-1", source: str = "PLAID", **payload: Any
) -> WebhookMessage:
    """A webhooks-queue message as the intake queues it."""
    body: dict[str, Any] = {"webhook_type": kind, "webhook_code": code, **payload}
    if item_id is not None:
        body["item_id"] = item_id
    return WebhookMessage(f"msg-{code.lower()}-{source.lower()}", source, iso_timestamp(NOW), body)
