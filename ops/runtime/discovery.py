"""Read what a Chalice app consumes and with which options.

Two sources, as in production: the app's own event-source registrations
(``app.event_sources``: queue, stream, batch size, batching window, starting position,
schedule expression, event pattern) and the infrastructure declaration, which holds what
Chalice cannot say (filter criteria, bisect on error, the Lambda timeout).
``ReportBatchItemFailures`` is on for every consumer, as the declaration renders it.
Functions the declaration does not know get Lambda's defaults (no filters, no bisect,
a 60 s timeout).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from chalice import Chalice
from chalice.app import (
    CloudWatchEventConfig,
    DynamoDBEventConfig,
    KinesisEventConfig,
    ScheduledEventConfig,
    SQSEventConfig,
)

from chalicelib.infra.declaration import (
    DynamoDBStreamSource,
    Infrastructure,
    KinesisSource,
    Source,
    SqsSource,
)
from ops.runtime.errors import RuntimeConfigError
from ops.runtime.patterns import FilterCriteria

log = logging.getLogger("ops.runtime")

DEFAULT_TIMEOUT = 60
_TABLE_IN_STREAM_ARN = re.compile(r":table/([^/]+)/stream/")


@dataclass(frozen=True)
class ConsumerOptions:
    """The event-source-mapping options Chalice's decorators cannot express."""

    bisect_on_error: bool = False
    filters: FilterCriteria = field(default_factory=FilterCriteria)
    timeout: int = DEFAULT_TIMEOUT


@dataclass(frozen=True)
class SqsSpec:
    function: str
    queue_name: str
    batch_size: int
    batching_window: int
    options: ConsumerOptions


@dataclass(frozen=True)
class KinesisSpec:
    function: str
    stream_name: str
    batch_size: int
    batching_window: int
    starting_position: str
    options: ConsumerOptions


@dataclass(frozen=True)
class DynamoStreamSpec:
    function: str
    table_name: str
    batch_size: int
    batching_window: int
    starting_position: str
    options: ConsumerOptions


@dataclass(frozen=True)
class ScheduleSpec:
    function: str
    expression: str


@dataclass(frozen=True)
class EventRuleSpec:
    function: str
    pattern: dict[str, Any]


@dataclass(frozen=True)
class TtlTable:
    name: str
    ttl_attribute: str


@dataclass(frozen=True)
class AppSources:
    """Everything the runtime will deliver to, resolved from app and declaration."""

    sqs: tuple[SqsSpec, ...] = ()
    kinesis: tuple[KinesisSpec, ...] = ()
    dynamodb: tuple[DynamoStreamSpec, ...] = ()
    schedules: tuple[ScheduleSpec, ...] = ()
    rules: tuple[EventRuleSpec, ...] = ()
    ttl_tables: tuple[TtlTable, ...] = ()
    #: Registrations the runtime cannot deliver (S3, SNS, websockets), by function name.
    unsupported: tuple[str, ...] = ()

    @property
    def timeouts(self) -> dict[str, int]:
        specs: Iterable[SqsSpec | KinesisSpec | DynamoStreamSpec] = (*self.sqs, *self.kinesis, *self.dynamodb)
        return {spec.function: spec.options.timeout for spec in specs}

    def describe(self) -> list[str]:
        """One line per source, for the run command's banner."""
        lines = [f"sqs      {s.queue_name} -> {s.function} (batch {s.batch_size})" for s in self.sqs]
        lines += [f"kinesis  {s.stream_name} -> {s.function} (batch {s.batch_size})" for s in self.kinesis]
        lines += [
            f"dynamodb {s.table_name} -> {s.function} (batch {s.batch_size}, "
            f"{len(s.options.filters.patterns)} filter(s))"
            for s in self.dynamodb
        ]
        lines += [f"schedule {s.expression} -> {s.function}" for s in self.schedules]
        lines += [f"rule     {s.pattern} -> {s.function}" for s in self.rules]
        lines += [f"ttl      {t.name}.{t.ttl_attribute}" for t in self.ttl_tables]
        return lines


def discover(
    app: Chalice,
    infra: Infrastructure,
    functions: Iterable[str] | None = None,
    starting_position: str | None = None,
) -> AppSources:
    """The sources of ``app`` (only ``functions`` when given), with options from ``infra``.

    ``starting_position`` overrides every stream's (tests pass ``LATEST`` so a new runtime
    does not replay what earlier tests wrote to the shared streams).
    """
    wanted = set(functions) if functions is not None else None
    sqs: list[SqsSpec] = []
    kinesis: list[KinesisSpec] = []
    dynamodb: list[DynamoStreamSpec] = []
    schedules: list[ScheduleSpec] = []
    rules: list[EventRuleSpec] = []
    unsupported: list[str] = []
    for config in app.event_sources:
        if wanted is not None and config.name not in wanted:
            continue
        if isinstance(config, SQSEventConfig):
            sqs.append(_sqs_spec(config, infra))
        elif isinstance(config, KinesisEventConfig):
            kinesis.append(_kinesis_spec(config, infra))
        elif isinstance(config, DynamoDBEventConfig):
            dynamodb.append(_dynamo_spec(config, infra))
        elif isinstance(config, ScheduledEventConfig):
            expression = config.schedule_expression
            text = expression if isinstance(expression, str) else expression.to_string()
            schedules.append(ScheduleSpec(config.name, text))
        elif isinstance(config, CloudWatchEventConfig):
            rules.append(EventRuleSpec(config.name, dict(config.event_pattern)))
        else:
            log.warning("the local runtime cannot deliver %s events to %s", type(config).__name__, config.name)
            unsupported.append(config.name)
    if wanted is not None and (missing := wanted - {c.name for c in app.event_sources}):
        raise RuntimeConfigError(f"the app registers no event handler named {sorted(missing)}")
    if starting_position is not None:
        kinesis = [replace(s, starting_position=starting_position) for s in kinesis]
        dynamodb = [replace(s, starting_position=starting_position) for s in dynamodb]
    ttl_tables = tuple(TtlTable(t.name, t.ttl_attribute) for t in infra.tables if t.ttl_attribute)
    return AppSources(
        tuple(sqs), tuple(kinesis), tuple(dynamodb), tuple(schedules), tuple(rules), ttl_tables, tuple(unsupported)
    )


def _declared(infra: Infrastructure, function: str, kind: type[Source]) -> Source | None:
    try:
        consumer = infra.consumer(function)
    except KeyError:
        return None
    if not isinstance(consumer.source, kind):
        raise RuntimeConfigError(
            f"{function} is registered as a {kind.__name__} consumer but declared with {type(consumer.source).__name__}"
        )
    return consumer.source


def _timeout(infra: Infrastructure, function: str) -> int:
    try:
        return infra.consumer(function).timeout
    except KeyError:
        return DEFAULT_TIMEOUT


def _sqs_spec(config: SQSEventConfig, infra: Infrastructure) -> SqsSpec:
    _declared(infra, config.name, SqsSource)
    queue = config.queue or (config.queue_arn or "").rsplit(":", 1)[-1]
    if not queue:
        raise RuntimeConfigError(f"{config.name}: SQS event source names no queue")
    options = ConsumerOptions(timeout=_timeout(infra, config.name))
    return SqsSpec(config.name, queue, config.batch_size, config.maximum_batching_window_in_seconds, options)


def _kinesis_spec(config: KinesisEventConfig, infra: Infrastructure) -> KinesisSpec:
    source = _declared(infra, config.name, KinesisSource)
    bisect = isinstance(source, KinesisSource) and source.bisect_on_error
    options = ConsumerOptions(bisect_on_error=bisect, timeout=_timeout(infra, config.name))
    return KinesisSpec(
        config.name,
        config.stream,
        config.batch_size,
        config.maximum_batching_window_in_seconds,
        config.starting_position,
        options,
    )


def _dynamo_spec(config: DynamoDBEventConfig, infra: Infrastructure) -> DynamoStreamSpec:
    source = _declared(infra, config.name, DynamoDBStreamSource)
    if isinstance(source, DynamoDBStreamSource):
        # The registered ARN is a placeholder until deploy; the declared table is the truth.
        table = infra.table(source.table).name
        options = ConsumerOptions(
            bisect_on_error=source.bisect_on_error,
            filters=FilterCriteria.parse(source.filter_patterns()),
            timeout=_timeout(infra, config.name),
        )
    else:
        match = _TABLE_IN_STREAM_ARN.search(config.stream_arn)
        if not match:
            raise RuntimeConfigError(f"{config.name}: cannot tell the table from stream ARN {config.stream_arn!r}")
        table = match.group(1)
        options = ConsumerOptions()
    return DynamoStreamSpec(
        config.name,
        table,
        config.batch_size,
        config.maximum_batching_window_in_seconds,
        config.starting_position,
        options,
    )
