"""Invoke a Chalice handler the way Lambda does, and read its partial-batch response.

The event goes through a JSON round trip (as it would over the wire, and so a handler
that mutates it cannot affect a redelivery), the handler gets a fresh
:class:`LambdaContext`, and the result is judged by Lambda's rules for
``ReportBatchItemFailures``:

* ``None``, ``{}``, or a ``batchItemFailures`` that is null or empty: the whole batch
  succeeded;
* a list of ``{"itemIdentifier": id}`` naming records of the batch: those failed;
* an exception, a run longer than the function's timeout, an unserialisable result, a
  non-object result, or a failure entry whose identifier is missing, empty or not in the
  batch: the whole batch failed.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from chalice import Chalice

from ops.runtime.context import LambdaContext
from ops.runtime.errors import UnknownFunctionError
from ops.runtime.stats import FunctionStats, Invocation

log = logging.getLogger("ops.runtime")

ProgressCallback = Callable[[Invocation], None]


@dataclass(frozen=True)
class BatchOutcome:
    """How Lambda would judge one invocation of a batch."""

    failed: frozenset[str] = frozenset()
    #: Set when the batch failed as a whole; nothing in it may be acknowledged.
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None and not self.failed

    def succeeded(self, identifier: str) -> bool:
        return self.error is None and identifier not in self.failed


@dataclass
class Invoker:
    """Calls ``app.handler_map[name]`` with Lambda's event, context and failure rules."""

    app: Chalice
    stage: str
    region: str
    timeouts: Mapping[str, int]
    duplicate_delivery: bool = False
    on_invocation: ProgressCallback | None = None
    memory_mb: int = 512
    stats: dict[str, FunctionStats] = field(default_factory=dict)

    def function_name(self, name: str) -> str:
        """Chalice names deployed functions ``<app>-<stage>-<name>``."""
        return f"{self.app.app_name}-{self.stage}-{name}"

    def stats_for(self, name: str) -> FunctionStats:
        return self.stats.setdefault(name, FunctionStats())

    def deliver_batch(
        self, name: str, source: str, records: Sequence[dict[str, Any]], ids: Sequence[str]
    ) -> BatchOutcome:
        """Invoke ``name`` with ``{"Records": records}``; twice under the duplicate knob."""
        event = {"Records": list(records)}
        if self.duplicate_delivery:
            # The first delivery's outcome is thrown away, as if its acknowledgement were lost.
            self._invoke_batch(name, source, event, ids, discarded=True)
        return self._invoke_batch(name, source, event, ids, discarded=False)

    def invoke_event(self, name: str, source: str, event: dict[str, Any]) -> Any:
        """Invoke ``name`` with a single event (schedules, rules); the handler's error propagates."""
        handler = self._handler(name)
        stats = self.stats_for(name)
        stats.invocations += 1
        stats.records += 1
        started = time.monotonic()
        try:
            result = handler(_wire_copy(event), self._context(name))
        except Exception as exc:
            stats.errors += 1
            self._report(Invocation(name, source, 1, (), _describe(exc), time.monotonic() - started))
            raise
        self._report(Invocation(name, source, 1, (), None, time.monotonic() - started))
        return result

    # --- internals --------------------------------------------------------------------

    def _invoke_batch(
        self, name: str, source: str, event: dict[str, Any], ids: Sequence[str], discarded: bool
    ) -> BatchOutcome:
        handler = self._handler(name)
        stats = self.stats_for(name)
        stats.invocations += 1
        stats.records += len(event["Records"])
        timeout = self.timeouts.get(name, 60)
        started = time.monotonic()
        try:
            result = handler(_wire_copy(event), self._context(name))
            seconds = time.monotonic() - started
            outcome = (
                BatchOutcome(error=f"Task timed out after {seconds:.2f} seconds (timeout {timeout} s)")
                if seconds > timeout
                else judge_response(result, ids)
            )
        except Exception as exc:  # Lambda's runtime boundary: any error fails the batch
            seconds = time.monotonic() - started
            log.warning("%s raised on %d record(s) from %s", name, len(ids), source, exc_info=True)
            outcome = BatchOutcome(error=_describe(exc))
        if outcome.error is not None:
            stats.errors += 1
        stats.failures += len(outcome.failed)
        failed = tuple(i for i in ids if i in outcome.failed)
        self._report(Invocation(name, source, len(ids), failed, outcome.error, seconds, discarded))
        return outcome

    def _handler(self, name: str) -> Callable[[dict[str, Any], Any], Any]:
        try:
            return self.app.handler_map[name]
        except KeyError:
            raise UnknownFunctionError(f"the app registers no handler named {name!r}") from None

    def _context(self, name: str) -> LambdaContext:
        return LambdaContext(
            function_name=self.function_name(name),
            timeout_seconds=self.timeouts.get(name, 60),
            memory_limit_in_mb=self.memory_mb,
            region=self.region,
        )

    def _report(self, invocation: Invocation) -> None:
        if self.on_invocation is None:
            return
        try:
            self.on_invocation(invocation)
        except Exception:  # a broken progress display must not stop delivery
            log.exception("progress callback failed")


def judge_response(result: Any, ids: Sequence[str]) -> BatchOutcome:
    """Lambda's reading of a handler result under ``ReportBatchItemFailures``."""
    try:
        result = json.loads(json.dumps(result))
    except (TypeError, ValueError) as exc:
        return BatchOutcome(error=f"response is not JSON serialisable: {exc}")
    if result is None:
        return BatchOutcome()
    if not isinstance(result, dict):
        return BatchOutcome(error=f"response is not a batch response object: {type(result).__name__}")
    failures = result.get("batchItemFailures")
    if not failures:
        return BatchOutcome()
    if not isinstance(failures, list):
        return BatchOutcome(error="batchItemFailures is not a list")
    known = set(ids)
    failed: set[str] = set()
    for entry in failures:
        identifier = entry.get("itemIdentifier") if isinstance(entry, dict) else None
        if not isinstance(identifier, str) or not identifier or identifier not in known:
            return BatchOutcome(error=f"invalid batch item failure {entry!r}: the whole batch is retried")
        failed.add(identifier)
    return BatchOutcome(failed=frozenset(failed))


def _wire_copy(event: dict[str, Any]) -> dict[str, Any]:
    copy: dict[str, Any] = json.loads(json.dumps(event))
    return copy


def _describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"
