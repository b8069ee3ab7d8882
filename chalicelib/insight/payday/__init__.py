"""Payday prediction: the chain of three algorithms and the pure entry point.

The chain (:func:`run_chain`), in precedence order:

1. **Pave** (``PAVE_PAYDAY_CALCULATION``, when ``used_pave_v2``): the cached Pave income
   insight's date, when it has one after ``as_of``. It short-circuits V2 (``v2`` is null).
2. **FloatMe V2** (``FLOATME_V2_PAYDAY_CALCULATION``, when ``used_v2``): the schedule model.
   Its "no payday" (irregular income, no income, a payday that did not arrive) is an answer
   and ends the chain.
3. **FloatMe** (``FLOATME_PAYDAY_CALCULATION``): the legacy guess, always computed, used only
   when neither answered: V2 off, V2 without enough history, or V2 failing with an error.

Every algorithm's prediction or error is kept (for the capture rows), with V2's
payroll-candidate transactions. :func:`predict` is the chain without Pave and with V2 on:
what offline evaluation measures, and what the endpoint runs for a user without a Pave
insight. Cadences are WEEKLY, BIWEEKLY, SEMI_MONTHLY, MONTHLY, FOUR_WEEKLY (every four
weeks, which some employers use) or NONE (no payday to predict).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from chalicelib.insight.payday import legacy, pave, v2
from chalicelib.insight.payday.collection import CollectionDates, collection_dates
from chalicelib.insight.payday.pave import PaveIncome
from chalicelib.insight.payday.types import (
    NO_CADENCE,
    AlgorithmFailure,
    ClosedPaydayError,
    Detection,
    InsufficientHistoryError,
    PaveUnavailableError,
    PaydayModelError,
    PaydayPrediction,
)
from chalicelib.insight.transactions import Txn, visible

__all__ = [
    "NO_CADENCE",
    "AlgorithmFailure",
    "ChainResult",
    "ClosedPaydayError",
    "CollectionDates",
    "Detection",
    "InsufficientHistoryError",
    "PaveIncome",
    "PaveUnavailableError",
    "PaydayModelError",
    "PaydayPrediction",
    "collection_dates",
    "predict",
    "run_chain",
]


@dataclass(frozen=True, slots=True)
class ChainResult:
    """The chain's outcome: the chosen answer and everything behind it."""

    chosen: PaydayPrediction
    detection_used: Detection
    used_v2: bool
    used_pave_v2: bool
    fm: PaydayPrediction | None
    v2: PaydayPrediction | None
    pave: PaydayPrediction | None
    errors: Mapping[Detection, AlgorithmFailure] = field(default_factory=dict)
    filtered_txns: tuple[Txn, ...] = ()

    @property
    def next_payday(self) -> date | None:
        return self.chosen.next_payday

    @property
    def cadence(self) -> str:
        return self.chosen.cadence

    @property
    def confidence(self) -> float:
        return self.chosen.confidence

    @property
    def source(self) -> str | None:
        return self.chosen.source

    @property
    def reason(self) -> str | None:
        return self.chosen.reason

    @property
    def collection(self) -> CollectionDates | None:
        return self.chosen.collection

    @property
    def moved_from(self) -> date | None:
        """The date the chosen algorithm gave, when it fell on a weekend day or a Fed holiday
        and ``next_payday`` is the business day before it."""
        return self.chosen.moved_from

    def capture(self) -> dict[str, Any]:
        """The payload of a PAYDAY_PREDICTION capture row (the endpoint adds ``from_cache``,
        ``loan_id`` and ``prediction_date``)."""
        return {
            "detection_used": self.detection_used.value,
            "used_v2": self.used_v2,
            "used_pave_v2": self.used_pave_v2,
            "next_date": self.next_payday.isoformat() if self.next_payday else None,
            "frequency": self.cadence,
            "source": self.source,
            "reason": self.reason,
            "moved_from": self.moved_from.isoformat() if self.moved_from else None,
            "fm": self.fm.to_dict() if self.fm else None,
            "v2": self.v2.to_dict() if self.v2 else None,
            "pave": self.pave.to_dict() if self.pave else None,
            "errors": {a.value: e.to_dict() for a, e in self.errors.items()},
        }

    def filtered_txns_payload(self) -> list[dict[str, Any]]:
        """V2's payroll candidates, for the FM_PAYDAY_FILTERED_TXNS capture row."""
        return [
            {
                "txn_id": t.txn_id,
                "account_id": t.account_id,
                "amount": t.amount,
                "date": t.day.isoformat(),
                "name": t.name,
                "merchant_name": t.merchant_name,
                "personal_finance_category": t.pfc_detailed,
            }
            for t in self.filtered_txns
        ]


def _attempt(
    algorithm: Detection, run: Callable[[], PaydayPrediction], errors: dict[Detection, AlgorithmFailure]
) -> PaydayPrediction | None:
    """Run one algorithm; an exception is recorded as its error, never raised: one failing
    algorithm must not fail the chain."""
    try:
        return run()
    except PaydayModelError as exc:
        errors[algorithm] = AlgorithmFailure.of(algorithm, exc)
    except Exception as exc:  # noqa: BLE001 - recorded in the capture row; the chain falls back
        errors[algorithm] = AlgorithmFailure.of(algorithm, exc)
    return None


def run_chain(
    transactions: Iterable[Mapping[str, Any]],
    as_of: date,
    *,
    used_v2: bool = True,
    used_pave_v2: bool = False,
    pave_income: PaveIncome | None = None,
) -> ChainResult:
    """The payday chain for API-shaped ``transactions`` seen at ``as_of`` (see the module
    docstring). Raises :class:`~chalicelib.insight.transactions.InvalidTransactionError` on
    input that breaks the transaction contract."""
    return _chain(
        visible(transactions, as_of), as_of, used_v2=used_v2, used_pave_v2=used_pave_v2, pave_income=pave_income
    )


def _chain(
    txns: list[Txn], as_of: date, *, used_v2: bool, used_pave_v2: bool, pave_income: PaveIncome | None
) -> ChainResult:
    errors: dict[Detection, AlgorithmFailure] = {}
    fm = _attempt(Detection.FLOATME, lambda: legacy.predict(txns, as_of).on_business_day(as_of), errors)
    pave_answer: PaydayPrediction | None = None
    v2_answer: PaydayPrediction | None = None
    filtered: tuple[Txn, ...] = ()

    def result(chosen: PaydayPrediction, detection: Detection) -> ChainResult:
        return ChainResult(
            chosen,
            detection,
            used_v2=used_v2,
            used_pave_v2=used_pave_v2,
            fm=fm,
            v2=v2_answer,
            pave=pave_answer,
            errors=errors,
            filtered_txns=filtered,
        )

    if used_pave_v2:
        pave_answer = _attempt(Detection.PAVE, lambda: pave.predict(pave_income, as_of).on_business_day(as_of), errors)
        if pave_answer is not None:
            return result(pave_answer, Detection.PAVE)  # short-circuit: V2 is not run
    if used_v2:
        v2_answer, filtered = _run_v2(txns, as_of, errors)
        if v2_answer is not None:
            return result(v2_answer, Detection.FLOATME_V2)
    if fm is not None and fm.next_payday:
        return result(fm, Detection.FLOATME)
    return result(PaydayPrediction.none(Detection.FLOATME, _reason(fm, errors)), Detection.FLOATME)


def _run_v2(
    txns: list[Txn], as_of: date, errors: dict[Detection, AlgorithmFailure]
) -> tuple[PaydayPrediction | None, tuple[Txn, ...]]:
    try:
        result = v2.analyse(txns, as_of)
    except Exception as exc:  # noqa: BLE001 - recorded in the capture row; the chain falls back
        errors[Detection.FLOATME_V2] = AlgorithmFailure.of(Detection.FLOATME_V2, exc)
        return None, ()
    if result.error is not None:
        errors[Detection.FLOATME_V2] = AlgorithmFailure.of(Detection.FLOATME_V2, result.error)
    if result.prediction is None:
        return None, result.candidates
    try:
        return result.prediction.on_business_day(as_of), result.candidates
    except ClosedPaydayError as exc:
        errors[Detection.FLOATME_V2] = AlgorithmFailure.of(Detection.FLOATME_V2, exc)
        return None, result.candidates


def _reason(fm: PaydayPrediction | None, errors: Mapping[Detection, AlgorithmFailure]) -> str:
    """Why the chain has no date: the legacy guess's reason and each algorithm's error."""
    reasons = [fm.reason] if fm is not None and fm.reason else []
    reasons += [f"{e.algorithm.value}: {e.message}" for e in errors.values()]
    return "; ".join(reasons) or "no prediction"


def predict(transactions: list[dict[str, Any]], as_of: date) -> ChainResult:
    """The next payday from API-shaped ``transactions`` seen at ``as_of``: the chain without
    Pave (V2, then the legacy guess). Pure: no I/O. The result has ``next_payday`` (the first
    payday strictly after ``as_of``, or None), ``cadence`` and ``confidence`` (0-1), plus the
    reason, source, collection dates and every algorithm's answer."""
    return run_chain(transactions, as_of, used_v2=True, used_pave_v2=False)


def predict_visible(txns: list[Txn], as_of: date) -> ChainResult:
    """:func:`predict` for transactions already made visible at ``as_of``
    (:func:`~chalicelib.insight.transactions.visible`): a caller that runs several models
    parses once."""
    return _chain(txns, as_of, used_v2=True, used_pave_v2=False, pave_income=None)
