"""The one factory for AWS clients.

Clients are built lazily (a cold start pays only for the services a handler uses), share
one botocore ``Config`` (standard retry mode with jitter, bounded timeouts) and honour
``AWS_ENDPOINT_URL`` so the same code talks to AWS, moto server or LocalStack.
"""

from __future__ import annotations

import threading
from functools import cache
from typing import TYPE_CHECKING, Any

import boto3
from botocore.config import Config

from chalicelib.settings import get_settings

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.service_resource import DynamoDBServiceResource, Table
    from mypy_boto3_events.client import EventBridgeClient
    from mypy_boto3_kinesis.client import KinesisClient
    from mypy_boto3_sqs.client import SQSClient

_lock = threading.Lock()


def botocore_config() -> Config:
    """Retry and timeout policy shared by every client."""
    settings = get_settings()
    return Config(
        region_name=settings.region,
        retries={"mode": "standard", "max_attempts": settings.aws_max_attempts},
        connect_timeout=settings.aws_connect_timeout,
        read_timeout=settings.aws_read_timeout,
        tcp_keepalive=True,
    )


@cache
def _session() -> boto3.session.Session:
    return boto3.session.Session()


@cache
def client(service: str) -> Any:
    """A cached low-level client for ``service``."""
    settings = get_settings()
    with _lock:  # boto3 sessions are not thread-safe while creating clients
        return _session().client(
            service,  # type: ignore[call-overload]
            endpoint_url=settings.aws_endpoint_url,
            region_name=settings.region,
            config=botocore_config(),
        )


def dynamodb(region: str | None = None) -> DynamoDBServiceResource:
    """The DynamoDB resource of ``region`` (default: the deploy region).

    Its client speaks Python types (Decimal, not AttributeValue). A table that lives in
    another region (the shared ``plaid-account-changes``) gets its own resource there.
    """
    return _dynamodb(region or get_settings().region)


@cache
def _dynamodb(region: str) -> DynamoDBServiceResource:
    settings = get_settings()
    config = botocore_config().merge(Config(region_name=region))
    with _lock:
        return _session().resource(
            "dynamodb",
            endpoint_url=settings.aws_endpoint_url,
            region_name=region,
            config=config,
        )


def table(name: str, region: str | None = None) -> Table:
    """A handle on the DynamoDB table ``name`` in ``region`` (default: the deploy region; no network call)."""
    return _table(name, region or get_settings().region)


@cache
def _table(name: str, region: str) -> Table:
    # boto3 builds a new resource class for every Table() call: one handle per table instead.
    return _dynamodb(region).Table(name)


def sqs() -> SQSClient:
    return client("sqs")  # type: ignore[no-any-return]


def kinesis() -> KinesisClient:
    return client("kinesis")  # type: ignore[no-any-return]


def events() -> EventBridgeClient:
    return client("events")  # type: ignore[no-any-return]


def reset_clients() -> None:
    """Drop cached clients so the next call re-reads settings (tests, endpoint changes).

    The session stays: it holds no setting (every client gets its endpoint, region and config
    from settings when built), and a new one would read every service model from disk again.
    """
    client.cache_clear()
    _dynamodb.cache_clear()
    _table.cache_clear()
