"""What every payday algorithm answers, and the errors that mean "this algorithm cannot run"."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import date
from enum import StrEnum
from typing import Any

from chalicelib.errors import ServiceError
from chalicelib.insight.calendar import is_business_day, previous_business_day
from chalicelib.insight.payday.collection import CollectionDates, collection_dates

#: The cadence of a user with no payday to predict.
NO_CADENCE = "NONE"
#: Cadences an answer can carry: the schedule engine's income cadences, or NONE.
CADENCES = ("WEEKLY", "BIWEEKLY", "FOUR_WEEKLY", "SEMI_MONTHLY", "MONTHLY", NO_CADENCE)


class Detection(StrEnum):
    """The algorithms of the payday chain, named as the capture rows and the cache name them."""

    PAVE = "PAVE_PAYDAY_CALCULATION"
    FLOATME_V2 = "FLOATME_V2_PAYDAY_CALCULATION"
    FLOATME = "FLOATME_PAYDAY_CALCULATION"


class PaydayModelError(ServiceError):
    """A payday algorithm could not run for this user (the chain moves on)."""


class InsufficientHistoryError(PaydayModelError):
    """Too little history to say anything, not even that income is irregular."""


class PaveUnavailableError(PaydayModelError):
    """No usable Pave income insight is cached for the user (none, no date, or stale)."""


class ClosedPaydayError(PaydayModelError):
    """The algorithm's date is a day the Fed is closed, and the business day before it is not
    after the day predicted for: no payday to answer."""


@dataclass(frozen=True, slots=True)
class PaydayPrediction:
    """One algorithm's answer. No ``next_payday`` is an answer too: cadence ``NONE`` and the
    ``reason`` (irregular income, no income, a payday that did not arrive ...). ``moved_from``:
    the date the algorithm gave, when it was a weekend day or a Fed holiday and the answer is
    the business day before (:meth:`on_business_day`)."""

    algorithm: Detection
    next_payday: date | None
    cadence: str
    confidence: float
    source: str | None = None
    collection: CollectionDates | None = None
    upcoming: tuple[date, ...] = ()
    reason: str | None = None
    schedule: str | None = None
    details: dict[str, Any] = field(default_factory=dict)
    moved_from: date | None = None
    #: The model's readings of the paydays to come: (posterior share, the paydays it projects),
    #: the answer's among them; a forecast draws from them (not part of :meth:`to_dict`).
    readings: tuple[tuple[float, tuple[date, ...]], ...] = ()

    @classmethod
    def none(cls, algorithm: Detection, reason: str, **details: Any) -> PaydayPrediction:
        return cls(algorithm, None, NO_CADENCE, 0.0, reason=reason, details=details)

    def on_business_day(self, as_of: date) -> PaydayPrediction:
        """This answer with its paydays on Fed business days: no payroll settles on a weekend
        or a Fed holiday, and a payday on one is paid the business day before (a biweekly
        Friday that is 25 December is paid on Thursday the 24th). The collection dates follow
        the moved paydays; ``moved_from`` keeps the date given. Raises
        :class:`ClosedPaydayError` when the business day before is not after ``as_of``."""
        if self.next_payday is None or is_business_day(self.next_payday):
            return self
        moved = [previous_business_day(d) for d in self.upcoming or (self.next_payday,)]
        moved[0] = previous_business_day(self.next_payday)
        if moved[0] <= as_of:
            raise ClosedPaydayError(
                f"{self.next_payday.isoformat()} is a day the Fed is closed and the business day before it,"
                f" {moved[0].isoformat()}, is not after {as_of.isoformat()}"
            )
        upcoming = sorted(set(moved))
        readings = tuple(
            (share, tuple(sorted({d for d in map(previous_business_day, days) if d > as_of})))
            for share, days in self.readings
        )
        return replace(
            self,
            next_payday=moved[0],
            upcoming=tuple(upcoming),
            collection=collection_dates(upcoming),
            moved_from=self.next_payday,
            readings=readings,
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready (ISO dates), for capture rows and the cache."""
        return {
            "algorithm": self.algorithm.value,
            "next_payday": self.next_payday.isoformat() if self.next_payday else None,
            "cadence": self.cadence,
            "confidence": round(self.confidence, 3),
            "source": self.source,
            "instant": _iso(self.collection.instant if self.collection else None),
            "standard": _iso(self.collection.standard if self.collection else None),
            "extended": _iso(self.collection.extended if self.collection else None),
            "upcoming": [d.isoformat() for d in self.upcoming],
            "reason": self.reason,
            "schedule": self.schedule,
            "moved_from": _iso(self.moved_from),
            **({"details": self.details} if self.details else {}),
        }


@dataclass(frozen=True, slots=True)
class AlgorithmFailure:
    """Why an algorithm produced no answer at all (its error, as the capture row records it)."""

    algorithm: Detection
    error: str
    message: str

    @classmethod
    def of(cls, algorithm: Detection, exc: BaseException) -> AlgorithmFailure:
        return cls(algorithm, type(exc).__name__, str(exc))

    def to_dict(self) -> dict[str, str]:
        return {"algorithm": self.algorithm.value, "error": self.error, "message": self.message}


def _iso(day: date | None) -> str | None:
    return day.isoformat() if day else None
