"""payday rows: the same-day cache, served only on the day it was computed."""

from __future__ import annotations

from dataclasses import replace
from datetime import date, timedelta
from decimal import Decimal

import pytest

from chalicelib.errors import ValidationError
from chalicelib.insight.data import keys, tables
from chalicelib.insight.data.payday import (
    FLOATME_PAYDAY_CALCULATION,
    FLOATME_V2_PAYDAY_CALCULATION,
    PaydayRecord,
    cached_payday,
    get_payday,
    payday_item,
    put_payday,
)
from tests.insight.data.conftest import NOW, stored

TODAY = NOW.date()


def a_prediction(user_id: str, **overrides: object) -> PaydayRecord:
    fields: dict[str, object] = {
        "user_id": user_id,
        "prediction_date": TODAY,
        "detection_used": FLOATME_V2_PAYDAY_CALCULATION,
        "next_date": date(2026, 11, 27),
        "source": "ACME PAYROLL",
        "frequency": "BIWEEKLY",
        "loan_id": "loan-1",
        "created_date": NOW,
        # the chain's maps as they come back: JSON values (a date goes in as its ISO text)
        "fm": {"payday": "2026-11-26", "cadence": "BIWEEKLY", "confidence": 0.5},
        "v2": {"payday": "2026-11-27", "cadence": "BIWEEKLY", "instant": "2026-11-27", "error": None},
        "pave": None,
    }
    fields.update(overrides)
    return PaydayRecord(**fields)  # type: ignore[arg-type]


def test_row_shape_and_two_day_ttl() -> None:
    row = payday_item(a_prediction("u1", v2={"payday": date(2026, 11, 27), "confidence": 0.97}))
    assert (row["PK"], row["SK"], row["type"]) == ("PAYDAY#u1", "PREDICTION", "PAYDAY")
    assert row["prediction_date"] == "2026-11-20"
    assert row["next_date"] == "2026-11-27"
    assert row["pave"] is None
    assert row["v2"] == {"payday": "2026-11-27", "confidence": Decimal("0.97")}
    assert row["ttl"] == int((NOW + timedelta(days=2)).timestamp())


def test_unknown_detection_is_refused() -> None:
    with pytest.raises(ValidationError, match="detection"):
        payday_item(a_prediction("u1", detection_used="GUESS"))


@pytest.mark.integration
def test_served_only_on_the_day_it_was_computed(ddb: str, user_id: str) -> None:
    # GIVEN today's prediction stored
    assert put_payday(a_prediction(user_id)) is True
    # THEN it is served today, exactly as written
    assert cached_payday(user_id, TODAY) == a_prediction(user_id)
    # AND not tomorrow (stale day), though the row is still there until its ttl
    assert cached_payday(user_id, TODAY + timedelta(days=1)) is None
    assert get_payday(user_id) is not None


@pytest.mark.integration
def test_a_recompute_overwrites_but_an_older_day_never_does(ddb: str, user_id: str) -> None:
    tomorrow = replace(
        a_prediction(user_id), prediction_date=TODAY + timedelta(days=1), detection_used=FLOATME_PAYDAY_CALCULATION
    )
    # GIVEN tomorrow's prediction already written
    assert put_payday(tomorrow) is True
    # WHEN a slow request of today writes afterwards THEN it loses
    assert put_payday(a_prediction(user_id)) is False
    assert get_payday(user_id) == tomorrow
    # AND a second recompute of the same day overwrites (one row per user)
    again = replace(tomorrow, loan_id="loan-2")
    assert put_payday(again) is True
    assert stored(tables.pave(), keys.payday_key(user_id))["loan_id"] == "loan-2"  # type: ignore[index]


@pytest.mark.integration
def test_no_row_is_no_cache(ddb: str, user_id: str) -> None:
    assert cached_payday(user_id, TODAY) is None


@pytest.mark.integration
def test_the_served_answer_and_the_flags_round_trip_and_older_rows_read_none(ddb: str, user_id: str) -> None:
    # GIVEN a prediction with its confidence, reason, collection dates, errors and flags
    full = replace(
        a_prediction(user_id),
        confidence=0.875,
        reason=None,
        collection={"instant": "2026-11-27", "standard": "2026-11-30", "extended": None},
        errors={"PAVE_PAYDAY_CALCULATION": {"error": "PaveUnavailableError", "message": "no insight"}},
        used_v2=True,
        used_pave_v2=False,
    )
    put_payday(full)
    # THEN it reads back exactly
    assert get_payday(user_id) == full
    # AND a row written before these were kept reads them as None
    table = tables.pave()
    row = stored(table, keys.payday_key(user_id))
    assert row is not None
    for name in ("confidence", "reason", "collection", "errors", "used_v2", "used_pave_v2"):
        row.pop(name)
    table.put_item(Item=row)
    older = get_payday(user_id)
    assert older is not None
    assert (older.confidence, older.collection, older.errors, older.used_v2, older.used_pave_v2) == (
        None,
        None,
        None,
        None,
        None,
    )
