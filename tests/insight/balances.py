"""Support for the savings and balance-alert tests: clocks, a seeded user, a Go locker.

A user is seeded through the data layer exactly as the refiner and the add-item API write
them (ITEM, ACCOUNT rows) and as the settings' owner writes ``user-balance-settings``.
:class:`GoLocker` does what cirello.io/dynamolock (v2) does to a lock row, write for write,
so the tests can show our locker and a Go service's exclude each other.
"""

from __future__ import annotations

import base64
import secrets
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

from botocore.exceptions import ClientError

from chalicelib.aws import clients
from chalicelib.data import accounts, items
from chalicelib.data.accounts import Account, Balances
from chalicelib.insight.data import tables
from chalicelib.insight.data.balance_settings import balance_settings_item
from chalicelib.settings import get_settings
from tests.factories import uid

#: Every test states its own instant; this one is mid-month, mid-day UTC.
START = datetime(2026, 11, 20, 12, 30, 0, 123456, tzinfo=UTC)


class FakeClock:
    """An injected wall clock: still unless advanced; ``sleep`` advances it instead of waiting."""

    def __init__(self, start: datetime = START) -> None:
        self._now = start
        self._lock = threading.Lock()

    def __call__(self) -> datetime:
        with self._lock:
            return self._now

    def advance(self, seconds: float) -> None:
        with self._lock:
            self._now += timedelta(seconds=seconds)

    def sleep(self, seconds: float) -> None:
        self.advance(seconds)


class TickingClock:
    """An injected wall clock that starts at ``start`` and runs in real time (for real races)."""

    def __init__(self, start: datetime = START) -> None:
        self._start = start
        self._origin = time.monotonic()

    def __call__(self) -> datetime:
        return self._start + timedelta(seconds=time.monotonic() - self._origin)


def dollars(cents: int) -> float:
    return cents / 100


@dataclass
class SeededUser:
    user_id: str
    item_id: str
    checking_id: str
    savings_ids: list[str] = field(default_factory=list)


def balances(
    available: int | None, current: int | None = None, *, currency: str | None = "USD", limit: int | None = None
) -> Balances:
    """Stored balances in cents as the refiner writes them: ``None`` = not reported (stored 0, flag false)."""
    return Balances(
        available=available or 0,
        current=current or 0,
        limit=limit,
        available_reported=available is not None,
        current_reported=current is not None,
        iso_currency_code=currency,
    )


def put_account(
    user_id: str,
    item_id: str,
    amounts: Balances,
    *,
    subtype: str = "checking",
    type_: str = "depository",
    acct_id: str | None = None,
    now: datetime = START,
) -> str:
    account = Account(
        user_id=user_id,
        item_id=item_id,
        acct_id=acct_id or uid("acct"),
        name=f"{subtype.title()} account",
        type=type_,
        balances=amounts,
        subtype=subtype,
        mask="0000",
    )
    accounts.put_account_items([accounts.account_item(account, now)])
    return account.acct_id


def put_item(user_id: str, main_account_id: str | None, *, item_id: str | None = None, now: datetime = START) -> str:
    item = items.Item(
        user_id=user_id,
        item_id=item_id or uid("item"),
        access_token=uid("access-sandbox"),
        institution_id="ins_1",
        created_at=now.isoformat(),
        main_account_id=main_account_id,
    )
    items.create_item(item, now)
    return item.item_id


def seed_user(
    user_id: str,
    *,
    checking: Balances,
    savings: list[Balances] | None = None,
    threshold_dollars: Decimal | int | str | None = None,
    settings: bool = True,
) -> SeededUser:
    """An ACTIVE item whose main account is a checking account, optional savings, and settings."""
    item_id = uid("item")
    checking_id = put_account(user_id, item_id, checking)
    put_item(user_id, checking_id, item_id=item_id)
    savings_ids = [put_account(user_id, item_id, s, subtype="savings") for s in savings or []]
    if settings:
        set_threshold(user_id, threshold_dollars)
    return SeededUser(user_id, item_id, checking_id, savings_ids)


def set_threshold(user_id: str, dollars_or_none: Decimal | int | str | None) -> None:
    tables.user_balance_settings().put_item(Item=balance_settings_item(user_id, dollars_or_none))


def set_main_balance(user: SeededUser, amounts: Balances, now: datetime = START) -> None:
    put_account(user.user_id, user.item_id, amounts, acct_id=user.checking_id, now=now)


def sqs_record(body: str, message_id: str | None = None) -> dict[str, Any]:
    return {"messageId": message_id or uid("msg"), "body": body}


# --- a Go locker, as cirello.io/dynamolock v2 writes -----------------------------------


def _plain_client() -> Any:
    """A plain DynamoDB client: AttributeValues in and out, as Go's SDK sends them."""
    return clients.client("dynamodb")


def _go_rvn() -> str:
    return f"{time.time_ns()}:{base64.b32encode(secrets.token_bytes(32)).decode().rstrip('=')}"


class GoLocker:
    """cirello.io/dynamolock's writes on a lock row, with the Go client's own (injected) clock.

    ``acquire`` runs one pass of its ``storeLock``: a free or released row is put at once; a
    held one is watched, and taken only when the same RVN is seen again after its lease.
    """

    def __init__(self, *, lease: str = "1m0s", clock: Callable[[], datetime] | None = None) -> None:
        self.owner = base64.b32encode(secrets.token_bytes(32)).decode().rstrip("=")
        self.lease = lease
        self.clock = clock or (lambda: datetime.now(UTC))
        self.rvn: str | None = None
        self._watch: tuple[str, datetime, timedelta] | None = None
        self.table = _plain_client()

    @property
    def name(self) -> str:
        return get_settings().locks_table

    def _get(self, key: str) -> dict[str, Any] | None:
        row = self.table.get_item(TableName=self.name, Key={"key": {"S": key}}, ConsistentRead=True).get("Item")
        return dict(row) if row else None

    def acquire(self, key: str, data: bytes | None = None) -> bool:
        from chalicelib.insight.data.locks import parse_go_duration

        existing = self._get(key)
        layout = {"key", "ownerName", "leaseDuration", "recordVersionNumber", "data", "isReleased"}
        additional = {k: v for k, v in (existing or {}).items() if k not in layout}
        rvn = _go_rvn()
        item: dict[str, Any] = {
            **additional,
            "key": {"S": key},
            "ownerName": {"S": self.owner},
            "leaseDuration": {"S": self.lease},
            "recordVersionNumber": {"S": rvn},
        }
        stored_data = (existing or {}).get("data")
        if stored_data is not None or data is not None:
            item["data"] = stored_data or {"B": data}
        if existing is None or "isReleased" in existing:
            condition = "attribute_not_exists(#k) OR (attribute_exists(#k) AND #r = :one)"
            names, values = {"#k": "key", "#r": "isReleased"}, {":one": {"S": "1"}}
        else:
            seen = existing["recordVersionNumber"]["S"]
            now = self.clock()
            if self._watch is None or self._watch[0] != seen:
                self._watch = (seen, now, parse_go_duration(existing["leaseDuration"]["S"]))
                return False
            if now - self._watch[1] < self._watch[2]:
                return False
            condition = "attribute_exists(#k) AND #v = :seen"
            names, values = {"#k": "key", "#v": "recordVersionNumber"}, {":seen": {"S": seen}}
        try:
            self.table.put_item(
                TableName=self.name,
                Item=item,
                ConditionExpression=condition,
                ExpressionAttributeNames=names,
                ExpressionAttributeValues=values,
            )
        except ClientError as error:
            if error.response["Error"]["Code"] == "ConditionalCheckFailedException":
                return False
            raise
        self.rvn, self._watch = rvn, None
        return True

    def _owned_update(self, key: str, update: str, names: Mapping[str, str], values: Mapping[str, Any]) -> bool:
        try:
            self.table.update_item(
                TableName=self.name,
                Key={"key": {"S": key}},
                UpdateExpression=update,
                ConditionExpression="attribute_exists(#k) AND #v = :current AND #o = :owner",
                ExpressionAttributeNames={"#k": "key", "#v": "recordVersionNumber", "#o": "ownerName", **names},
                ExpressionAttributeValues={":current": {"S": self.rvn}, ":owner": {"S": self.owner}, **values},
            )
        except ClientError as error:
            if error.response["Error"]["Code"] == "ConditionalCheckFailedException":
                return False
            raise
        return True

    def heartbeat(self, key: str) -> bool:
        rvn = _go_rvn()
        values = {":lease": {"S": self.lease}, ":new": {"S": rvn}}
        done = self._owned_update(key, "SET #l = :lease, #v = :new", {"#l": "leaseDuration"}, values)
        if done:
            self.rvn = rvn
        return done

    def release(self, key: str) -> bool:
        return self._owned_update(key, "SET #r = :one", {"#r": "isReleased"}, {":one": {"S": "1"}})
