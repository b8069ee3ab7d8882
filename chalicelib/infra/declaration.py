"""The one declaration of the service's infrastructure.

Everything AWS holds for the service (tables, queues and their DLQs, the Kinesis stream,
the event buses and rules) and every event-source option Chalice cannot express is
declared here once, as plain data. Two renderers read it:

* :mod:`chalicelib.infra.cloudformation` turns it into the ``chalice package`` merge template;
* :mod:`chalicelib.infra.bootstrap` creates the same resources on a local endpoint.

Names come from :mod:`chalicelib.settings`, so they follow the stage (``dev-txn-...``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, TypeVar

from chalicelib.settings import Settings, get_settings

StreamView = Literal["NEW_AND_OLD_IMAGES"]
StartingPosition = Literal["TRIM_HORIZON", "LATEST"]
#: What the service's functions may do with a table's rows (the policy's actions follow from it):
#: ``read_write`` everything but Scan; ``read`` point and key reads; ``write`` puts only (write-only
#: tables such as the analytics capture); ``lease`` get, put and update of single rows, never delete (locks).
TableAccess = Literal["read_write", "read", "write", "lease"]

#: Receives before SQS moves a message to its DLQ.
MAX_RECEIVE_COUNT = 5
#: Lambda's recommendation: visibility timeout at least six times the function timeout.
VISIBILITY_TO_TIMEOUT_RATIO = 6
DLQ_RETENTION_SECONDS = 14 * 24 * 3600
QUEUE_RETENTION_SECONDS = 4 * 24 * 3600


@dataclass(frozen=True)
class Index:
    """A global secondary index ``GSI<n>`` keyed ``GSI<n>PK`` / ``GSI<n>SK`` (string)."""

    name: str

    @property
    def hash_key(self) -> str:
        return f"{self.name}PK"

    @property
    def range_key(self) -> str:
        return f"{self.name}SK"


@dataclass(frozen=True)
class Table:
    logical_id: str
    name: str
    hash_key: str
    range_key: str | None = None
    indexes: tuple[Index, ...] = ()
    stream_view: StreamView | None = None
    ttl_attribute: str | None = None
    #: Shared across stages (no stage prefix); CloudFormation creates it only on request.
    shared: bool = False
    #: Owned by another service (no stage prefix): CloudFormation creates it only on request
    #: (an account where that service does not run); the local bootstrap always does.
    external: bool = False
    access: TableAccess = "read_write"
    #: The region the table lives in when it is pinned to one; None = the deploy region.
    region: str | None = None

    @property
    def key_attributes(self) -> tuple[str, ...]:
        keys = [self.hash_key] + ([self.range_key] if self.range_key else [])
        for index in self.indexes:
            keys += [index.hash_key, index.range_key]
        return tuple(keys)


@dataclass(frozen=True)
class Queue:
    logical_id: str
    name: str
    visibility_timeout: int
    delay_seconds: int = 0
    max_receive_count: int = MAX_RECEIVE_COUNT

    @property
    def dlq_logical_id(self) -> str:
        return f"{self.logical_id}Dlq"

    @property
    def dlq_name(self) -> str:
        return f"{self.name}-dlq"


@dataclass(frozen=True)
class Stream:
    logical_id: str
    name: str
    shard_count: int = 1
    retention_hours: int = 24


@dataclass(frozen=True)
class EventBus:
    logical_id: str
    name: str
    #: Created by someone else (Auth0's partner bus); CloudFormation only refers to it.
    external: bool = False


@dataclass(frozen=True)
class Rule:
    logical_id: str
    name: str
    bus: str  # EventBus.logical_id
    pattern: dict[str, Any]
    target_queue: str  # Queue.logical_id


# --- event sources: what Chalice's decorators cannot say ------------------------------


@dataclass(frozen=True)
class SqsSource:
    queue: str  # Queue.logical_id
    batch_size: int = 10
    batching_window: int = 0
    maximum_concurrency: int | None = None


@dataclass(frozen=True)
class KinesisSource:
    stream: str  # Stream.logical_id
    batch_size: int = 100
    batching_window: int = 0
    starting_position: StartingPosition = "TRIM_HORIZON"
    bisect_on_error: bool = True


@dataclass(frozen=True)
class DynamoDBStreamSource:
    table: str  # Table.logical_id
    filters: tuple[dict[str, Any], ...]
    batch_size: int = 100
    batching_window: int = 0
    starting_position: StartingPosition = "TRIM_HORIZON"
    bisect_on_error: bool = True

    def filter_patterns(self) -> list[str]:
        """Patterns serialised the way Lambda's ``FilterCriteria`` wants them."""
        return [json.dumps(f, separators=(",", ":"), sort_keys=True) for f in self.filters]


Source = SqsSource | KinesisSource | DynamoDBStreamSource


@dataclass(frozen=True)
class Consumer:
    """One Lambda function fed by one event source, with partial batch responses."""

    function: str
    source: Source
    #: Lambda timeout in seconds; SQS visibility timeouts are derived from it.
    timeout: int = 60


@dataclass(frozen=True)
class Infrastructure:
    stage: str
    tables: tuple[Table, ...]
    queues: tuple[Queue, ...]
    streams: tuple[Stream, ...]
    buses: tuple[EventBus, ...]
    rules: tuple[Rule, ...]
    consumers: tuple[Consumer, ...] = field(default=())

    def table(self, logical_id: str) -> Table:
        return _find(self.tables, logical_id)

    def queue(self, logical_id: str) -> Queue:
        return _find(self.queues, logical_id)

    def stream(self, logical_id: str) -> Stream:
        return _find(self.streams, logical_id)

    def bus(self, logical_id: str) -> EventBus:
        return _find(self.buses, logical_id)

    def consumer(self, function: str) -> Consumer:
        for consumer in self.consumers:
            if consumer.function == function:
                return consumer
        raise KeyError(f"no consumer declared for function {function!r}")


def stream_arn_variable(table: Table) -> str:
    """The environment variable that carries ``table``'s stream ARN at ``chalice deploy`` time.

    Declared here (not beside the decorators) so tools without Chalice installed, such as
    the LocalStack init hook running the bootstrap, can name it too.
    """
    return f"{table.logical_id.upper()}_STREAM_ARN"


class _Named(Protocol):
    @property
    def logical_id(self) -> str: ...


_N = TypeVar("_N", bound=_Named)


def _find(items: tuple[_N, ...], logical_id: str) -> _N:
    for item in items:
        if item.logical_id == logical_id:
            return item
    raise KeyError(f"nothing declared with logical id {logical_id!r}")


# --- the declaration ------------------------------------------------------------------

TRANSACTIONS_TABLE = "TransactionsTable"
PLAID_TABLE = "PlaidTable"
INSTITUTIONS_TABLE = "InstitutionsTable"
ACCOUNT_CHANGES_TABLE = "AccountChangesTable"
PAVE_TABLE = "PaveTable"
INCOME_DETECTION_TABLE = "IncomeDetectionTable"
DATA_CAPTURE_TABLE = "DataCaptureTable"
USER_BALANCE_SETTINGS_TABLE = "UserBalanceSettingsTable"
LOCKS_TABLE = "LocksTable"
WEBHOOKS_QUEUE = "WebhooksQueue"
THROTTLE_QUEUE = "ThrottleQueue"
LISTENER_QUEUE = "ListenerQueue"
REPLAY_FEEDER_QUEUE = "ReplayFeederQueue"
BALANCE_UPDATES_QUEUE = "BalanceUpdatesQueue"
PAVE_FEED_QUEUE = "PaveFeedQueue"
PAVE_POLL_QUEUE = "PavePollQueue"
TRANSACTIONS_STREAM = "TransactionsStream"
EVENT_BUS = "EventBus"
AUTH0_BUS = "Auth0EventBus"
AUTH0_LOGIN_RULE = "Auth0LoginRule"
NEW_TXNS_RULE = "NewTxnsBatchRule"

#: The ``source`` of every event the service publishes (``chalicelib.aws.messaging.EVENT_SOURCE``).
SERVICE_EVENT_SOURCE = "txn.service"
#: The refiner's event after the last page of a mine (``chalicelib.events.publisher``).
NEW_TXNS_BATCH_COMPLETED = "user_new_txns_batch_completed"

#: Auth0 log event types that count as a login (the listener's first step, ``docs/item-lifecycle.md``).
AUTH0_LOGIN_TYPES = ("gd_auth_succeed", "sepft", "sertft")

#: TTL deletions are REMOVE records made by the DynamoDB service itself.
_TTL_REMOVE = {
    "eventName": ["REMOVE"],
    "userIdentity": {"type": ["Service"], "principalId": ["dynamodb.amazonaws.com"]},
}

#: Consumer function name -> Lambda timeout; queues fed to a consumer get 6x as visibility.
CONSUMER_TIMEOUTS = {
    "mine_webhooks": 120,
    "mine_throttled": 120,
    "refine_transactions": 120,
    "feed_transactions_table": 60,
    "feed_plaid_table": 60,
    "listen_auth0": 60,
    # A lock held by a crashed holder of another service is taken over only after its lease
    # (60 s) passes unrenewed, so one message may wait that long.
    "track_balances": 120,
    # The insight service's Pave consumers stop taking new users when under a minute is left
    # (chalicelib.insight.batches), so a slow Pave defers messages instead of timing out.
    "feed_pave": 300,
    "feed_pave_removals": 120,
    "mine_pave": 120,
}


def _visibility(function: str) -> int:
    return CONSUMER_TIMEOUTS[function] * VISIBILITY_TO_TIMEOUT_RATIO


def insight_tables(s: Settings) -> tuple[Table, ...]:
    """The insight service's tables (see docs/access-patterns.md for every key they hold).

    ``pave`` is a single table (every insight entity, ``type`` discriminator); the run log
    and the analytics capture are only ever written; the balance settings are only read;
    ``locks`` has the layout of cirello.io/dynamolock (partition key ``key``, no sort key,
    no TTL) so lockers in other services share it.
    """
    return (
        Table(PAVE_TABLE, s.pave_table, "PK", "SK", ttl_attribute="ttl"),
        Table(INCOME_DETECTION_TABLE, s.income_detection_table, "PK", "SK", ttl_attribute="ttl", access="write"),
        Table(DATA_CAPTURE_TABLE, s.data_capture_table, "PK", "SK", ttl_attribute="ttl", access="write"),
        Table(USER_BALANCE_SETTINGS_TABLE, s.user_balance_settings_table, "user_id", external=True, access="read"),
        Table(LOCKS_TABLE, s.locks_table, "key", external=True, access="lease"),
    )


def declare(settings: Settings | None = None) -> Infrastructure:
    """The infrastructure of one stage, named by ``settings`` (default: the process's)."""
    s = settings or get_settings()
    gsi = tuple(Index(f"GSI{n}") for n in (1, 2, 3, 4))
    tables = (
        Table(
            TRANSACTIONS_TABLE,
            s.transactions_table,
            "PK",
            "SK",
            indexes=gsi,
            stream_view="NEW_AND_OLD_IMAGES",
            ttl_attribute="ttl",
        ),
        Table(
            PLAID_TABLE,
            s.plaid_table,
            "PK",
            "SK",
            indexes=gsi[:2],
            stream_view="NEW_AND_OLD_IMAGES",
            ttl_attribute="ttl",
        ),
        Table(INSTITUTIONS_TABLE, s.institutions_table, "institution_id"),
        Table(
            ACCOUNT_CHANGES_TABLE,
            s.account_changes_table,
            "user_id",
            "change_date",
            shared=True,
            region=s.account_changes_region,
        ),
        *insight_tables(s),
    )
    queues = (
        Queue(WEBHOOKS_QUEUE, s.webhooks_queue, _visibility("mine_webhooks")),
        Queue(THROTTLE_QUEUE, s.throttle_queue, _visibility("mine_throttled"), delay_seconds=30),
        Queue(LISTENER_QUEUE, s.listener_queue, _visibility("listen_auth0")),
        # Written by the refiner ({user_id, removed}: re-tombstoned and ordinary removals), read by the Pave feeder.
        Queue(REPLAY_FEEDER_QUEUE, s.replay_feeder_queue, _visibility("feed_pave_removals")),
        Queue(PAVE_FEED_QUEUE, s.pave_feed_queue, _visibility("feed_pave")),
        # Polls of Pave upload requests; a message's own DelaySeconds (backoff) overrides the 30 s.
        Queue(PAVE_POLL_QUEUE, s.pave_poll_queue, _visibility("mine_pave"), delay_seconds=30),
        # Written by the refiner, the balance refresh and item removal; read by track_balances.
        Queue(BALANCE_UPDATES_QUEUE, s.balance_updates_queue, _visibility("track_balances")),
    )
    streams = (Stream(TRANSACTIONS_STREAM, s.transactions_stream),)
    buses = (
        EventBus(EVENT_BUS, s.event_bus),
        EventBus(AUTH0_BUS, s.auth0_event_bus, external=True),
    )
    rules = (
        Rule(
            AUTH0_LOGIN_RULE,
            f"{s.stage}-txn-auth0-login",
            AUTH0_BUS,
            {"detail": {"data": {"type": [{"equals-ignore-case": t} for t in AUTH0_LOGIN_TYPES]}}},
            LISTENER_QUEUE,
        ),
        Rule(
            NEW_TXNS_RULE,
            f"{s.stage}-insight-new-txns-batch",
            EVENT_BUS,
            {"source": [SERVICE_EVENT_SOURCE], "detail-type": [NEW_TXNS_BATCH_COMPLETED]},
            PAVE_FEED_QUEUE,
        ),
    )
    consumers = (
        Consumer("mine_webhooks", SqsSource(WEBHOOKS_QUEUE, batch_size=10), CONSUMER_TIMEOUTS["mine_webhooks"]),
        Consumer("mine_throttled", SqsSource(THROTTLE_QUEUE, batch_size=1), CONSUMER_TIMEOUTS["mine_throttled"]),
        Consumer(
            "refine_transactions",
            KinesisSource(TRANSACTIONS_STREAM, batch_size=10),
            CONSUMER_TIMEOUTS["refine_transactions"],
        ),
        Consumer(
            "feed_transactions_table",
            DynamoDBStreamSource(
                TRANSACTIONS_TABLE,
                filters=(
                    {**_TTL_REMOVE, "dynamodb": {"OldImage": {"type": {"S": ["LAYER"]}}}},
                    {"eventName": ["INSERT", "MODIFY"], "dynamodb": {"NewImage": {"type": {"S": ["ACCOUNT"]}}}},
                ),
            ),
            CONSUMER_TIMEOUTS["feed_transactions_table"],
        ),
        Consumer(
            "feed_plaid_table",
            DynamoDBStreamSource(
                PLAID_TABLE,
                filters=(
                    {**_TTL_REMOVE, "dynamodb": {"OldImage": {"type": {"S": ["ITEM"]}}}},
                    # A main-account change is announced as new_account (is_main); refreshes without
                    # a main account are filtered out, the others checked by the handler.
                    {
                        "eventName": ["MODIFY"],
                        "dynamodb": {
                            "NewImage": {"type": {"S": ["ITEM"]}, "main_account_id": {"S": [{"exists": True}]}}
                        },
                    },
                ),
            ),
            CONSUMER_TIMEOUTS["feed_plaid_table"],
        ),
        Consumer("listen_auth0", SqsSource(LISTENER_QUEUE, batch_size=10), CONSUMER_TIMEOUTS["listen_auth0"]),
        Consumer(
            "track_balances", SqsSource(BALANCE_UPDATES_QUEUE, batch_size=10), CONSUMER_TIMEOUTS["track_balances"]
        ),
        Consumer("feed_pave", SqsSource(PAVE_FEED_QUEUE, batch_size=10), CONSUMER_TIMEOUTS["feed_pave"]),
        Consumer(
            "feed_pave_removals",
            SqsSource(REPLAY_FEEDER_QUEUE, batch_size=10),
            CONSUMER_TIMEOUTS["feed_pave_removals"],
        ),
        Consumer("mine_pave", SqsSource(PAVE_POLL_QUEUE, batch_size=10), CONSUMER_TIMEOUTS["mine_pave"]),
    )
    return Infrastructure(s.stage, tables, queues, streams, buses, rules, consumers)
