"""DynamoDB requests per 1,000 transactions mined end to end, by ``/transactions/get`` and by ``/transactions/sync``.

Each mode mines the same kind of item (1,000 transactions, two 500-transaction pages) from
one webhook: the miner's first page, the throttle-miner's later pages (taken off the real
queue), then the refiner over every record the item put on the stream. Every DynamoDB request
the service's clients send is counted. Sync adds its cursor bookkeeping on the item's SYNC row
(one conditional write to start the loop, one per page, one to commit, and a strongly
consistent read per step); ``/get`` has none, but its windows re-read transactions a sync loop
never sends twice (the benchmark's first mines read each transaction once in both modes).
Live monthly summaries are off here (section 1 prices them).
"""

from __future__ import annotations

import uuid
from collections import Counter
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ops.fakes.plaid import FakePlaid

TRANSACTIONS = 1000
WRITES = ("PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem", "TransactWriteItems")
READS = ("GetItem", "BatchGetItem", "Query")


@dataclass(frozen=True)
class ModeFigures:
    mode: str
    transactions: int
    writes: int
    reads: int
    plaid_calls: int
    #: BatchWriteItem requests (rows in 25s); the rest of ``writes`` are single-item writes.
    batch_writes: int = 0

    @property
    def item_writes(self) -> int:
        return self.writes - self.batch_writes

    def per_thousand(self, value: int) -> float:
        return value * 1000 / self.transactions


def _refresh() -> None:
    """Everything built from settings is built again from the environment."""
    from chalicelib.aws.clients import reset_clients
    from chalicelib.aws.messaging import queue_url
    from chalicelib.plaid.client import reset_plaid
    from chalicelib.settings import reset_settings

    reset_settings()
    reset_clients()
    reset_plaid()
    queue_url.cache_clear()


def _shard_iterators() -> list[str]:
    from chalicelib.aws.clients import client
    from chalicelib.settings import get_settings

    kinesis, stream = client("kinesis"), get_settings().transactions_stream
    shards = kinesis.list_shards(StreamName=stream)["Shards"]
    return [
        str(
            kinesis.get_shard_iterator(StreamName=stream, ShardId=s["ShardId"], ShardIteratorType="LATEST")[
                "ShardIterator"
            ]
        )
        for s in shards
    ]


def _records(iterators: list[str], item_id: str) -> list[Any]:
    from chalicelib.aws.clients import client
    from chalicelib.pipeline.refiner import KinesisInput

    found: list[KinesisInput] = []
    for first in iterators:
        iterator = first
        while iterator:
            response = client("kinesis").get_records(ShardIterator=iterator, Limit=1000)
            records = response["Records"]
            found += [KinesisInput(r["SequenceNumber"], r["Data"]) for r in records if r["PartitionKey"] == item_id]
            iterator = response["NextShardIterator"] if records else ""
    return found


def _throttled() -> list[str]:
    from chalicelib.settings import get_settings
    from ops.queues import take_all

    return [message["Body"] for message in take_all(get_settings().throttle_queue)]


def mine_one(plaid: FakePlaid, mode: str) -> ModeFigures:
    """One item of :data:`TRANSACTIONS` mined from a HISTORICAL_UPDATE in ``mode``, every request counted."""
    from chalicelib.data.items import MiningMode
    from chalicelib.pipeline import miner, throttle_miner
    from chalicelib.pipeline.messages import WebhookMessage
    from chalicelib.pipeline.refiner import refine_records
    from ops.bench import counted_requests
    from ops.demo import link_fake_item

    user_id = f"bench-{mode.lower()}-{uuid.uuid4().hex[:8]}"
    fake = link_fake_item(
        plaid, user_id, mining_mode=MiningMode(mode), transaction_count=TRANSACTIONS, history_days=170, loans=False
    )
    now = datetime.now(UTC)
    message = WebhookMessage(
        uuid.uuid4().hex,
        "PLAID",
        now.isoformat().replace("+00:00", "Z"),
        {"webhook_type": "TRANSACTIONS", "webhook_code": "HISTORICAL_UPDATE", "item_id": fake.item_id},
    )
    _throttled()
    iterators = _shard_iterators()
    plaid.clear_calls()
    with counted_requests() as counts:
        miner.handle_webhook_body(message.to_json(), now)
        while pending := _throttled():
            for body in pending:
                throttle_miner.handle_mine_request_body(body, now)
        result = refine_records(_records(iterators, fake.item_id), now=now)
    if result["batchItemFailures"]:
        raise RuntimeError(f"the refiner failed: {result}")
    calls = len([c for c in plaid.calls() if c.endpoint in ("/transactions/get", "/transactions/sync")])
    writes, reads = _total(counts, WRITES), _total(counts, READS)
    return ModeFigures(mode, TRANSACTIONS, writes, reads, calls, batch_writes=counts["BatchWriteItem"])


def _total(counts: Counter[str], operations: tuple[str, ...]) -> int:
    return sum(counts[op] for op in operations)


def measure() -> tuple[ModeFigures, ModeFigures]:
    """Both modes on the current local AWS (which must be bootstrapped), with a fake Plaid of their own."""
    from ops.fakes.plaid import FakePlaid

    # Summaries off: their writes depend on how each item's transactions spread over months,
    # accounts and categories (two items differ), and section 1 prices them on their own.
    env = {"THROTTLE_DELAY_SECONDS": "0", "SYNC_PAGE_SIZE": "500", "SUMMARIES_ENABLED": "false"}
    from ops.bench_api import environment

    try:
        with FakePlaid() as plaid, environment({"PLAID_BASE_URL": plaid.url, **env}):
            _refresh()
            return mine_one(plaid, "GET"), mine_one(plaid, "SYNC")
    finally:
        _refresh()


def report(get: ModeFigures, sync: ModeFigures) -> list[str]:
    lines = ["6. DynamoDB requests per 1,000 transactions mined end to end (miner, throttle-miner, refiner):"]
    for figures in (get, sync):
        label = f"/transactions/{figures.mode.lower()}:"
        writes, reads = figures.per_thousand(figures.writes), figures.per_thousand(figures.reads)
        lines.append(f"   {label:<22} {writes:8.1f} writes  {reads:6.1f} reads  ({figures.plaid_calls} Plaid pages)")
    extra = sync.item_writes - get.item_writes
    batches = sync.batch_writes - get.batch_writes
    lines.append(
        f"   sync / get writes:      {sync.writes / get.writes:8.2f}x  ({extra:+d} single-item writes: the SYNC"
        f" row's; {batches:+d} batch requests: the two items' rows)"
    )
    return lines
