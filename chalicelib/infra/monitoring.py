"""What operators watch and what the API admits: alarms, the dashboard and the stage's limits.

Declared here as plain data, derived from the infrastructure declaration (every DLQ, every
stream consumer, every table, the stream) and from the app's Lambda functions (every one gets
``Errors`` and ``Throttles`` alarms, so a function added to ``app.py`` is watched without a
line here), plus the service's own metrics. :mod:`chalicelib.infra.monitoring_template`
renders it into the merge template; ``docs/operations.md`` has a section per alarm, named by
its ``runbook`` anchor.

A service metric is named and dimensioned exactly as the code emits it through
:func:`chalicelib.observability.count` (every one carries ``service``);
``tests/e2e/test_alarmed_metrics.py`` runs the handlers, failure paths included, and checks
each metric an alarm or the dashboard reads is in their EMF output with those dimensions.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from chalicelib.infra.declaration import (
    DynamoDBStreamSource,
    Infrastructure,
    KinesisSource,
    Table,
)

#: The namespace and ``service`` dimension of every metric the service emits.
SERVICE = "txn"
LAMBDA = "AWS/Lambda"
SQS = "AWS/SQS"
DYNAMODB = "AWS/DynamoDB"
KINESIS = "AWS/Kinesis"
API_GATEWAY = "AWS/ApiGateway"

#: Template parameters the monitoring adds.
ALARM_TOPIC_PARAMETER = "AlarmTopicArn"
SILENCE_PARAMETER = "WebhookSilenceHours"
DEFAULT_SILENCE_HOURS = 1

FIVE_MINUTES = 300
FIFTEEN_MINUTES = 900
HOUR = 3600

#: Alarm on a stream consumer when its oldest unprocessed record is this old (milliseconds).
#: Records expire after the stream's 24-hour retention and are then lost. A healthy refiner or
#: feeder is seconds behind (one batch), and a burst of history pages minutes; an hour behind,
#: held for 15 minutes, happens only when a record keeps failing (the shard is blocked behind
#: it) or the consumer cannot keep up. At that point 22 of the 24 hours remain to fix the
#: cause, skip the record or replay, and catch up (docs/operations.md).
ITERATOR_AGE_THRESHOLD_MS = HOUR * 1000
#: The Pave miner's ``insight.pave.poll`` outcomes that end a request unmined (chalicelib.insight.pave_miner).
PAVE_GIVEN_UP_OUTCOMES = ("failed", "timed_out", "unknown_request")
#: A failure rate (percent) is judged only over periods with at least this many calls: below
#: that, one failure is a large percentage of nothing (the failures are counted by other alarms).
MIN_CALLS_FOR_A_RATE = 20

Comparison = Literal[
    "GreaterThanOrEqualToThreshold", "GreaterThanThreshold", "LessThanThreshold", "LessThanOrEqualToThreshold"
]
MissingData = Literal["notBreaching", "breaching", "ignore", "missing"]


@dataclass(frozen=True)
class Ref:
    """A resource of the template, by logical id (its ``Ref``: a function's or stream's name)."""

    logical_id: str


@dataclass(frozen=True)
class Attr:
    """An attribute of a template resource (``Fn::GetAtt``), e.g. a queue's ``QueueName``."""

    logical_id: str
    attribute: str


#: A dimension value: literal text, or a name the template knows only once deployed.
DimensionValue = str | Ref | Attr


@dataclass(frozen=True)
class Metric:
    namespace: str
    name: str
    dimensions: tuple[tuple[str, DimensionValue], ...]
    #: ``Sum``, ``Maximum``, ``Average``..., or a percentile (``p99``).
    stat: str = "Sum"

    @property
    def is_service_metric(self) -> bool:
        return self.namespace == SERVICE

    def dimension_map(self) -> dict[str, DimensionValue]:
        return dict(self.dimensions)


def service_metric(name: str, stat: str = "Sum", **dimensions: str) -> Metric:
    """A metric the service emits: namespace ``txn``, dimensions ``service`` plus ``dimensions``."""
    return Metric(SERVICE, name, (("service", SERVICE), *sorted(dimensions.items())), stat)


def aws_metric(namespace: str, name: str, stat: str = "Sum", **dimensions: DimensionValue) -> Metric:
    return Metric(namespace, name, tuple(dimensions.items()), stat)


@dataclass(frozen=True)
class Alarm:
    """One CloudWatch alarm: a metric (or metric math over several) against a threshold.

    ``metrics`` maps expression ids (``m1``...) to metrics; with one metric and no
    ``expression`` the alarm watches the metric itself.
    """

    logical_id: str
    #: What a breach means, in a sentence or two (the alarm's description starts with it).
    meaning: str
    #: The section of docs/operations.md that says how to confirm it and what to do.
    runbook: str
    metrics: tuple[tuple[str, Metric], ...]
    threshold: float
    comparison: Comparison = "GreaterThanOrEqualToThreshold"
    expression: str | None = None
    period: int = FIVE_MINUTES
    #: An int, or a template reference (``{"Ref": parameter}``) resolved at deploy time.
    evaluation_periods: int | dict[str, str] = 1
    datapoints_to_alarm: int | dict[str, str] = 1
    missing_data: MissingData = "notBreaching"
    #: For a percentile statistic: how to judge periods with too few samples.
    low_sample_percentile: Literal["evaluate", "ignore"] | None = None
    #: Create the alarm only in stacks where this holds (a region-pinned table).
    region: str | None = None

    @property
    def single_metric(self) -> Metric | None:
        return self.metrics[0][1] if self.expression is None and len(self.metrics) == 1 else None


@dataclass(frozen=True)
class StageThrottling:
    """API Gateway's throttling of every method of the stage: steady requests/s and burst."""

    rate_limit: float
    burst_limit: int


@dataclass(frozen=True)
class Search:
    """Every series of a service metric with exactly these dimensions (besides ``service``)."""

    name: str
    dimensions: tuple[str, ...]
    stat: str = "Sum"

    @property
    def dimension_names(self) -> frozenset[str]:
        return frozenset(("service", *self.dimensions))

    def expression(self, period: int) -> str:
        schema = ",".join([SERVICE, "service", *sorted(self.dimensions)])
        return f"SEARCH('{{{schema}}} MetricName=\"{self.name}\"', '{self.stat}', {period})"


@dataclass(frozen=True)
class Widget:
    """One dashboard graph: metrics (or search expressions) over time."""

    title: str
    #: Metrics drawn (``label``, metric); a label of "" keeps CloudWatch's own.
    metrics: tuple[tuple[str, Metric], ...] = ()
    #: Service metrics broken down by a dimension (CloudWatch ``SEARCH`` expressions).
    searches: tuple[Search, ...] = ()
    #: Metric math over the ``metrics`` (``label``, expression over ``m0``, ``m1``...), drawn instead of them.
    expressions: tuple[tuple[str, str], ...] = ()
    period: int = FIVE_MINUTES
    stat: str | None = None


@dataclass(frozen=True)
class Monitoring:
    alarms: tuple[Alarm, ...]
    dashboard: tuple[Widget, ...]
    throttling: StageThrottling
    api_name: str
    api_stage: str

    def alarm(self, logical_id: str) -> Alarm:
        for alarm in self.alarms:
            if alarm.logical_id == logical_id:
                return alarm
        raise KeyError(f"no alarm {logical_id!r}")

    def service_metrics(self) -> list[Metric]:
        """Every service metric an alarm or the dashboard reads (each must be emitted as it is named)."""
        found = [metric for alarm in self.alarms for _, metric in alarm.metrics if metric.is_service_metric]
        found += [metric for widget in self.dashboard for _, metric in widget.metrics if metric.is_service_metric]
        return list(dict.fromkeys(found))

    def searches(self) -> list[Search]:
        return list(dict.fromkeys(search for widget in self.dashboard for search in widget.searches))


# --- what each stage admits -------------------------------------------------------------

#: Stage throttling per Chalice stage (others: the default). Prod's steady rate carries the
#: capacity model's busiest hour up to about 900k linked users (55.6 requests/s per 100k) and
#: stays far under the account's 10,000/s, so one runaway client cannot take the account's
#: API Gateway quota or the Lambda concurrency the pipeline shares; the burst admits a spike
#: of twice that for a second. A stage without production traffic gets a tenth.
STAGE_THROTTLING = {"prod": StageThrottling(rate_limit=500.0, burst_limit=1000)}
DEFAULT_THROTTLING = StageThrottling(rate_limit=50.0, burst_limit=100)

#: The keys docs/capacity.md names as the hottest of each table (its "Hot partitions").
HOT_KEYS: dict[str, tuple[str, ...]] = {
    "TransactionsTable": (
        "CATEGORIES (base: the whole category tree, read strongly consistent on every request)",
        "REMOVE (GSI1: every tombstone of every user)",
        "ACCOUNTS#<user> (GSI1: one 500-transaction page of a new item's history)",
        "ACCOUNTS#<user>#ACCOUNT#<acct> and ...#CATEGORY#<cat> (GSI2-GSI4: the same page)",
    ),
    "PlaidTable": ("USERS#<user> and ITEMS#<item> (per user and item: a few writes a day)",),
    "LocksTable": ("balance-alert:user_id:<user> (one lease per user, renewed every second while held)",),
}


# --- the declaration ----------------------------------------------------------------------


def declare_monitoring(
    infra: Infrastructure,
    functions: Mapping[str, str],
    *,
    api_name: str,
    api_stage: str,
) -> Monitoring:
    """Alarms, dashboard and limits of ``infra``'s stage.

    ``functions`` maps each Lambda function the app defines (``mine_webhooks``...) to its
    logical id in the package; ``api_name``/``api_stage`` name the REST API and its stage as
    API Gateway's metrics do.
    """
    alarms = (
        *_dlq_alarms(infra),
        *_iterator_age_alarms(infra, functions),
        *_function_alarms(functions),
        *(_table_alarm(table) for table in infra.tables),
        *_stream_alarms(infra),
        *_service_alarms(),
        *_api_alarms(api_name, api_stage),
    )
    return Monitoring(
        alarms=alarms,
        dashboard=_dashboard(infra, functions, api_name, api_stage),
        throttling=STAGE_THROTTLING.get(infra.stage, DEFAULT_THROTTLING),
        api_name=api_name,
        api_stage=api_stage,
    )


def _one(metric: Metric) -> tuple[tuple[str, Metric], ...]:
    return (("m1", metric),)


def _dlq_alarms(infra: Infrastructure) -> list[Alarm]:
    return [
        Alarm(
            f"{queue.dlq_logical_id}MessagesAlarm",
            f"{queue.dlq_name} holds a message: a message of {queue.name} failed {queue.max_receive_count} times"
            " and waits in the dead-letter queue (kept 14 days).",
            "redrive-a-dead-letter-queue",
            _one(
                aws_metric(
                    SQS,
                    "ApproximateNumberOfMessagesVisible",
                    "Maximum",
                    QueueName=Attr(queue.dlq_logical_id, "QueueName"),
                )
            ),
            threshold=1,
        )
        for queue in infra.queues
    ]


def stream_consumers(infra: Infrastructure, functions: Mapping[str, str]) -> list[tuple[str, str]]:
    """(function, source logical id) of every declared stream consumer the app defines."""
    found = []
    for consumer in infra.consumers:
        if consumer.function not in functions:
            continue
        source = consumer.source
        if isinstance(source, KinesisSource):
            found.append((consumer.function, source.stream))
        elif isinstance(source, DynamoDBStreamSource):
            found.append((consumer.function, source.table))
    return found


def _iterator_age_alarms(infra: Infrastructure, functions: Mapping[str, str]) -> list[Alarm]:
    alarms = []
    for function, source in stream_consumers(infra, functions):
        alarms.append(
            Alarm(
                f"{functions[function]}IteratorAgeAlarm",
                f"{function} has been more than an hour behind its stream ({source}) for 15 minutes. Records"
                " expire after 24 hours and are then lost.",
                "a-stream-consumer-falls-behind",
                _one(aws_metric(LAMBDA, "IteratorAge", "Maximum", FunctionName=Ref(functions[function]))),
                threshold=ITERATOR_AGE_THRESHOLD_MS,
                comparison="GreaterThanThreshold",
                evaluation_periods=3,
                datapoints_to_alarm=3,
            )
        )
    return alarms


def _function_alarms(functions: Mapping[str, str]) -> list[Alarm]:
    alarms = []
    for function, logical_id in functions.items():
        name = Ref(logical_id)
        alarms += [
            Alarm(
                f"{logical_id}ErrorsAlarm",
                f"{function} failed as a whole (an unhandled exception, a timeout or out of memory). Handlers"
                " catch what a message or record does wrong and report it per item, so this is a defect"
                " or an outage, never bad input.",
                "a-function-fails-or-is-throttled",
                _one(aws_metric(LAMBDA, "Errors", FunctionName=name)),
                threshold=1,
            ),
            Alarm(
                f"{logical_id}ThrottlesAlarm",
                f"Lambda refused to run {function} for lack of concurrency in two of the last three 5-minute"
                " periods: the account's concurrency is used up (events wait and are retried; API requests fail).",
                "a-function-fails-or-is-throttled",
                _one(aws_metric(LAMBDA, "Throttles", FunctionName=name)),
                threshold=1,
                evaluation_periods=3,
                datapoints_to_alarm=2,
            ),
        ]
    return alarms


def _table_alarm(table: Table) -> Alarm:
    name: DimensionValue = table.name if table.shared or table.external else Ref(table.logical_id)
    metrics: list[Metric] = []
    for event in ("ReadThrottleEvents", "WriteThrottleEvents"):
        metrics.append(aws_metric(DYNAMODB, event, TableName=name))
        metrics += [
            aws_metric(DYNAMODB, event, TableName=name, GlobalSecondaryIndexName=index.name) for index in table.indexes
        ]
    hot = HOT_KEYS.get(table.logical_id)
    hot_text = " Hot keys: " + "; ".join(hot) + "." if hot else " Its keys are per user: none is shared."
    return Alarm(
        f"{table.logical_id}ThrottleAlarm",
        f"DynamoDB throttled reads or writes on {table.name}"
        + (" or its indexes" if table.indexes else "")
        + " in three consecutive 5-minute periods: a partition (a hot key) or the table's on-demand limit is"
        " exceeded, not a brief burst the batch writer retries." + hot_text,
        "dynamodb-throttles-a-table",
        threshold=1,
        **_summed(metrics),
        evaluation_periods=3,
        datapoints_to_alarm=3,
        region=table.region,
    )


def _stream_alarms(infra: Infrastructure) -> list[Alarm]:
    return [
        Alarm(
            f"{stream.logical_id}WriteThrottleAlarm",
            f"Kinesis refused writes to {stream.name} ({stream.shard_count} shard(s)) in two of the last three"
            " 5-minute periods: the miners write more records or bytes than the shards take.",
            "kinesis-throttles-the-stream",
            _one(aws_metric(KINESIS, "WriteProvisionedThroughputExceeded", StreamName=Ref(stream.logical_id))),
            threshold=1,
            evaluation_periods=3,
            datapoints_to_alarm=2,
        )
        for stream in infra.streams
    ]


def _summed(metrics: Sequence[Metric]) -> dict[str, Any]:
    """``metrics`` and ``expression`` of an alarm on the sum of ``metrics`` (a missing one counts 0)."""
    ids = [f"m{n}" for n in range(1, len(metrics) + 1)]
    return {
        "metrics": tuple(zip(ids, metrics, strict=True)),
        "expression": "SUM([" + ", ".join(f"FILL({i}, 0)" for i in ids) + "])",
    }


def _rate(failed: Sequence[Metric], sent: Metric) -> tuple[tuple[tuple[str, Metric], ...], str]:
    """Metric math for ``100 * sum(failed) / sent``, judged only over periods with enough calls."""
    ids = [f"f{n}" for n in range(1, len(failed) + 1)]
    total = " + ".join(f"FILL({i}, 0)" for i in ids)
    expression = f"IF(sent >= {MIN_CALLS_FOR_A_RATE}, 100 * ({total}) / sent, 0)"
    return (*zip(ids, failed, strict=True), ("sent", sent)), expression


def _plaid_rate_alarm(logical_id: str, meaning: str, runbook: str, types: Sequence[str], percent: float) -> Alarm:
    failed = [service_metric("plaid.request.failed", error_type=t) for t in types]
    metrics, expression = _rate(failed, service_metric("plaid.request.sent"))
    return Alarm(
        logical_id,
        meaning,
        runbook,
        metrics,
        threshold=percent,
        comparison="GreaterThanThreshold",
        expression=expression,
        evaluation_periods=3,
        datapoints_to_alarm=2,
    )


def _pave_rate_alarm(logical_id: str, meaning: str, statuses: Sequence[str], percent: float) -> Alarm:
    failed = [service_metric("peer.request.failed", peer="pave", status=s) for s in statuses]
    metrics, expression = _rate(failed, service_metric("peer.request.sent", peer="pave"))
    return Alarm(
        logical_id,
        meaning,
        "pave-fails",
        metrics,
        threshold=percent,
        comparison="GreaterThanThreshold",
        expression=expression,
        evaluation_periods=3,
        datapoints_to_alarm=2,
    )


def _service_alarms() -> list[Alarm]:
    listener = [service_metric("txn.listener.failed", stage=s) for s in ("message", "item")]
    return [
        Alarm(
            "RefinerSkippedRecordsAlarm",
            "The refiner skipped a record it can never apply (undecodable, unconvertible Plaid data, or"
            " refused by DynamoDB as invalid): that page's rows are missing until the item is mined again.",
            "the-refiner-skips-records",
            _one(service_metric("txn.refiner.record.failed", result="skipped")),
            threshold=1,
        ),
        Alarm(
            "ListenerFailuresAlarm",
            "The listener failed at least 5 logins or items in 15 minutes. It never retries, so each"
            " failure is a login whose remine did not happen.",
            "the-listener-fails",
            threshold=5,
            **_summed(listener),
            period=FIFTEEN_MINUTES,
        ),
        Alarm(
            "ItemRemovalStepFailuresAlarm",
            "At least 5 steps of item removals failed in 15 minutes (mark, record, revoke at Plaid,"
            " announce, recount). Each is retried by its caller, but an item whose revoke keeps failing"
            " is still billed by Plaid.",
            "item-removals-fail",
            _one(service_metric("txn.item.removal.failed")),
            threshold=5,
            period=FIFTEEN_MINUTES,
        ),
        Alarm(
            "WebhookUnauthorizedBurstAlarm",
            "At least 10 webhooks in 5 minutes were refused as not provably from Plaid (401). Plaid signs"
            " every webhook, so a burst is someone else posting to the endpoint, or Plaid's keys and ours"
            " no longer match (environment, client id).",
            "webhooks-are-refused-401",
            _one(service_metric("txn.webhook.unauthorized")),
            threshold=10,
        ),
        Alarm(
            "IntakeVerificationUnavailableAlarm",
            "The webhook intake answered 500 at least 3 times in 5 minutes because it could not fetch"
            " Plaid's verification key: Plaid retries, but new webhooks wait until the key can be read.",
            "the-webhook-intake-answers-500",
            _one(service_metric("txn.intake.failed", reason="verification_unavailable")),
            threshold=3,
        ),
        Alarm(
            "IntakeWebhookNotQueuedAlarm",
            "The webhook intake verified a webhook but could not queue it (SQS failed or throttled) and"
            " answered 500; Plaid retries it.",
            "the-webhook-intake-answers-500",
            _one(service_metric("txn.intake.failed", reason="webhook_not_queued")),
            threshold=1,
        ),
        Alarm(
            "IntakeInternalErrorAlarm",
            "The webhook intake answered 500 for an error it has no name for: a defect.",
            "the-webhook-intake-answers-500",
            _one(service_metric("txn.intake.failed", reason="internal_error")),
            threshold=1,
        ),
        _plaid_rate_alarm(
            "PlaidApiErrorRateAlarm",
            "More than 5% of Plaid calls failed with API_ERROR (Plaid's own failures, 5xx) in two of the last"
            " three 5-minute periods.",
            "plaid-fails",
            ("API_ERROR",),
            5,
        ),
        _plaid_rate_alarm(
            "PlaidRateLimitRateAlarm",
            "More than 2% of Plaid calls were refused with RATE_LIMIT_EXCEEDED in two of the last three"
            " 5-minute periods: the service calls Plaid faster than its limits allow.",
            "plaid-fails",
            ("RATE_LIMIT_EXCEEDED",),
            2,
        ),
        _plaid_rate_alarm(
            "PlaidTransportErrorRateAlarm",
            "More than 5% of Plaid calls timed out or could not connect in two of the last three 5-minute periods.",
            "plaid-fails",
            ("TIMEOUT", "CONNECTION"),
            5,
        ),
        _plaid_rate_alarm(
            "PlaidInvalidRequestRateAlarm",
            "More than 1% of Plaid calls were refused as malformed (INVALID_REQUEST) or answered with a body"
            " the client cannot read (BAD_RESPONSE) in two of the last three 5-minute periods: the service"
            " and Plaid's API disagree.",
            "plaid-fails",
            ("INVALID_REQUEST", "BAD_RESPONSE"),
            1,
        ),
        Alarm(
            "PlaidInvalidApiKeysAlarm",
            "Plaid refused the service's credentials (INVALID_INPUT / INVALID_API_KEYS): every Plaid call"
            " fails until the client id and secret are right.",
            "rotate-the-plaid-secret",
            _one(service_metric("plaid.request.failed", error_type="INVALID_INPUT", error_code="INVALID_API_KEYS")),
            threshold=1,
        ),
        _pave_rate_alarm(
            "PaveServerErrorRateAlarm",
            "More than 10% of Pave calls failed with a 5xx or no answer in two of the last three 5-minute periods.",
            ("500", "502", "503", "504", "none"),
            10,
        ),
        _pave_rate_alarm(
            "PaveRateLimitedRateAlarm",
            "More than 5% of Pave calls were refused with 429 in two of the last three 5-minute periods.",
            ("429",),
            5,
        ),
        Alarm(
            "PaveAuthFailuresAlarm",
            "Pave refused the service's API key (401 or 403): no upload or insight read succeeds until it is fixed.",
            "pave-fails",
            threshold=1,
            **_summed([service_metric("peer.request.failed", peer="pave", status=s) for s in ("401", "403")]),
        ),
        Alarm(
            "PaveRequestsGivenUpAlarm",
            "The Pave miner gave up on at least 3 upload requests in 15 minutes (Pave reported them FAILED,"
            " did not know them, or had not processed them after PAVE_POLL_MAX_ATTEMPTS polls): those users'"
            " Pave insights wait for their next upload.",
            "pave-fails",
            threshold=3,
            **_summed([service_metric("insight.pave.poll", outcome=o) for o in PAVE_GIVEN_UP_OUTCOMES]),
            period=FIFTEEN_MINUTES,
        ),
        Alarm(
            "BalanceAlertLockContentionAlarm",
            "track_balances gave up on a user's balance-alert lock at least 3 times in 15 minutes (a holder"
            " kept it past the wait): those users' updates are retried and end in the DLQ if it persists.",
            "a-stuck-balance-alert-lock-or-alert",
            _one(service_metric("insight.lock", outcome="busy")),
            threshold=3,
            period=FIFTEEN_MINUTES,
        ),
        Alarm(
            "UnreadableRowsAlarm",
            "A stored row could not be read as its entity (data.row.unreadable): a cache was served as a"
            " miss and recomputed, a state row read in the way that loses nothing, a webhook row left out."
            " No request failed; the row is kept for an operator to look at.",
            "a-stored-row-is-unreadable",
            _one(service_metric("data.row.unreadable")),
            threshold=1,
        ),
        Alarm(
            "SyncLoopTakeoverAlarm",
            "Sync loops stalled and were taken over at least 3 times in an hour: a loop's next page never"
            " ran (its message is in the throttle DLQ, or the throttle-miner keeps failing), so its item's"
            " changes waited until another pull took the item over.",
            "a-sync-loop-stalls",
            _one(service_metric("txn.sync.takeover")),
            threshold=3,
            period=HOUR,
        ),
        Alarm(
            "SyncCursorRefusedAlarm",
            "Plaid refused an item's committed sync cursor: the item's whole history is read again from"
            " no cursor (nothing is lost or duplicated, but it costs a full read). Repeated, the service"
            " stores cursors wrong.",
            "a-sync-loop-stalls",
            _one(service_metric("txn.sync.restarted", reason="invalid_cursor")),
            threshold=1,
        ),
        Alarm(
            "WebhookSilenceAlarm",
            "No webhook was received for the hours the WebhookSilenceHours parameter allows: Plaid stopped"
            " sending, or cannot reach the endpoint (DNS, certificate, throttling, a deploy).",
            "no-webhooks-arrive",
            _one(service_metric("txn.webhook.received")),
            threshold=1,
            comparison="LessThanThreshold",
            period=HOUR,
            evaluation_periods={"Ref": SILENCE_PARAMETER},
            datapoints_to_alarm={"Ref": SILENCE_PARAMETER},
            missing_data="breaching",
        ),
    ]


def _api_alarms(api_name: str, api_stage: str) -> list[Alarm]:
    def api(name: str, stat: str = "Sum") -> Metric:
        return aws_metric(API_GATEWAY, name, stat, ApiName=api_name, Stage=api_stage)

    return [
        Alarm(
            "ApiServerErrorRateAlarm",
            f"More than 1% of the requests to the {api_name} API ({api_stage} stage) answered 5xx in two of"
            f" the last three 5-minute periods (judged over periods of at least {MIN_CALLS_FOR_A_RATE} requests).",
            "the-api-answers-5xx-or-slowly",
            (("errors", api("5XXError")), ("requests", api("Count"))),
            threshold=1,
            comparison="GreaterThanThreshold",
            expression=f"IF(requests >= {MIN_CALLS_FOR_A_RATE}, 100 * errors / requests, 0)",
            evaluation_periods=3,
            datapoints_to_alarm=2,
        ),
        Alarm(
            "ApiLatencyP99Alarm",
            f"The 99th percentile of the {api_name} API's latency stayed above 3 seconds for 15 minutes (the"
            " live balance refresh waits on Plaid; every other route answers in tens of milliseconds warm).",
            "the-api-answers-5xx-or-slowly",
            _one(api("Latency", "p99")),
            threshold=3000,
            comparison="GreaterThanThreshold",
            evaluation_periods=3,
            datapoints_to_alarm=3,
            low_sample_percentile="ignore",
        ),
    ]


# --- the dashboard ----------------------------------------------------------------------


def _dashboard(
    infra: Infrastructure, functions: Mapping[str, str], api_name: str, api_stage: str
) -> tuple[Widget, ...]:
    queues = [(q.name, q.logical_id) for q in infra.queues] + [(q.dlq_name, q.dlq_logical_id) for q in infra.queues]

    def api(name: str, stat: str = "Sum") -> Metric:
        return aws_metric(API_GATEWAY, name, stat, ApiName=api_name, Stage=api_stage)

    written = service_metric("txn.refiner.transactions.written")
    return (
        Widget(
            "Webhooks in, by type and code",
            metrics=(("all webhooks", service_metric("txn.webhook.received")),),
            searches=(Search("txn.webhook.received", ("webhook_code", "webhook_type")),),
        ),
        Widget(
            "Webhooks refused (401 by reason) and intake 5xx (by reason)",
            searches=(
                Search("txn.webhook.unauthorized", ("reason",)),
                Search("txn.intake.failed", ("reason",)),
                Search("txn.webhook.rejected", ("reason",)),
            ),
        ),
        Widget(
            "Queue depth (visible messages)",
            metrics=tuple(
                (
                    name,
                    aws_metric(SQS, "ApproximateNumberOfMessagesVisible", "Maximum", QueueName=Attr(lid, "QueueName")),
                )
                for name, lid in queues
            ),
        ),
        Widget(
            "Oldest message age (seconds)",
            metrics=tuple(
                (name, aws_metric(SQS, "ApproximateAgeOfOldestMessage", "Maximum", QueueName=Attr(lid, "QueueName")))
                for name, lid in queues
            ),
        ),
        Widget(
            "Stream consumers' iterator age (ms)",
            metrics=tuple(
                (function, aws_metric(LAMBDA, "IteratorAge", "Maximum", FunctionName=Ref(functions[function])))
                for function, _ in stream_consumers(infra, functions)
            ),
        ),
        Widget(
            "Refined transactions per second",
            metrics=(("", written),),
            expressions=(("transactions/s", "m0 / PERIOD(m0)"),),
        ),
        Widget(
            "Refiner: skipped and retried records",
            metrics=(("skipped", service_metric("txn.refiner.record.failed", result="skipped")),),
            searches=(Search("txn.refiner.record.failed", ("result", "throttle")),),
        ),
        Widget(
            "Plaid errors by type and code",
            metrics=(("calls", service_metric("plaid.request.sent")),),
            searches=(Search("plaid.request.failed", ("error_code", "error_type")),),
        ),
        Widget(
            "Sync loops: takeovers and restarts (by reason)",
            metrics=(("takeovers", service_metric("txn.sync.takeover")),),
            searches=(Search("txn.sync.restarted", ("reason",)),),
        ),
        Widget(
            "Peer services: errors by status",
            searches=(
                Search("peer.request.failed", ("peer", "status")),
                Search("peer.request.sent", ("peer",)),
            ),
        ),
        Widget(
            "Pave: uploads by kind and result, polls by outcome",
            searches=(
                Search("insight.pave.upload", ("kind", "result")),
                Search("insight.pave.poll", ("outcome",)),
            ),
        ),
        Widget(
            "Unreadable stored rows, by entity and reading",
            metrics=(("all", service_metric("data.row.unreadable")),),
            searches=(Search("data.row.unreadable", ("entity", "reading")),),
        ),
        Widget(
            "Listener, removals, balance-alert lock",
            metrics=(
                ("listener failed (message)", service_metric("txn.listener.failed", stage="message")),
                ("listener failed (item)", service_metric("txn.listener.failed", stage="item")),
                ("removal steps failed", service_metric("txn.item.removal.failed")),
                ("lock busy", service_metric("insight.lock", outcome="busy")),
            ),
        ),
        Widget(
            "API: requests, 4xx, 5xx",
            metrics=(("requests", api("Count")), ("4xx", api("4XXError")), ("5xx", api("5XXError"))),
        ),
        Widget(
            "API latency (ms)",
            metrics=(("p50", api("Latency", "p50")), ("p99", api("Latency", "p99"))),
        ),
        Widget(
            "Function errors",
            metrics=tuple(
                (function, aws_metric(LAMBDA, "Errors", FunctionName=Ref(lid))) for function, lid in functions.items()
            ),
        ),
    )
