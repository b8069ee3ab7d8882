"""What the runtime did: counters per function, one report per invocation, drain results."""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace


@dataclass
class FunctionStats:
    """Counters for one function since the runtime started (or within one drain)."""

    invocations: int = 0
    #: Records delivered, counting a duplicate delivery twice.
    records: int = 0
    #: Records the handler reported in ``batchItemFailures``.
    failures: int = 0
    #: Invocations that failed as a whole: exception, timeout, invalid response.
    errors: int = 0
    #: Stream records dropped by the consumer's filter criteria.
    filtered: int = 0
    #: Stream records dropped because they outlived the stream's retention while retried.
    expired: int = 0

    def minus(self, earlier: FunctionStats) -> FunctionStats:
        return FunctionStats(**{f.name: getattr(self, f.name) - getattr(earlier, f.name) for f in fields(self)})

    def copy(self) -> FunctionStats:
        return replace(self)


@dataclass(frozen=True)
class Invocation:
    """One handler invocation, as passed to the progress callback."""

    function: str
    source: str
    records: int
    #: Identifiers the handler reported in ``batchItemFailures``.
    failed: tuple[str, ...]
    #: Why the invocation failed as a whole (None when it returned normally).
    error: str | None
    seconds: float
    #: True for the first of two deliveries under the duplicate-delivery knob (its outcome is discarded).
    discarded: bool = False


@dataclass(frozen=True)
class TtlReport:
    """One TTL sweep: rows deleted as expired and rows a concurrent write saved."""

    deleted: tuple[tuple[str, dict[str, object]], ...] = ()
    #: Expired when scanned but no longer expired at delete time (ttl cleared or moved).
    spared: int = 0


@dataclass(frozen=True)
class DrainResult:
    """What one ``drain`` call did, per function, and whether everything went idle."""

    idle: bool
    seconds: float
    functions: dict[str, FunctionStats] = field(default_factory=dict)
    #: Sources still busy when the drain ended (empty when idle).
    pending: tuple[str, ...] = ()

    @property
    def invocations(self) -> int:
        return sum(s.invocations for s in self.functions.values())

    @property
    def records(self) -> int:
        return sum(s.records for s in self.functions.values())

    @property
    def failures(self) -> int:
        return sum(s.failures for s in self.functions.values())

    @property
    def errors(self) -> int:
        return sum(s.errors for s in self.functions.values())

    def of(self, function: str) -> FunctionStats:
        return self.functions.get(function, FunctionStats())
