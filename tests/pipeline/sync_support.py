"""Driving ``/transactions/sync`` mining by direct handler calls, with SQS's and Kinesis' semantics.

The harness calls the real handlers (the miner, the throttle-miner, the refiner) the way
Lambda would: a webhook body goes to the miner; what the handlers queue on the throttle queue
is received and handed to the throttle-miner, and deleted only when the handler returned (a
handler that raised leaves its message to be delivered again, as SQS does); what they put on
the stream is read back in order and applied by the refiner. Nothing in the code under test
is replaced: faults come from the fake Plaid or from a botocore hook on the one client factory.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Any

import boto3

from chalicelib import clock
from chalicelib.data import items, keys, sync_state, tables, transactions
from chalicelib.data.items import MiningMode
from chalicelib.pipeline import miner, refiner, throttle_miner
from chalicelib.pipeline.batches import DropMessageError
from chalicelib.pipeline.messages import WebhookMessage
from chalicelib.pipeline.refiner import KinesisInput
from chalicelib.settings import get_settings
from ops.demo import link_fake_item
from ops.fakes.plaid import FakeItem, FakePlaid
from ops.queues import take_all


class StreamTap:
    """Records put on the transactions stream after the tap opened, for one item, in order."""

    def __init__(self) -> None:
        self.kinesis = boto3.client("kinesis")
        stream = get_settings().transactions_stream
        shards = self.kinesis.list_shards(StreamName=stream)["Shards"]
        self.iterators = [
            self.kinesis.get_shard_iterator(StreamName=stream, ShardId=s["ShardId"], ShardIteratorType="LATEST")[
                "ShardIterator"
            ]
            for s in shards
        ]

    def read(self, item_id: str) -> list[KinesisInput]:
        found: list[KinesisInput] = []
        for index in range(len(self.iterators)):
            while True:
                response = self.kinesis.get_records(ShardIterator=self.iterators[index], Limit=1000)
                self.iterators[index] = response["NextShardIterator"]
                records = response["Records"]
                found += [KinesisInput(r["SequenceNumber"], r["Data"]) for r in records if r["PartitionKey"] == item_id]
                if not records:
                    break
        return found


@dataclass
class Delivery:
    """What one handler call did: its outcome, or the error it raised (the message stays queued)."""

    body: str
    outcome: Any = None
    error: BaseException | None = None

    @property
    def failed(self) -> bool:
        return self.error is not None and not isinstance(self.error, DropMessageError)


@dataclass
class SyncHarness:
    plaid: FakePlaid
    user_id: str
    #: How far the handlers' instant is ahead of the injected clock (a test moving time on).
    ahead: timedelta = timedelta(0)
    tap: StreamTap = field(default_factory=StreamTap)
    deliveries: list[Delivery] = field(default_factory=list)
    refined: int = 0

    @property
    def now(self) -> datetime:
        """The injected clock when a handler is called: the instant a deployed one would read (the
        fake Plaid's "today" comes from the same clock, so a run across midnight sees one date)."""
        return clock.utcnow().replace(microsecond=0) + self.ahead

    def advance(self, by: timedelta) -> None:
        self.ahead += by

    def link(self, mode: MiningMode = MiningMode.SYNC, **options: Any) -> FakeItem:
        options.setdefault("loans", False)
        return link_fake_item(self.plaid, self.user_id, mining_mode=mode, **options)

    # --- the webhooks queue ----------------------------------------------------------------------

    def webhook(self, fake: FakeItem, code: str, *, source: str = "PLAID", **payload: Any) -> str:
        """A webhooks-queue message for ``fake`` with its own message id."""
        message = WebhookMessage(
            uuid.uuid4().hex,
            source,
            self.now.isoformat().replace("+00:00", "Z"),
            {"webhook_type": "TRANSACTIONS", "webhook_code": code, "item_id": fake.item_id, **payload},
        )
        return message.to_json()

    def mine(self, body: str) -> Delivery:
        return self._deliver(body, lambda b: miner.handle_webhook_body(b, self.now))

    # --- the throttle queue -----------------------------------------------------------------------

    def queued(self) -> list[str]:
        """Receive every visible throttle message and take it off the queue (the harness holds it now)."""
        return [message["Body"] for message in take_all(get_settings().throttle_queue)]

    def step(self, body: str) -> Delivery:
        return self._deliver(body, lambda b: throttle_miner.handle_mine_request_body(b, self.now))

    def drain(self, *, max_steps: int = 100) -> list[Delivery]:
        """Run queued steps until none is left; a step that fails is delivered again (SQS' retry)."""
        done: list[Delivery] = []
        pending = self.queued()
        while pending:
            body = pending.pop(0)
            delivery = self.step(body)
            done.append(delivery)
            if delivery.failed:
                pending.insert(0, body)
            pending += self.queued()
            if len(done) > max_steps:
                raise AssertionError(f"more than {max_steps} steps: the loop does not end")
        return done

    def _deliver(self, body: str, handle: Callable[[str], Any]) -> Delivery:
        delivery = Delivery(body)
        try:
            delivery.outcome = handle(body)
        except Exception as exc:  # noqa: BLE001 - recorded: the message is delivered again, as SQS would
            delivery.error = exc
        self.deliveries.append(delivery)
        return delivery

    # --- the stream and the rows ---------------------------------------------------------------------

    def refine(self, item_id: str) -> int:
        """Apply every new record of the item, in order, as the refiner's Lambda would."""
        records = self.tap.read(item_id)
        result = refiner.refine_records(records, now=self.now)
        assert result["batchItemFailures"] == [], result
        self.refined += len(records)
        return len(records)

    def live_transactions(self) -> dict[str, int]:
        """The user's stored, not removed transactions: id -> amount in cents."""
        rows = transactions.user_transactions_between(self.user_id, date.min, date.max)
        return {t.txn_id: t.amount for t in rows}

    def state(self, fake: FakeItem) -> sync_state.SyncState:
        return sync_state.get_sync_state(self.user_id, fake.item_id)


def plaid_transactions(plaid: FakePlaid, fake: FakeItem) -> dict[str, int]:
    """What Plaid holds for the item now: id -> amount in cents (Plaid's sign)."""
    from chalicelib.data.money import dollars_to_cents

    return {t["transaction_id"]: dollars_to_cents(t["amount"]) for t in plaid.item(fake.access_token).transactions}


def sync_row(user_id: str, item_id: str) -> Mapping[str, Any]:
    return tables.plaid().get_item(Key=keys.sync_state_key(user_id, item_id), ConsistentRead=True).get("Item") or {}


def nth_call(n: int, matches: Callable[[Mapping[str, Any]], bool]) -> Callable[[Mapping[str, Any]], bool]:
    """A fault predicate true only for the ``n``-th call (1-based) that ``matches``."""
    seen = iter(range(1, 10**6))

    def predicate(params: Mapping[str, Any]) -> bool:
        return matches(params) and next(seen) == n

    return predicate


def sync_row_write(params: Mapping[str, Any]) -> bool:
    """An UpdateItem of a SYNC row."""
    key = params.get("Key") or {}
    sk = key.get("SK")
    sk = sk.get("S") if isinstance(sk, dict) else sk
    return isinstance(sk, str) and sk.startswith("SYNC#")


def put_to_stream(params: Mapping[str, Any]) -> bool:
    return params.get("StreamName") == get_settings().transactions_stream


def to_throttle_queue(params: Mapping[str, Any]) -> bool:
    return str(params.get("QueueUrl", "")).endswith(get_settings().throttle_queue)


def item_mode(user_id: str, item_id: str) -> MiningMode:
    item = items.get_item(user_id, item_id)
    assert item is not None
    return item.mining_mode
