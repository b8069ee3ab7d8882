"""Register event handlers on the Chalice app from the infrastructure declaration.

``app.py`` declares each consumer with one of these decorators instead of Chalice's own,
so the queue, stream, batch size and batching window come from the same declaration that
the CloudFormation renderer and the local event runtime read. The decorators still call
Chalice's, so ``chalice package``/``deploy``/``local`` and the test client see ordinary
event sources.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from chalice import Chalice

from chalicelib.infra.declaration import (
    DynamoDBStreamSource,
    KinesisSource,
    SqsSource,
    Table,
    declare,
    stream_arn_variable,
)
from chalicelib.settings import get_settings

Handler = Callable[[Any], Any]


def _stream_arn(table: Table) -> str:
    # A DynamoDB stream ARN embeds its creation time, so it is unknown until the table
    # exists: the merge template replaces this with GetAtt, `chalice deploy` reads it
    # from the environment, and the placeholder only keeps imports working.
    placeholder = f"arn:aws:dynamodb:{get_settings().region}:000000000000:table/{table.name}/stream/unset"
    return os.environ.get(stream_arn_variable(table), placeholder)


def sqs_consumer(app: Chalice, function: str) -> Callable[[Handler], Handler]:
    infra = declare()
    source = infra.consumer(function).source
    if not isinstance(source, SqsSource):
        raise TypeError(f"{function} is declared with {type(source).__name__}, not SqsSource")
    kwargs: dict[str, Any] = {}
    if source.maximum_concurrency is not None:
        kwargs["maximum_concurrency"] = source.maximum_concurrency
    return app.on_sqs_message(
        queue=infra.queue(source.queue).name,
        batch_size=source.batch_size,
        maximum_batching_window_in_seconds=source.batching_window,
        name=function,
        **kwargs,
    )


def kinesis_consumer(app: Chalice, function: str) -> Callable[[Handler], Handler]:
    infra = declare()
    source = infra.consumer(function).source
    if not isinstance(source, KinesisSource):
        raise TypeError(f"{function} is declared with {type(source).__name__}, not KinesisSource")
    return app.on_kinesis_record(
        stream=infra.stream(source.stream).name,
        batch_size=source.batch_size,
        starting_position=source.starting_position,
        maximum_batching_window_in_seconds=source.batching_window,
        name=function,
    )


def dynamodb_stream_consumer(app: Chalice, function: str) -> Callable[[Handler], Handler]:
    infra = declare()
    source = infra.consumer(function).source
    if not isinstance(source, DynamoDBStreamSource):
        raise TypeError(f"{function} is declared with {type(source).__name__}, not DynamoDBStreamSource")
    return app.on_dynamodb_record(
        stream_arn=_stream_arn(infra.table(source.table)),
        batch_size=source.batch_size,
        starting_position=source.starting_position,
        maximum_batching_window_in_seconds=source.batching_window,
        name=function,
    )
