"""Failures injected at the AWS boundary: botocore event hooks on the one client factory's clients.

The code under test runs unchanged, in whatever thread: only the clients it gets from
``chalicelib.aws.clients`` (every thread's DynamoDB clients, the shared others) answer an error
for the calls a test names, the way AWS would (a ``ClientError`` with AWS's error code), and the
next calls go through again. Nothing is sent for a failed call.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from botocore.exceptions import ClientError, ReadTimeoutError

from chalicelib.aws import clients
from chalicelib.settings import get_settings

Predicate = Callable[[Mapping[str, Any]], bool]


@dataclass
class AwsFault:
    """``times`` calls of ``operation`` whose parameters match ``when`` fail with ``code``."""

    service: str
    operation: str
    code: str = "InternalServerError"
    times: int = 1
    when: Predicate = field(default=lambda params: True)
    hits: int = 0

    def __call__(self, params: Mapping[str, Any], **_: Any) -> None:
        if self.hits >= self.times or not self.when(params):
            return
        self.hits += 1
        status = 400 if self.code.endswith("Exception") else 500
        raise ClientError(
            {"Error": {"Code": self.code, "Message": "injected"}, "ResponseMetadata": {"HTTPStatusCode": status}},
            self.operation,
        )


@contextmanager
def _hooked(service: str, event_name: str, handler: Callable[..., Any], region: str | None) -> Iterator[None]:
    """``handler`` on every client of ``service`` the code under test may use, in any thread."""
    if service == "dynamodb":  # one client per thread: every one of them, built or to be built
        with clients.dynamodb_hook(event_name, handler, region=region or get_settings().region):
            yield
        return
    events = clients.client(service).meta.events  # shared by every thread
    events.register(event_name, handler)
    try:
        yield
    finally:
        events.unregister(event_name, handler)


@contextmanager
def aws_fault(
    service: str,
    operation: str,
    *,
    code: str = "InternalServerError",
    times: int = 1,
    when: Predicate | None = None,
    region: str | None = None,
) -> Iterator[AwsFault]:
    """Make the factory's ``service`` client fail ``operation`` (``PutItem``, ``SendMessage``...)."""
    fault = AwsFault(service, operation, code, times, when or (lambda params: True))
    # Emitted with the caller's own parameters (TableName, QueueUrl...), before any request is sent.
    with _hooked(service, f"before-parameter-build.{service}.{operation}", fault, region):
        yield fault


@dataclass
class LostAnswer:
    """The next ``times`` calls of ``operation`` reach AWS and are applied; their answers never arrive."""

    operation: str
    times: int = 1
    hits: int = 0

    def __call__(self, http_response: Any, **_: Any) -> None:
        if self.hits >= self.times or http_response.status_code >= 300:
            return
        self.hits += 1
        raise ReadTimeoutError(endpoint_url=f"injected: the answer to {self.operation} was lost")


@contextmanager
def lost_answer(service: str, operation: str, *, times: int = 1, region: str | None = None) -> Iterator[LostAnswer]:
    """Make the factory's ``service`` client lose the answers of ``operation`` after AWS applied it.

    The caller sees a read timeout, as when a connection drops after the request was served:
    the at-least-once case a consumer must survive by finding its work already done.
    """
    fault = LostAnswer(operation, times)
    with _hooked(service, f"after-call.{service}.{operation}", fault, region):
        yield fault


def table_is(name: str) -> Predicate:
    """Calls on one table (``TableName``)."""
    return lambda params: params.get("TableName") == name


def item_type_is(name: str, entity: str) -> Predicate:
    """PutItem of one entity (``Item.type``, plain or already typed) on one table."""

    def matches(params: Mapping[str, Any]) -> bool:
        kind = (params.get("Item") or {}).get("type")
        return params.get("TableName") == name and kind in (entity, {"S": entity})

    return matches
