"""Typed errors of the local event runtime (local tooling, so they live here, not in chalicelib)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ops.runtime.stats import DrainResult


class EventRuntimeError(Exception):
    """Base of every error the local event runtime raises on purpose."""


class RuntimeConfigError(EventRuntimeError):
    """The app's event sources or the declaration cannot be run locally as they are."""


class SourceNotFoundError(EventRuntimeError):
    """A queue, stream or table an event source names does not exist on the local endpoint."""


class FilterPatternError(EventRuntimeError):
    """A filter pattern uses syntax Lambda/EventBridge would reject (or this matcher lacks)."""


class ScheduleExpressionError(EventRuntimeError):
    """A ``rate(...)``/``cron(...)`` expression EventBridge would reject (or this parser lacks)."""


class UnknownFunctionError(EventRuntimeError):
    """A function name the app does not register (or not with the kind of source asked for)."""


class DrainTimeoutError(EventRuntimeError):
    """``drain`` hit its timeout with work left; ``result`` says what ran and what is pending."""

    def __init__(self, result: DrainResult) -> None:
        super().__init__(f"event sources not idle after {result.seconds:.1f} s: {', '.join(result.pending) or '?'}")
        self.result = result
