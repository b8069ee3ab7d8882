"""Fixtures for the pipeline tests: a capture queue for published events, setting overrides."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import boto3
import pytest

from chalicelib.aws.clients import reset_clients
from chalicelib.aws.messaging import queue_url
from chalicelib.settings import get_settings, reset_settings


@pytest.fixture
def override_settings(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[..., None]]:
    """Set environment variables for one test and re-read settings; undone afterwards."""

    def apply(**env: str) -> None:
        for key, value in env.items():
            monkeypatch.setenv(key, value)
        reset_settings()
        reset_clients()
        queue_url.cache_clear()

    yield apply
    monkeypatch.undo()
    reset_settings()
    reset_clients()
    queue_url.cache_clear()


class Capture:
    """Reads what reached a queue, keeping only messages that match a predicate."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.sqs = boto3.client("sqs")
        self.seen: list[dict[str, Any]] = []

    def drain(self) -> list[dict[str, Any]]:
        while True:
            messages = self.sqs.receive_message(QueueUrl=self.url, MaxNumberOfMessages=10, WaitTimeSeconds=0).get(
                "Messages", []
            )
            if not messages:
                return self.seen
            for m in messages:
                self.seen.append(json.loads(m["Body"]))
                self.sqs.delete_message(QueueUrl=self.url, ReceiptHandle=m["ReceiptHandle"])

    def matching(self, predicate: Callable[[dict[str, Any]], bool]) -> list[dict[str, Any]]:
        return [m for m in self.drain() if predicate(m)]


@pytest.fixture(scope="session")
def event_capture(aws_endpoint: str) -> Capture:
    """Every event published on the service's bus, copied to a test queue by a rule."""
    sqs, events = boto3.client("sqs"), boto3.client("events")
    url = sqs.create_queue(QueueName="test-event-capture")["QueueUrl"]
    arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    bus = get_settings().event_bus
    events.put_rule(Name="test-capture-all", EventBusName=bus, EventPattern=json.dumps({"source": ["txn.service"]}))
    events.put_targets(Rule="test-capture-all", EventBusName=bus, Targets=[{"Id": "capture", "Arn": arn}])
    return Capture(url)


@pytest.fixture(scope="session")
def replay_feeder(aws_endpoint: str) -> Capture:
    """The insight replay-feeder queue, read as a test would read a peer's inbox."""
    return Capture(queue_url(get_settings().replay_feeder_queue))
