"""The local event runtime: delivers queues, streams, TTL expiries and schedules to the app.

``EventRuntime(app.app).drain()`` in tests, ``python -m ops.runtime`` next to the local
stack. Semantics and knobs: ``docs/local-runtime.md``.
"""

from ops.runtime.context import LambdaContext
from ops.runtime.errors import (
    DrainTimeoutError,
    EventRuntimeError,
    FilterPatternError,
    RuntimeConfigError,
    ScheduleExpressionError,
    SourceNotFoundError,
    UnknownFunctionError,
)
from ops.runtime.patterns import FilterCriteria, FilterPattern
from ops.runtime.runtime import EventRuntime
from ops.runtime.shards import Backoff
from ops.runtime.stats import DrainResult, FunctionStats, Invocation, TtlReport

__all__ = [
    "Backoff",
    "DrainResult",
    "DrainTimeoutError",
    "EventRuntime",
    "EventRuntimeError",
    "FilterCriteria",
    "FilterPattern",
    "FilterPatternError",
    "FunctionStats",
    "Invocation",
    "LambdaContext",
    "RuntimeConfigError",
    "ScheduleExpressionError",
    "SourceNotFoundError",
    "TtlReport",
    "UnknownFunctionError",
]
