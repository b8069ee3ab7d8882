"""Income detection for one user: read the history, detect, record the run.

The history is the insight models' (:func:`chalicelib.insight.history.model_history`: the
retained 120 days, live rows, no REMOVED item's transactions). Every run writes one
``INCOME_DETECTION#<user_id>`` / ``<run_date>`` row (7-day TTL) with each method's detected
transactions, the model's predictions and probabilities per stream and whether the answer
used them. The answer is the detected income streams (see :mod:`chalicelib.insight.income`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from chalicelib.insight import income
from chalicelib.insight.data.income_detection_runs import IncomeDetectionRun, put_income_detection_run
from chalicelib.insight.data.income_verifications import PayFrequency
from chalicelib.insight.history import model_history
from chalicelib.insight.income import IncomeDetection, StreamVerdict
from chalicelib.insight.transactions import Txn

#: Detected transactions stored per method at most (the newest), keeping a run's row far
#: below DynamoDB's 400 KB item limit whatever the user's history.
MAX_STORED_PER_METHOD = 250
_PAY_FREQUENCIES = {f.value: f for f in PayFrequency}


@dataclass(frozen=True)
class DetectionRun:
    """One run: when, what was detected, and the institution of each account seen."""

    user_id: str
    run_date: datetime
    detection: IncomeDetection
    institution_of_account: Mapping[str, str]
    recorded: bool

    def institution_id(self, verdict: StreamVerdict) -> str | None:
        return self.institution_of_account.get(verdict.account_id)


def pay_frequency(cadence: str) -> PayFrequency:
    """The verification's pay frequency of a detected cadence (every four weeks, irregular
    and unknown cadences are ``UNKNOWN``)."""
    return _PAY_FREQUENCIES.get(cadence, PayFrequency.UNKNOWN)


def stored_txn(txn: Txn, payer: str) -> dict[str, Any]:
    return {
        "txn_id": txn.txn_id,
        "account_id": txn.account_id,
        "date": txn.day.isoformat(),
        "amount": txn.amount,
        "payer": payer,
    }


def run_record(user_id: str, run_date: datetime, detection: IncomeDetection) -> IncomeDetectionRun:
    """The run's row (pure): each method's detected transactions, newest first and at most
    :data:`MAX_STORED_PER_METHOD`, and the model's part."""
    payer_of = {t.txn_id: v.profile.stream.payer for v in detection.streams for t in v.txns}
    results: dict[str, list[dict[str, Any]]] = {}
    truncated: list[str] = []
    for method, txns in detection.method_results().items():
        newest = sorted(txns, key=lambda t: (t.day, t.txn_id), reverse=True)
        if len(newest) > MAX_STORED_PER_METHOD:
            truncated.append(method)
        results[method] = [stored_txn(t, payer_of[t.txn_id]) for t in newest[:MAX_STORED_PER_METHOD]]
    details: dict[str, Any] = {
        "as_of": detection.as_of.isoformat(),
        **detection.details,
        "income_streams": [
            {
                "payer": v.profile.stream.payer,
                "account_id": v.account_id,
                "methods": list(v.methods),
                "confidence": round(v.confidence, 4),
            }
            for v in detection.income_streams
        ],
    }
    if truncated:
        details["truncated"] = truncated
    if detection.ml_error:
        details["ml_error"] = detection.ml_error
    return IncomeDetectionRun(
        user_id=user_id,
        run_date=run_date,
        method_results=results,
        ml_enabled=detection.ml_enabled,
        ml_results_used=detection.ml_results_used,
        ml_prediction_id=detection.ml_prediction_id,
        ml_predictions=detection.ml_predictions(),
        ml_probabilities=detection.ml_probabilities,
        details=details,
    )


def run(user_id: str, *, now: datetime, ml_enabled: bool) -> DetectionRun:
    """Detect ``user_id``'s income as of ``now``'s UTC day and record the run."""
    history = model_history(user_id, now.date())
    detection = income.detect(history.transactions, now.date(), ml_enabled=ml_enabled)
    recorded = put_income_detection_run(run_record(user_id, now, detection))
    return DetectionRun(user_id, now, detection, history.institution_of_account, recorded)
