"""The local event runtime: what Lambda's event source mappings and EventBridge would do.

Neither moto nor LocalStack (without Docker) runs Lambda functions, and ``chalice local``
serves only HTTP routes. :class:`EventRuntime` closes the gap in-process: it reads the
app's event sources and the declaration's options, polls the local endpoint, and calls
``app.handler_map[name](event, context)`` with Lambda's events and semantics. See
``docs/local-runtime.md`` for the semantics and the test knobs.

All work happens under one lock, one batch per source per round, so handlers never run
concurrently (the Powertools logger and metrics are process-global) and ``drain``,
``expire_ttl`` and ``fire_schedule`` may be called while ``run_forever`` runs elsewhere.
"""

from __future__ import annotations

import logging
import random
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

from chalice import Chalice

from chalicelib.clock import epoch_seconds
from chalicelib.infra.declaration import Infrastructure, declare
from chalicelib.settings import get_settings
from ops.runtime.cloudwatch import EventRulePoller, ScheduleRunner, tap_name
from ops.runtime.discovery import AppSources, discover
from ops.runtime.dynamodb_streams import DynamoStreamPoller
from ops.runtime.errors import DrainTimeoutError, RuntimeConfigError
from ops.runtime.invoker import Invoker, ProgressCallback
from ops.runtime.kinesis import KinesisPoller, role_arn
from ops.runtime.shards import Backoff
from ops.runtime.sqs import SqsPoller
from ops.runtime.state import RuntimeState
from ops.runtime.stats import DrainResult, FunctionStats, TtlReport
from ops.runtime.ttl import TtlSweeper

log = logging.getLogger("ops.runtime")


class Poller(Protocol):
    @property
    def label(self) -> str: ...

    def start(self) -> None: ...

    def poll(self) -> bool: ...

    def idle(self) -> bool: ...

    def pending(self) -> list[str]: ...


class EventRuntime:
    """Delivers the local endpoint's queues, streams, TTL expiries and schedules to ``app``.

    ``visibility_timeout`` overrides every consumed queue's (tests: 1 s, so a failed
    message comes back quickly); ``duplicate_delivery`` delivers every batch twice and
    ``shuffle`` shuffles SQS batches, to test idempotency; ``clock`` (epoch seconds) is
    what TTL sweeps and schedules take as "now"; ``functions`` limits the runtime to some
    handlers; ``state_path`` persists checkpoints so a restart resumes; ``starting_position``
    overrides every stream's (``LATEST``: only what arrives after the runtime started).
    """

    def __init__(
        self,
        app: Chalice,
        infra: Infrastructure | None = None,
        *,
        visibility_timeout: int | None = None,
        poll_interval: float = 0.1,
        max_idle_sleep: float = 1.0,
        duplicate_delivery: bool = False,
        shuffle: bool = False,
        seed: int | None = None,
        retry_backoff: Backoff | None = None,
        ttl_interval: float | None = 30.0,
        async_retry_delays: tuple[float, ...] = (60.0, 120.0),
        state_path: Path | None = None,
        clock: Callable[[], float] = epoch_seconds,
        on_invocation: ProgressCallback | None = None,
        functions: Iterable[str] | None = None,
        starting_position: str | None = None,
    ) -> None:
        settings = get_settings()
        if not settings.aws_endpoint_url:
            raise RuntimeConfigError("AWS_ENDPOINT_URL is not set: the event runtime only consumes a local endpoint")
        if visibility_timeout is not None and not 0 <= visibility_timeout <= 43200:
            raise RuntimeConfigError("visibility_timeout must be between 0 and 43200 seconds")
        self.app = app
        self.infra = infra or declare(settings)
        self.sources: AppSources = discover(app, self.infra, functions, starting_position)
        self.state = RuntimeState.load(state_path)
        self.poll_interval = poll_interval
        self.max_idle_sleep = max(max_idle_sleep, poll_interval)
        self.ttl_interval = ttl_interval
        self._clock = clock
        self._lock = threading.RLock()
        self._last_errors: dict[str, str] = {}
        self.invoker = Invoker(
            app,
            settings.stage,
            settings.region,
            self.sources.timeouts,
            duplicate_delivery=duplicate_delivery,
            on_invocation=on_invocation,
        )
        backoff = retry_backoff or Backoff()
        rng = random.Random(seed)  # noqa: S311 - shuffles test deliveries, not secrets
        region, stage = settings.region, settings.stage
        prefix = f"{app.app_name}-{stage}"
        self._pollers: list[Poller] = [
            *(SqsPoller(s, self.invoker, region, visibility_timeout, shuffle, rng) for s in self.sources.sqs),
            *(
                KinesisPoller(s, self.invoker, self.state, region, role_arn(app.app_name, stage), backoff)
                for s in self.sources.kinesis
            ),
            *(DynamoStreamPoller(s, self.invoker, self.state, region, backoff) for s in self.sources.dynamodb),
            *(
                EventRulePoller(s, self.invoker, tap_name(prefix, s.function), visibility_timeout)
                for s in self.sources.rules
            ),
        ]
        self._schedules = ScheduleRunner(
            self.sources.schedules, self.invoker, region, prefix, self.now(), async_retry_delays
        )
        self._ttl = TtlSweeper(self.sources.ttl_tables, self.state)
        # Resolve every source now: a missing queue fails here, and LATEST means "from now".
        for poller in self._pollers:
            poller.start()

    # --- clock and stats --------------------------------------------------------------

    def now(self) -> datetime:
        return datetime.fromtimestamp(self._clock(), UTC)

    @property
    def stats(self) -> dict[str, FunctionStats]:
        """Counters per function since the runtime started."""
        with self._lock:
            return {name: s.copy() for name, s in self.invoker.stats.items()}

    def describe(self) -> list[str]:
        return self.sources.describe()

    # --- delivering -------------------------------------------------------------------

    def drain(self, timeout: float = 30.0, require_idle: bool = True) -> DrainResult:
        """Deliver until every consumed queue and stream is empty and caught up.

        Idle means: no visible, in-flight or delayed message on any consumed queue (DLQs
        are not consumed), no unread or retrying stream record. Schedules do not fire and
        TTL does not run during a drain (use ``fire_schedule``/``expire_ttl``). When the
        timeout passes first, raises :class:`DrainTimeoutError` (or, with
        ``require_idle=False``, returns a result with ``idle=False``).
        """
        started = time.monotonic()
        with self._lock:
            before = {name: s.copy() for name, s in self.invoker.stats.items()}
            while True:
                worked = self._round(tolerate_errors=False)
                if not worked and self._all_idle():
                    idle = True
                    break
                if time.monotonic() - started > timeout:
                    idle = False
                    break
                if not worked:
                    time.sleep(self.poll_interval)
            pending = () if idle else tuple(line for p in self._pollers for line in p.pending())
            delta = {name: stats.minus(before.get(name, FunctionStats())) for name, stats in self.invoker.stats.items()}
        result = DrainResult(idle, time.monotonic() - started, delta, pending)
        if not idle and require_idle:
            raise DrainTimeoutError(result)
        return result

    def run_forever(self, stop: threading.Event) -> None:
        """Poll every source, sweep TTL and fire schedules until ``stop`` is set.

        Errors of one source (the endpoint going away, a queue deleted) are logged and
        retried; they never stop the others.
        """
        sleep = self.poll_interval
        last_sweep = time.monotonic()
        while not stop.is_set():
            with self._lock:
                worked = self._round(tolerate_errors=True)
                if self.ttl_interval is not None and time.monotonic() - last_sweep >= self.ttl_interval:
                    last_sweep = time.monotonic()
                    self._guarded("ttl", lambda: self._ttl.expire(self._clock()))
                self._guarded("schedules", lambda: self._schedules.tick(self.now()))
            sleep = self.poll_interval if worked else min(self.max_idle_sleep, sleep * 2)
            if not worked:
                stop.wait(sleep)

    @contextmanager
    def running(self) -> Iterator[EventRuntime]:
        """Run in a background thread for the duration of the ``with`` block."""
        stop = threading.Event()
        thread = threading.Thread(target=self.run_forever, args=(stop,), name="event-runtime", daemon=True)
        thread.start()
        try:
            yield self
        finally:
            stop.set()
            thread.join(timeout=30)

    # --- TTL and schedules on demand --------------------------------------------------

    def expire_ttl(self, now: float | datetime | None = None) -> TtlReport:
        """Delete every row whose TTL is past at ``now`` (default: the clock) on the declared tables."""
        moment = self._clock() if now is None else now.timestamp() if isinstance(now, datetime) else now
        with self._lock:
            return self._ttl.expire(moment)

    def fire_schedule(self, function: str, at: datetime | None = None) -> Any:
        """Invoke a scheduled handler now, as a fire at ``at`` (default: now); returns its result."""
        with self._lock:
            return self._schedules.fire(function, at or self.now())

    def tick_schedules(self, now: datetime | None = None) -> list[str]:
        """Fire the schedules due at ``now`` (default: the clock), as ``run_forever`` does."""
        with self._lock:
            return self._schedules.tick(now or self.now())

    def next_fire(self, function: str) -> datetime | None:
        return self._schedules.next_fire(function)

    # --- internals --------------------------------------------------------------------

    def _round(self, tolerate_errors: bool) -> bool:
        worked = False
        for poller in self._pollers:
            if tolerate_errors:
                worked = bool(self._guarded(poller.label, poller.poll)) or worked
            else:
                worked = poller.poll() or worked
        return worked

    def _all_idle(self) -> bool:
        return all(poller.idle() for poller in self._pollers)

    def _guarded(self, label: str, action: Callable[[], Any]) -> Any:
        try:
            result = action()
        except Exception as exc:  # one broken source must not stop the others
            message = f"{type(exc).__name__}: {exc}"
            if self._last_errors.get(label) != message:
                log.exception("%s failed; retrying", label)
                self._last_errors[label] = message
            return None
        self._last_errors.pop(label, None)
        return result
