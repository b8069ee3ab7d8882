"""The one factory for AWS clients.

Clients are built lazily (a cold start pays only for the services a handler uses), share
one botocore ``Config`` (standard retry mode with jitter, bounded timeouts) and honour
``AWS_ENDPOINT_URL`` so the same code talks to AWS, moto server or LocalStack.
"""

from __future__ import annotations

import itertools
import threading
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import cache
from typing import TYPE_CHECKING, Any, NamedTuple

import boto3
import botocore.session
from botocore.config import Config

from chalicelib.aws import dynamodb_parser
from chalicelib.settings import get_settings

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.service_resource import DynamoDBServiceResource, Table
    from mypy_boto3_events.client import EventBridgeClient
    from mypy_boto3_kinesis.client import KinesisClient
    from mypy_boto3_sqs.client import SQSClient

_lock = threading.Lock()


class ClientKey(NamedTuple):
    """What a client is built from: the settings it reads. Clients are cached by it, so re-reading
    settings (tests, a changed endpoint) builds a new client only when one of these changed."""

    endpoint: str | None
    region: str
    max_attempts: int
    connect_timeout: float
    read_timeout: float


def _client_key(region: str | None = None) -> ClientKey:
    settings = get_settings()
    return ClientKey(
        settings.aws_endpoint_url,
        region or settings.region,
        settings.aws_max_attempts,
        settings.aws_connect_timeout,
        settings.aws_read_timeout,
    )


def _config(key: ClientKey) -> Config:
    return Config(
        region_name=key.region,
        retries={"mode": "standard", "max_attempts": key.max_attempts},
        connect_timeout=key.connect_timeout,
        read_timeout=key.read_timeout,
        tcp_keepalive=True,
    )


@cache
def _botocore_session() -> botocore.session.Session:
    return dynamodb_parser.install(botocore.session.get_session())


@cache
def _session() -> boto3.session.Session:
    """The session every client is built from; its clients parse DynamoDB's items directly
    (:mod:`chalicelib.aws.dynamodb_parser`)."""
    return boto3.session.Session(botocore_session=_botocore_session())


@cache
def _resource_session() -> boto3.session.Session:
    """The session DynamoDB resources are built from: their clients parse responses straight to
    Python values (:mod:`chalicelib.aws.dynamodb_types`). It shares the clients' session's loader,
    so the service models are read from disk once."""
    from chalicelib.aws.dynamodb_types import DynamoDBPythonParserFactory

    session = botocore.session.get_session()
    session.register_component("data_loader", _botocore_session().get_component("data_loader"))
    session.register_component("response_parser_factory", DynamoDBPythonParserFactory())
    return boto3.session.Session(botocore_session=session)


def client(service: str) -> Any:
    """A cached low-level client for ``service``."""
    return _client(service, _client_key())


@cache
def _client(service: str, key: ClientKey) -> Any:
    with _lock:  # boto3 sessions are not thread-safe while creating clients
        built = _session().client(
            service,  # type: ignore[call-overload]
            endpoint_url=key.endpoint,
            region_name=key.region,
            config=_config(key),
        )
        if service == "dynamodb":
            _track(built)
        return built


class _ThreadHandles(threading.local):
    """One thread's DynamoDB resources and tables (a fresh, empty set in every thread)."""

    def __init__(self) -> None:
        self.generation = -1
        self.resources: dict[ClientKey, DynamoDBServiceResource] = {}
        self.tables: dict[tuple[str, ClientKey], Table] = {}


_handles = _ThreadHandles()
#: Raised by :func:`reset_clients`; a thread whose handles are older drops them.
_generation = 0


def _thread_handles() -> _ThreadHandles:
    handles = _handles
    if handles.generation != _generation:
        handles.resources.clear()
        handles.tables.clear()
        handles.generation = _generation
    return handles


def dynamodb(region: str | None = None) -> DynamoDBServiceResource:
    """This thread's DynamoDB resource of ``region`` (default: the deploy region).

    Its client speaks Python types (Decimal, not AttributeValue). A table that lives in
    another region (the shared ``plaid-account-changes``) gets its own resource there.

    **One per thread.** A resource turns ``Key(...)``/``Attr(...)`` conditions into expressions
    with one placeholder counter that every request through it resets: two threads sharing it
    overwrite each other's placeholders (a query goes out without its ``PK``). Clients are
    thread-safe and shared; resources, and the tables built on them, never cross a thread.
    """
    key = _client_key(region)
    handles = _thread_handles()
    resource = handles.resources.get(key)
    if resource is None:
        with _lock:  # boto3 sessions are not thread-safe while creating clients
            from chalicelib.aws.dynamodb_types import python_values

            resource = python_values(
                _resource_session().resource(
                    "dynamodb",
                    endpoint_url=key.endpoint,
                    region_name=key.region,
                    config=_config(key),
                )
            )
            _track(resource.meta.client)
        handles.resources[key] = resource
    return resource


def table(name: str, region: str | None = None) -> Table:
    """This thread's handle on the DynamoDB table ``name`` in ``region`` (no network call)."""
    key = _client_key(region)
    handles = _thread_handles()
    handle = handles.tables.get((name, key))
    if handle is None:
        # boto3 builds a new resource class for every Table() call: one handle per table instead.
        handle = handles.tables[(name, key)] = dynamodb(region).Table(name)
    return handle


# --- hooks on every DynamoDB client ---------------------------------------------------------


class Hook(NamedTuple):
    """A botocore event handler every DynamoDB client gets (of one region, or of all)."""

    event: str
    handler: Callable[..., Any]
    first: bool
    region: str | None


#: Every DynamoDB client the factory built and still lives (one per thread and region, and the
#: shared low-level one), and the hooks each gets, by their unique id.
_dynamodb_clients: weakref.WeakSet[Any] = weakref.WeakSet()
_hooks: dict[str, Hook] = {}
_hook_ids = itertools.count()


def _register(built: Any, unique_id: str, hook: Hook) -> None:
    if hook.region is None or built.meta.region_name == hook.region:
        events = built.meta.events
        (events.register_first if hook.first else events.register)(hook.event, hook.handler, unique_id=unique_id)


def _track(built: Any) -> None:
    """Called under ``_lock`` for every new DynamoDB client: it gets every hook in force."""
    _dynamodb_clients.add(built)
    for unique_id, hook in _hooks.items():
        _register(built, unique_id, hook)


@contextmanager
def dynamodb_hook(
    event: str, handler: Callable[..., Any], *, first: bool = False, region: str | None = None
) -> Iterator[None]:
    """``handler`` on botocore ``event`` for every DynamoDB client, of every thread, while the block runs.

    Each thread has its own resource and client, so whatever observes or disturbs the data
    layer's requests (request counting, injected faults) registers here, never on one client:
    the clients already built get it at once, those built during the block when they are
    built. ``region``: only the clients of that region (default: all).
    """
    unique_id = f"txn-hook-{next(_hook_ids)}"
    hook = Hook(event, handler, first, region)
    with _lock:
        _hooks[unique_id] = hook
        for built in list(_dynamodb_clients):
            _register(built, unique_id, hook)
    try:
        yield
    finally:
        with _lock:
            del _hooks[unique_id]
            for built in list(_dynamodb_clients):
                built.meta.events.unregister(event, unique_id=unique_id)


def sqs() -> SQSClient:
    return client("sqs")  # type: ignore[no-any-return]


def kinesis() -> KinesisClient:
    return client("kinesis")  # type: ignore[no-any-return]


def events() -> EventBridgeClient:
    return client("events")  # type: ignore[no-any-return]


def reset_clients() -> None:
    """Drop every cached client, in every thread: the next call builds a new one (a test that needs a fresh one).

    Changed settings need no reset: clients are cached by the settings they are built from.
    The session stays: it holds no setting (every client gets its endpoint, region and config
    from settings when built), and a new one would read every service model from disk again.
    """
    global _generation  # noqa: PLW0603 - one generation per process is the point
    _client.cache_clear()
    with _lock:
        _generation += 1
