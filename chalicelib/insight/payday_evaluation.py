"""One payday evaluation, as the endpoint runs it: the same-day cache, the chain, the captures.

* **Cache.** One ``payday`` row per user. It is served while its ``prediction_date`` is
  today (UTC) and it was computed with the chain's current flags; otherwise the chain runs
  on the user's history (:mod:`chalicelib.insight.history`) and the row is overwritten. A
  request naming another ``loan_id`` the same day is served from the row (the row keeps
  the loan it was computed for; the answer and the capture name the requesting one). A
  flag changed during the day (V2 or Pave switched off) takes effect at once rather than
  at midnight.
* **Captures.** Every evaluation, hit or miss, writes a ``PAYDAY_PREDICTION`` capture row:
  every algorithm's prediction and error, ``detection_used``, ``used_v2``, ``used_pave_v2``,
  ``from_cache``, ``loan_id``, ``prediction_date`` (a hit captures what the row holds,
  the same payload the miss captured). When V2 answered, its payroll candidates and its
  prediction are captured once per user per day (the capture client keeps the first).
* **Failures.** The captures are analytics and the cache write an optimisation: neither
  fails the request. Each failure is logged with its error class and counted
  (``insight.payday.capture.failed`` by event, ``insight.payday.cache.failed``); the answer
  is served. A failed cache write means the next request computes again. Failing to read
  the cache or the history is an error (HTTP 503 for a throttle).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Any

from chalicelib.insight import capture, history, pave_payday
from chalicelib.insight.data import payday
from chalicelib.insight.data.payday import PaydayRecord
from chalicelib.insight.payday import ChainResult, run_chain
from chalicelib.observability import count, logger
from chalicelib.settings import get_settings

CAPTURE_FAILED_METRIC = "insight.payday.capture.failed"
CACHE_FAILED_METRIC = "insight.payday.cache.failed"
EVALUATED_METRIC = "insight.payday.evaluated"


@dataclass(frozen=True)
class PaydayFlags:
    """Which algorithms of the chain run (settings ``PAYDAY_USED_V2``, ``PAYDAY_USED_PAVE_V2``)."""

    used_v2: bool
    used_pave_v2: bool

    @classmethod
    def from_settings(cls) -> PaydayFlags:
        settings = get_settings()
        return cls(settings.payday_used_v2, settings.payday_used_pave_v2)


@dataclass(frozen=True)
class PaydayAnswer:
    """What the endpoint answers. No ``next_payday``: cadence ``NONE`` and the ``reason``."""

    user_id: str
    loan_id: str | None
    prediction_date: date
    next_payday: date | None
    cadence: str
    income_source: str | None
    instant: date | None
    standard: date | None
    extended: date | None
    detection_used: str
    confidence: float
    reason: str | None
    from_cache: bool
    moved_from: date | None = None


def evaluate(
    user_id: str, loan_id: str | None, *, now: datetime, flags: PaydayFlags, capture_id: str | None = None
) -> PaydayAnswer:
    """The user's payday at ``now`` (see the module docstring). ``capture_id`` names the
    capture row (the request id, so a capture can be joined with the request's logs)."""
    today = now.astimezone(UTC).date()
    cached = payday.cached_payday(user_id, today)
    if cached is not None and (cached.used_v2, cached.used_pave_v2) == (flags.used_v2, flags.used_pave_v2):
        payload = recorded_capture(cached)
        from_cache = True
        record = cached
    else:
        result = run_chain(
            history.model_transactions(user_id, today),
            today,
            used_v2=flags.used_v2,
            used_pave_v2=flags.used_pave_v2,
            pave_income=pave_payday.chain_input(user_id) if flags.used_pave_v2 else None,
        )
        payload = result.capture()
        from_cache = False
        record = _record(user_id, today, loan_id, now, result, payload)
        _cache(record)
        if result.v2 is not None:
            _capture_v2(user_id, today, now, result.v2.to_dict(), result.filtered_txns_payload())
    extra = {"from_cache": from_cache, "loan_id": loan_id, "prediction_date": today.isoformat()}
    _best_effort(
        capture.CaptureEvent.PAYDAY_PREDICTION,
        user_id,
        lambda: capture.capture_payday_prediction(user_id, {**payload, **extra}, now=now, capture_id=capture_id),
    )
    count(EVALUATED_METRIC, from_cache=str(from_cache).lower(), detection=record.detection_used)
    return _answer(record, loan_id, from_cache)


def recorded_capture(record: PaydayRecord) -> dict[str, Any]:
    """The ``PAYDAY_PREDICTION`` payload of a cached prediction: what the chain captured when
    it computed the row (:meth:`ChainResult.capture`), read back from the row."""
    return {
        "detection_used": record.detection_used,
        "used_v2": record.used_v2,
        "used_pave_v2": record.used_pave_v2,
        "next_date": record.next_date.isoformat() if record.next_date else None,
        "frequency": record.frequency,
        "source": record.source,
        "reason": record.reason,
        "moved_from": record.moved_from.isoformat() if record.moved_from else None,
        "fm": record.fm,
        "v2": record.v2,
        "pave": record.pave,
        "errors": dict(record.errors or {}),
    }


def _record(
    user_id: str, today: date, loan_id: str | None, now: datetime, result: ChainResult, payload: Mapping[str, Any]
) -> PaydayRecord:
    dates = result.collection
    return PaydayRecord(
        user_id=user_id,
        prediction_date=today,
        detection_used=result.detection_used.value,
        next_date=result.next_payday,
        source=result.source,
        frequency=result.cadence,
        loan_id=loan_id,
        created_date=now,
        fm=payload["fm"],
        v2=payload["v2"],
        pave=payload["pave"],
        confidence=result.confidence,
        reason=result.reason,
        collection=(
            {
                "instant": dates.instant.isoformat(),
                "standard": dates.standard.isoformat(),
                "extended": dates.extended.isoformat() if dates.extended else None,
            }
            if dates is not None
            else None
        ),
        errors=payload["errors"],
        used_v2=result.used_v2,
        used_pave_v2=result.used_pave_v2,
        moved_from=result.moved_from,
    )


def _answer(record: PaydayRecord, loan_id: str | None, from_cache: bool) -> PaydayAnswer:
    dates = record.collection or {}
    return PaydayAnswer(
        user_id=record.user_id,
        loan_id=loan_id,
        prediction_date=record.prediction_date,
        next_payday=record.next_date,
        cadence=record.frequency,
        income_source=record.source,
        instant=_day(dates.get("instant")),
        standard=_day(dates.get("standard")),
        extended=_day(dates.get("extended")),
        detection_used=record.detection_used,
        confidence=record.confidence or 0.0,
        reason=record.reason,
        from_cache=from_cache,
        moved_from=record.moved_from,
    )


def _day(value: Any) -> date | None:
    return date.fromisoformat(value) if isinstance(value, str) else None


def _cache(record: PaydayRecord) -> None:
    try:
        if not payday.put_payday(record):
            logger.info("payday row of a later day kept", extra={"user_id": record.user_id})
    except Exception as exc:  # noqa: BLE001 - the answer is served; the next request computes again
        logger.warning(
            "payday cache write failed", extra={"user_id": record.user_id, "error": type(exc).__name__}, exc_info=True
        )
        count(CACHE_FAILED_METRIC, error=type(exc).__name__)


def _capture_v2(
    user_id: str, today: date, now: datetime, predicted: dict[str, Any], candidates: list[dict[str, Any]]
) -> None:
    """V2's prediction and payroll candidates, once per user per day."""
    _best_effort(
        capture.CaptureEvent.FM_PAYDAY_FILTERED_TXNS,
        user_id,
        lambda: capture.capture_filtered_transactions(user_id, today, list(candidates), now=now),
    )
    _best_effort(
        capture.CaptureEvent.FM_PAYDAY_PREDICTED_PAYDAY,
        user_id,
        lambda: capture.capture_predicted_payday(user_id, today, predicted, now=now),
    )


def _best_effort(event: capture.CaptureEvent, user_id: str, write: Callable[[], object]) -> None:
    """Run one capture write; a failure is logged and counted, never raised."""
    try:
        write()
    except Exception as exc:  # noqa: BLE001 - analytics must not fail the user's request
        logger.warning(
            "payday capture failed",
            extra={"user_id": user_id, "event": event.value, "error": type(exc).__name__},
            exc_info=True,
        )
        count(CAPTURE_FAILED_METRIC, event=event.value, error=type(exc).__name__)
