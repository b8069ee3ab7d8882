"""Factories for the runtime tests: a private declaration and a recording test app."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from chalice import Chalice

from chalicelib.infra.declaration import (
    Consumer,
    DynamoDBStreamSource,
    Infrastructure,
    KinesisSource,
    Queue,
    SqsSource,
    Stream,
    Table,
)

#: The declared filters of the feeder consumers, reduced to one test table.
TTL_REMOVE_OF_LAYER = {
    "eventName": ["REMOVE"],
    "userIdentity": {"type": ["Service"], "principalId": ["dynamodb.amazonaws.com"]},
    "dynamodb": {"OldImage": {"type": {"S": ["LAYER"]}}},
}
ACCOUNT_UPSERT = {"eventName": ["INSERT", "MODIFY"], "dynamodb": {"NewImage": {"type": {"S": ["ACCOUNT"]}}}}


def declaration_for(tag: str, *, batch_size: int = 10, kinesis_batch: int = 10, shards: int = 1) -> Infrastructure:
    """One table, queue and stream named after ``tag``, and consumers with declared options."""
    table = Table("Table", f"rt-{tag}", "PK", "SK", stream_view="NEW_AND_OLD_IMAGES", ttl_attribute="ttl")
    return Infrastructure(
        stage="test",
        tables=(table,),
        queues=(Queue("Queue", f"rt-{tag}", visibility_timeout=30),),
        streams=(Stream("Stream", f"rt-{tag}", shard_count=shards),),
        buses=(),
        rules=(),
        consumers=(
            Consumer("on_queue", SqsSource("Queue", batch_size=batch_size)),
            Consumer("on_stream", KinesisSource("Stream", batch_size=kinesis_batch, bisect_on_error=True)),
            Consumer("on_stream_plain", KinesisSource("Stream", batch_size=kinesis_batch, bisect_on_error=False)),
            Consumer("on_feed", DynamoDBStreamSource("Table", filters=(TTL_REMOVE_OF_LAYER, ACCOUNT_UPSERT))),
            Consumer("on_changes", DynamoDBStreamSource("Table", filters=())),
        ),
    )


@dataclass
class Recorder:
    """What each handler received, in delivery order."""

    batches: dict[str, list[list[dict[str, Any]]]] = field(default_factory=dict)
    _lock: threading.Condition = field(default_factory=threading.Condition)

    def record(self, function: str, records: list[dict[str, Any]]) -> None:
        with self._lock:
            self.batches.setdefault(function, []).append(records)
            self._lock.notify_all()

    def wait_for(self, function: str, timeout: float = 10.0) -> list[dict[str, Any]]:
        """The records ``function`` received, once it received any (a runtime delivering in a thread)."""
        with self._lock:
            self._lock.wait_for(lambda: self.batches.get(function), timeout=timeout)
        return self.records(function)

    def records(self, function: str) -> list[dict[str, Any]]:
        return [r for batch in self.batches.get(function, []) for r in batch]

    def sizes(self, function: str) -> list[int]:
        return [len(batch) for batch in self.batches.get(function, [])]


Behaviour = Callable[[list[dict[str, Any]]], Any]


def ok(records: list[dict[str, Any]]) -> None:
    return None


def stream_arn_placeholder(table: Table) -> str:
    return f"arn:aws:dynamodb:us-east-1:123456789012:table/{table.name}/stream/unset"


def build_app(
    infra: Infrastructure,
    recorder: Recorder,
    *,
    on_queue: Behaviour | None = None,
    on_stream: Behaviour | None = None,
    on_stream_plain: Behaviour | None = None,
    on_feed: Behaviour | None = None,
    on_changes: Behaviour | None = None,
    starting_position: str = "TRIM_HORIZON",
) -> Chalice:
    """A Chalice app registering only the handlers given, with plain Chalice decorators."""
    app = Chalice(app_name="rt-test", configure_logs=False)
    queue, stream, table = infra.queues[0], infra.streams[0], infra.tables[0]

    def source_batch(name: str) -> int:
        source = infra.consumer(name).source
        assert isinstance(source, SqsSource | KinesisSource | DynamoDBStreamSource)
        return source.batch_size

    def handler(name: str, behaviour: Behaviour) -> Callable[[Any], Any]:
        def handle(event: Any) -> Any:
            records = event.to_dict()["Records"]
            recorder.record(name, records)
            return behaviour(records)

        handle.__name__ = name
        return handle

    if on_queue:
        app.on_sqs_message(queue=queue.name, batch_size=source_batch("on_queue"), name="on_queue")(
            handler("on_queue", on_queue)
        )
    for name, behaviour in (("on_stream", on_stream), ("on_stream_plain", on_stream_plain)):
        if behaviour:
            app.on_kinesis_record(
                stream=stream.name, batch_size=source_batch(name), starting_position=starting_position, name=name
            )(handler(name, behaviour))
    for name, behaviour in (("on_feed", on_feed), ("on_changes", on_changes)):
        if behaviour:
            app.on_dynamodb_record(
                stream_arn=stream_arn_placeholder(table),
                batch_size=source_batch(name),
                starting_position=starting_position,
                name=name,
            )(handler(name, behaviour))
    return app
