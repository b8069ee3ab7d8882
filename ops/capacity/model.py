"""The capacity model: measured units of work, scaled by stated assumptions (pure; no I/O).

A *flow* is something a user causes (a DEFAULT_UPDATE webhook, a removal, a new item's history,
an API page) with its measured cost per occurrence. The assumptions say how often each happens
per user per day; the peak factor turns the daily average into the busiest hour. Lambda
durations are assumed (moto runs no Lambda): each function's duration is its measured requests
times an assumed latency per request, plus assumed Plaid latency and CPU.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from ops.capacity.measure import (
    API,
    API_ACCOUNTS,
    API_CATEGORIES,
    API_TRANSACTIONS,
    HISTORY,
    INTAKE,
    REFINER,
    REMOVAL,
    UPDATE,
    Measurements,
)
from ops.capacity.meter import Usage
from ops.capacity.sizes import read_units

DAY_SECONDS = 86_400
MIB = 1024 * 1024
BATCH_OPERATIONS = frozenset({"dynamodb.BatchWriteItem", "dynamodb.BatchGetItem", "dynamodb.TransactWriteItems"})


@dataclass(frozen=True)
class Limits:
    """AWS's documented default limits the model checks against."""

    partition_write_units: int = 1_000
    partition_read_units: int = 3_000
    #: On-demand tables: per table and per GSI, default (a service-quota request raises it).
    table_write_units: int = 40_000
    table_read_units: int = 40_000
    shard_records: int = 1_000
    shard_bytes: int = MIB
    max_parallelization: int = 10
    account_concurrency: int = 1_000
    api_requests: int = 10_000
    #: Capacity is planned at this fraction of a limit.
    target: float = 0.8


@dataclass(frozen=True)
class Assumptions:
    """How often users cause each flow, and what moto cannot tell (durations)."""

    users: tuple[int, ...] = (1_000, 100_000, 10_000_000)
    update_webhooks_per_user_day: float = 4.0
    removal_webhooks_per_user_day: float = 1.0
    removed_per_removal_webhook: float = 2.0
    #: New items linked per user per day; each mines its history.
    links_per_user_day: float = 0.002
    history_per_link: int = 1_000
    transaction_pages_per_user_day: float = 5.0
    account_pages_per_user_day: float = 5.0
    category_reads_per_user_day: float = 1.0
    #: Rows of the category tree in production (the measured tree is the fake's subset).
    category_rows: int = 600
    peak_factor: float = 3.0
    aws_request_seconds: float = 0.008
    batch_request_seconds: float = 0.025
    plaid_seconds: tuple[tuple[str, float], ...] = (("/item/get", 0.3), ("/transactions/get", 1.0))
    plaid_other_seconds: float = 0.5
    cpu_seconds_per_kib: float = 0.001
    handler_overhead_seconds: float = 0.01
    api_overhead_seconds: float = 0.03

    def plaid_latency(self, endpoint: str) -> float:
        return dict(self.plaid_seconds).get(endpoint, self.plaid_other_seconds)


@dataclass
class Load:
    """What something costs, as rates or per occurrence (floats: loads are scaled)."""

    write_units: dict[str, float] = field(default_factory=dict)
    read_units: dict[str, float] = field(default_factory=dict)
    busy_seconds: dict[str, float] = field(default_factory=dict)
    invocations: dict[str, float] = field(default_factory=dict)
    kinesis_records: float = 0.0
    kinesis_bytes: float = 0.0
    sqs_messages: float = 0.0
    events: float = 0.0
    api_requests: float = 0.0
    #: entity -> index write units (for the keys every item of an entity shares)
    entity_index_units: dict[str, float] = field(default_factory=dict)

    def add(self, other: Load, factor: float = 1.0) -> None:
        for mine, theirs in (
            (self.write_units, other.write_units),
            (self.read_units, other.read_units),
            (self.busy_seconds, other.busy_seconds),
            (self.invocations, other.invocations),
            (self.entity_index_units, other.entity_index_units),
        ):
            for key, value in theirs.items():
                mine[key] = mine.get(key, 0.0) + value * factor
        self.kinesis_records += other.kinesis_records * factor
        self.kinesis_bytes += other.kinesis_bytes * factor
        self.sqs_messages += other.sqs_messages * factor
        self.events += other.events * factor
        self.api_requests += other.api_requests * factor

    def scaled(self, factor: float) -> Load:
        result = Load()
        result.add(self, factor)
        return result


def duration(function: str, usage: Usage, a: Assumptions, page_bytes: float = 0.0) -> float:
    """Assumed seconds of all of ``usage``'s invocations: requests, Plaid, CPU, overhead."""
    if usage.invocations == 0:
        return 0.0
    aws = sum(
        n * (a.batch_request_seconds if op in BATCH_OPERATIONS else a.aws_request_seconds)
        for op, n in usage.requests.items()
    )
    plaid = sum(n * a.plaid_latency(endpoint) for endpoint, n in usage.plaid_calls.items())
    cpu = (usage.kinesis_bytes + page_bytes) / 1024 * a.cpu_seconds_per_kib
    overhead = usage.invocations * (a.api_overhead_seconds if is_api(function) else a.handler_overhead_seconds)
    return aws + plaid + cpu + overhead


def is_api(function: str) -> bool:
    return function == INTAKE or function.startswith("api.")


def load_of(functions: Mapping[str, Usage], a: Assumptions) -> Load:
    """The load of one occurrence of a flow made of these functions' usage."""
    load = Load()
    page_bytes = sum(u.kinesis_bytes for u in functions.values())
    for function, usage in functions.items():
        for target, written in usage.write_units.items():
            load.write_units[target] = load.write_units.get(target, 0.0) + written
        for target, read in usage.read_units.items():
            load.read_units[target] = load.read_units.get(target, 0.0) + read
        consumed = page_bytes if function == REFINER else 0.0
        load.busy_seconds[function] = load.busy_seconds.get(function, 0.0) + duration(function, usage, a, consumed)
        load.invocations[function] = load.invocations.get(function, 0.0) + usage.invocations
        load.kinesis_records += usage.kinesis_records
        load.kinesis_bytes += usage.kinesis_bytes
        load.sqs_messages += usage.sqs_messages
        load.events += usage.events
        if is_api(function):
            load.api_requests += usage.invocations
        for entity, writes in usage.entities.items():
            load.entity_index_units[entity] = load.entity_index_units.get(entity, 0.0) + writes.index_units
    return load


@dataclass(frozen=True)
class Flow:
    name: str
    per_user_day: float
    #: What the rate counts (one webhook, one page ...).
    unit: str
    load: Load


def category_read_units(m: Measurements, a: Assumptions) -> float:
    """Read units of one full category-tree read at the production tree's size (strong)."""
    rows = m.facts.get("category_rows", 0)
    if not rows:
        return 0.0
    return read_units(int(category_row_bytes(m) * a.category_rows), consistent=True)


def category_row_bytes(m: Measurements) -> float:
    """Mean bytes of a CATEGORY row, from what the category read evaluated."""
    rows = m.facts.get("category_rows", 0)
    return sum(m.of(API, API_CATEGORIES).read_bytes.values()) / rows if rows else 0.0


def flows(m: Measurements, a: Assumptions) -> list[Flow]:
    """Every flow with its measured load per occurrence, scaled to the assumptions' sizes."""
    removal = dict(m.functions(REMOVAL))
    removed = max(m.facts.get("removed", 0), 1)
    removal_load = load_of({f: u for f, u in removal.items() if f != REFINER}, a)
    removal_load.add(load_of({REFINER: m.of(REMOVAL, REFINER)}, a), a.removed_per_removal_webhook / removed)
    history_scale = a.history_per_link / max(m.inputs.history_transactions, 1)
    categories = load_of({API_CATEGORIES: m.of(API, API_CATEGORIES)}, a)
    target = next(iter(categories.read_units), None)
    if target is not None:
        categories.read_units = {target: category_read_units(m, a)}
    return [
        Flow("DEFAULT_UPDATE webhook", a.update_webhooks_per_user_day, "webhook", load_of(m.functions(UPDATE), a)),
        Flow("TRANSACTIONS_REMOVED webhook", a.removal_webhooks_per_user_day, "webhook", removal_load),
        Flow(
            "new item, history mine",
            a.links_per_user_day,
            f"item of {a.history_per_link:,} transactions",
            load_of(m.functions(HISTORY), a).scaled(history_scale),
        ),
        Flow(
            "transactions page",
            a.transaction_pages_per_user_day,
            "page",
            load_of({API_TRANSACTIONS: m.of(API, API_TRANSACTIONS)}, a),
        ),
        Flow(
            "accounts page", a.account_pages_per_user_day, "page", load_of({API_ACCOUNTS: m.of(API, API_ACCOUNTS)}, a)
        ),
        Flow("category tree", a.category_reads_per_user_day, "read", categories),
    ]


def per_user_day(all_flows: Iterable[Flow]) -> Load:
    load = Load()
    for flow in all_flows:
        load.add(flow.load, flow.per_user_day)
    return load


def rate(load: Load, users: int, a: Assumptions, *, peak: bool = True) -> Load:
    """Per-second load of ``users`` users (the busiest hour when ``peak``)."""
    return load.scaled(users * (a.peak_factor if peak else 1.0) / DAY_SECONDS)


@dataclass(frozen=True)
class Declared:
    """What the declaration provisions today, where it bounds throughput."""

    shards: int = 1
    parallelization: int = 1


@dataclass(frozen=True)
class Scale:
    """The computed needs of one user count at peak."""

    users: int
    average: Load
    peak: Load
    shards_for_records: int
    shards_for_bytes: int
    shards_for_refiner: int
    concurrency: float

    @property
    def shards(self) -> int:
        return max(self.shards_for_records, self.shards_for_bytes, self.shards_for_refiner, 1)


def scale(load_per_user_day: Load, users: int, a: Assumptions, limits: Limits) -> Scale:
    peak = rate(load_per_user_day, users, a)
    refiner = peak.busy_seconds.get(REFINER, 0.0)
    return Scale(
        users=users,
        average=rate(load_per_user_day, users, a, peak=False),
        peak=peak,
        shards_for_records=math.ceil(peak.kinesis_records / (limits.shard_records * limits.target)),
        shards_for_bytes=math.ceil(peak.kinesis_bytes / (limits.shard_bytes * limits.target)),
        shards_for_refiner=math.ceil(refiner / (limits.max_parallelization * limits.target)),
        concurrency=sum(peak.busy_seconds.values()),
    )


@dataclass(frozen=True)
class Ceiling:
    """A limit, what it bounds, and the user count at which the peak reaches it."""

    kind: str
    name: str
    limit: str
    users: float
    fix: str


def users_at(limit: float, per_user_second: float) -> float:
    return math.inf if per_user_second <= 0 else limit / per_user_second


def per_user_peak(load_per_user_day: Load, a: Assumptions) -> Load:
    return rate(load_per_user_day, 1, a)


def ceilings(
    load_per_user_day: Load,
    a: Assumptions,
    limits: Limits,
    declared: Declared,
    tables: Mapping[str, str],
    other_writes: Mapping[str, float] | None = None,
) -> list[Ceiling]:
    """Every limit with the users at which the busiest hour reaches it, lowest first.

    ``tables`` maps a write/read target (``<table>`` or ``<table>/GSIn``) to its display name;
    ``other_writes`` adds write units per user per day on other tables (by display name).
    """
    one = per_user_peak(load_per_user_day, a)
    extra = {name: units * a.peak_factor / DAY_SECONDS for name, units in (other_writes or {}).items()}
    found = [
        Ceiling(
            "refiner",
            "refiner throughput (one concurrent batch per shard)",
            f"{declared.shards} shard x parallelization {declared.parallelization}",
            users_at(declared.shards * declared.parallelization, one.busy_seconds.get(REFINER, 0.0)),
            "raise the event source's ParallelizationFactor (up to 10; order per item id is kept), then shards",
        ),
        Ceiling(
            "kinesis",
            "Kinesis writes, records/s",
            f"{limits.shard_records:,} records/s x {declared.shards} shard",
            users_at(limits.shard_records * declared.shards, one.kinesis_records),
            "more shards (or on-demand mode)",
        ),
        Ceiling(
            "kinesis",
            "Kinesis writes, bytes/s",
            f"1 MiB/s x {declared.shards} shard",
            users_at(limits.shard_bytes * declared.shards, one.kinesis_bytes),
            "more shards (or on-demand mode)",
        ),
        Ceiling(
            "concurrency",
            "Lambda concurrency, all functions",
            f"{limits.account_concurrency:,} (account default)",
            users_at(limits.account_concurrency, sum(one.busy_seconds.values())),
            "a concurrency quota increase; cap the miners (SQS maximum concurrency) so the API keeps headroom",
        ),
        Ceiling(
            "api",
            "API requests (webhooks and pages)",
            f"{limits.api_requests:,} requests/s (API Gateway account default)",
            users_at(limits.api_requests, one.api_requests),
            "a quota increase; cache reference reads at the edge",
        ),
    ]
    for target, units in sorted({**one.write_units, **extra}.items()):
        found.append(
            Ceiling(
                "writes",
                f"writes on {tables.get(target, target)}",
                f"{limits.table_write_units:,} write units/s (on-demand default, per table and per GSI)",
                users_at(limits.table_write_units, units),
                "a table quota increase; fewer or smaller writes (see below)",
            )
        )
    for target, units in sorted(one.read_units.items()):
        found.append(
            Ceiling(
                "reads",
                f"reads on {tables.get(target, target)}",
                f"{limits.table_read_units:,} read units/s (on-demand default)",
                users_at(limits.table_read_units, units),
                "a table quota increase; cache",
            )
        )
    return sorted(found, key=lambda c: c.users)


@dataclass(frozen=True)
class HotKey:
    """One partition key value and the most traffic one value of it sees."""

    key: str
    where: str
    traffic: str
    #: Units per second on the one key value (at ``users`` users' peak, or in a burst).
    units: float
    limit: int
    when: str
    action: str

    @property
    def share(self) -> float:
        return self.units / self.limit


def hot_keys(m: Measurements, load_per_user_day: Load, a: Assumptions, limits: Limits) -> list[HotKey]:
    """The shared and per-user keys, each with its worst per-key rate against the partition limit."""
    users = max(a.users)
    when = f"{users:,} users, peak"
    peak_user_seconds = users * a.peak_factor / DAY_SECONDS
    history = m.of(HISTORY, REFINER)
    pages = max(history.records, 1)
    gsi1 = next((t for t in history.write_units if t.endswith("/GSI1")), "")
    page_seconds = duration(REFINER, history, a, sum(u.kinesis_bytes for u in m.functions(HISTORY).values())) / pages
    page_gsi1_units = history.write_units.get(gsi1, 0) / pages
    webhooks_per_day = a.update_webhooks_per_user_day + a.removal_webhooks_per_user_day
    info = m.total(UPDATE).entity("WEBHOOK_INFO")
    info_units_per_copy = info.index_units / max(info.index_puts, 1)
    per_item_records = 1 / 30  # the throttle queue's delay spaces one item's pages
    burst = page_gsi1_units / page_seconds if page_seconds else 0.0
    burst_action = (
        "the page briefly outruns the partition: DynamoDB throttles the GSI and so the base writes, and the "
        "batch writer retries the unprocessed items with backoff (the page lands later, nothing is lost); rows "
        "under 1 KiB halve the burst, and a refiner that paces a page's writes avoids it"
        if burst > limits.partition_write_units
        else "none needed: the burst stays under the partition's limit and lasts under a second"
    )
    return [
        HotKey(
            "`REMOVE`",
            "transactions GSI1 (every tombstone)",
            "every removed transaction of every user",
            load_per_user_day.entity_index_units.get("REMOVE", 0.0) * peak_user_seconds,
            limits.partition_write_units,
            when,
            "T15 (recent removals) has no reader yet: stop writing GSI1 keys on tombstones until it does, "
            "then write them sharded (`REMOVE#<hash(txn_id) % N>`) and read the N shards",
        ),
        HotKey(
            "`CATEGORIES`",
            "transactions base (the whole tree, one partition)",
            "every category-tree read (strong, whole tree)",
            a.category_reads_per_user_day * category_read_units(m, a) * peak_user_seconds,
            limits.partition_read_units,
            when,
            "cache the tree in the container (it changes only when Plaid's taxonomy does) and send "
            "Cache-Control; an eventually consistent read would halve the units",
        ),
        HotKey(
            "`ACCOUNTS#<user>`",
            "transactions GSI1 (all of a user's transactions)",
            "refining one page of a new item's history",
            burst,
            limits.partition_write_units,
            "burst, one 500-transaction page (assumed latencies)",
            burst_action,
        ),
        HotKey(
            "`ACCOUNTS#<user>#ACCOUNT#<acct>`, `…#CATEGORY#<cat>`",
            "transactions GSI2-GSI4",
            "the same page, split by account and category",
            burst,
            limits.partition_write_units,
            "burst, worst case: one account, one category",
            "as above; in practice a page spreads over several accounts and categories",
        ),
        HotKey(
            "`WEBHOOK_USER#<user>`, `WEBHOOK_ITEM#<item>`",
            "transactions base, GSI1-GSI4 (WEBHOOK_INFO)",
            "one row per handled webhook of the user or item",
            webhooks_per_day * info_units_per_copy / DAY_SECONDS * a.peak_factor,
            limits.partition_write_units,
            "one user, peak",
            "none: per-user keys scale with users, not with traffic of others",
        ),
        HotKey(
            "`ACCOUNTS#<user>`, `BALANCE#<user>`",
            "transactions base (ACCOUNT, BALANCE rows)",
            "every mine rewrites the user's accounts and today's balances",
            webhooks_per_day * m.facts.get("accounts", 1) * 2 / DAY_SECONDS * a.peak_factor,
            limits.partition_write_units,
            "one user, peak",
            "none: one row per account per mine",
        ),
        HotKey(
            "`ITEMS#<item>`",
            "plaid GSI1 (item by id)",
            "one eventually consistent read per webhook",
            webhooks_per_day * 0.5 / DAY_SECONDS * a.peak_factor,
            limits.partition_read_units,
            "one item, peak",
            "none",
        ),
        HotKey(
            "`<item_id>` (Kinesis partition key)",
            "transactions stream",
            "an item's pages, one per throttle delay",
            per_item_records,
            limits.shard_records,
            "one item, records/s",
            "none: item ids hash evenly over shards; per-item order is what the refiner needs",
        ),
    ]
