"""incomedetection rows: one per run, every method's results, the ML fields, 7-day TTL."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest

from chalicelib.errors import ValidationError
from chalicelib.insight.data import keys, tables
from chalicelib.insight.data.income_detection_runs import (
    IncomeDetectionRun,
    from_item,
    income_detection_item,
    put_income_detection_run,
)
from tests.insight.data.conftest import NOW, stored

PAYCHECK = {"txn_id": "t1", "amount": -125_000, "date": "2026-11-13", "name": "ACME PAYROLL"}


def a_run(user_id: str, **overrides: object) -> IncomeDetectionRun:
    fields: dict[str, object] = {
        "user_id": user_id,
        "run_date": NOW,
        "method_results": {"a": [PAYCHECK], "b": [], "ml": [PAYCHECK]},
        "ml_enabled": True,
        "ml_results_used": False,
        "ml_prediction_id": "pred-1",
        "ml_predictions": [1, 0],
        "ml_probabilities": [0.93, 0.04],
    }
    fields.update(overrides)
    return IncomeDetectionRun(**fields)  # type: ignore[arg-type]


def test_row_shape() -> None:
    row = income_detection_item(a_run("u1"))
    assert (row["PK"], row["SK"]) == ("INCOME_DETECTION#u1", "2026-11-20T12:30:00.123456Z")
    assert row["run_date"] == row["SK"]
    assert row["method_a_results"] == [PAYCHECK]
    assert row["method_b_results"] == []
    assert row["method_ml_results"] == [PAYCHECK]
    assert (row["ml_enabled"], row["ml_results_used"], row["ml_prediction_id"]) == (True, False, "pred-1")
    assert row["ml_probabilities"] == [Decimal("0.93"), Decimal("0.04")]
    assert row["ttl"] == int((NOW + timedelta(days=7)).timestamp())


def test_method_names_are_letters_or_ml() -> None:
    with pytest.raises(ValidationError, match="method"):
        income_detection_item(a_run("u1", method_results={"a_b": []}))


@pytest.mark.integration
def test_a_run_is_written_once(ddb: str, user_id: str) -> None:
    assert put_income_detection_run(a_run(user_id)) is True
    assert put_income_detection_run(a_run(user_id, ml_enabled=False)) is False
    row = stored(tables.income_detection(), keys.income_detection_key(user_id, "2026-11-20T12:30:00.123456Z"))
    assert row is not None and row["ml_enabled"] is True
    assert put_income_detection_run(a_run(user_id, run_date=NOW + timedelta(seconds=1))) is True


def test_rows_read_back_ours_and_the_previous_systems() -> None:
    # GIVEN a row this service writes THEN it reads back as the run
    run = a_run("u1")
    assert from_item(income_detection_item(run)) == run
    # GIVEN the previous system's row: its attributes only, the user and run date in the keys
    theirs = {
        "PK": "INCOME_DETECTION#u2",
        "SK": "2026-11-20T12:30:00.123456789Z",
        "method_a_results": [PAYCHECK],
        "method_ml_results": [],
        "ml_enabled": False,
        "ml_results_used": False,
    }
    # THEN it reads, what it lacks empty
    read = from_item(theirs)
    assert (read.user_id, read.run_date, read.ml_prediction_id) == ("u2", NOW, None)
    assert read.method_results == {"a": [PAYCHECK], "ml": []}
    assert (read.ml_predictions, read.ml_probabilities) == ([], [])
