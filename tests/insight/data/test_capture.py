"""The capture client: per-user partition, event keys, 2-day TTL on every row, daily events once."""

from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal

import pytest
from boto3.dynamodb.conditions import Key

from chalicelib.errors import ValidationError
from chalicelib.insight import capture
from chalicelib.insight.capture import CaptureEvent, CaptureTooLargeError
from chalicelib.insight.data import keys, tables
from tests.insight.data.conftest import NOW, stored

TODAY = date(2026, 11, 20)


def rows_of(user_id: str) -> list[dict[str, object]]:
    return tables.data_capture().query(KeyConditionExpression=Key("PK").eq(f"USERS#{user_id}"))["Items"]


@pytest.mark.integration
def test_every_payday_evaluation_is_one_row(ddb: str, user_id: str) -> None:
    payload = {"detection_used": "FLOATME_V2_PAYDAY_CALCULATION", "from_cache": True, "v2": {"confidence": 0.97}}
    # WHEN two evaluations are captured at the same instant
    first = capture.capture_payday_prediction(user_id, payload, now=NOW, capture_id="req-1")
    second = capture.capture_payday_prediction(user_id, payload, now=NOW)
    # THEN two rows, keyed by event, instant and capture id
    assert first.key == {"PK": f"USERS#{user_id}", "SK": "PAYDAY_PREDICTION#2026-11-20T12:30:00.123456Z#req-1"}
    assert first.key != second.key
    row = stored(tables.data_capture(), dict(first.key))
    assert row is not None
    assert (row["event"], row["service"], row["user_id"], row["type"]) == (
        "PAYDAY_PREDICTION",
        "insight",
        user_id,
        "CAPTURE",
    )
    assert row["payload"]["v2"]["confidence"] == Decimal("0.97")
    assert len(rows_of(user_id)) == 2
    # AND a retried evaluation with the same capture id writes the same row
    capture.capture_payday_prediction(user_id, payload, now=NOW, capture_id="req-1")
    assert len(rows_of(user_id)) == 2


@pytest.mark.integration
def test_daily_events_are_written_once_per_user_per_day(ddb: str, user_id: str) -> None:
    txns = [{"txn_id": "t1", "amount": -125_000, "date": date(2026, 11, 13)}]
    first = capture.capture_filtered_transactions(user_id, TODAY, txns, now=NOW)
    again = capture.capture_filtered_transactions(user_id, TODAY, [], now=NOW + timedelta(hours=1))
    assert (first.written, again.written) == (True, False)
    assert first.key["SK"] == "FM_PAYDAY_FILTERED_TXNS#2026-11-20"
    row = stored(tables.data_capture(), dict(first.key))
    assert row is not None and row["payload"]["transactions"][0]["date"] == "2026-11-13"
    predicted = capture.capture_predicted_payday(user_id, TODAY, {"next_payday": date(2026, 11, 27)}, now=NOW)
    assert predicted.key["SK"] == "FM_PAYDAY_PREDICTED_PAYDAY#2026-11-20"
    tomorrow = capture.capture_predicted_payday(user_id, TODAY + timedelta(days=1), {}, now=NOW + timedelta(days=1))
    assert tomorrow.written is True


@pytest.mark.integration
def test_every_row_lives_two_days(ddb: str, user_id: str) -> None:
    capture.capture_payday_prediction(user_id, {}, now=NOW)
    capture.capture_predicted_payday(user_id, TODAY, {}, now=NOW)
    assert {r["ttl"] for r in rows_of(user_id)} == {int((NOW + timedelta(days=2)).timestamp())}


def test_an_event_is_captured_the_way_its_kind_is() -> None:
    with pytest.raises(ValidationError, match="capture_daily"):
        capture.capture("u1", CaptureEvent.FM_PAYDAY_FILTERED_TXNS, {}, now=NOW)
    with pytest.raises(ValidationError, match="capture"):
        capture.capture_daily("u1", CaptureEvent.PAYDAY_PREDICTION, TODAY, {}, now=NOW)


def test_a_payload_too_large_for_one_item_is_refused() -> None:
    with pytest.raises(CaptureTooLargeError):
        capture.capture_payday_prediction("u1", {"blob": "x" * 400_000}, now=NOW)


def test_rows_read_back_ours_and_the_previous_systems() -> None:
    # GIVEN rows this service writes THEN they read back with their event, instant or day, payload
    key = keys.capture_key("u1", "PAYDAY_PREDICTION", "2026-11-20T12:30:00.123456Z", "req-1")
    ours = capture.captured_from_item(
        capture.capture_item("u1", CaptureEvent.PAYDAY_PREDICTION, key, {"from_cache": True}, NOW)
    )
    assert (ours.user_id, ours.event, ours.captured_at, ours.day, ours.payload) == (
        "u1",
        "PAYDAY_PREDICTION",
        NOW,
        None,
        {"from_cache": True},
    )
    # GIVEN the previous system's once-a-day row: the event and the day only in its sort key
    theirs = capture.captured_from_item({"PK": "USERS#u2", "SK": "FM_PAYDAY_PREDICTED_PAYDAY#2026-11-20"})
    assert (theirs.user_id, theirs.event, theirs.captured_at, theirs.day, theirs.payload) == (
        "u2",
        "FM_PAYDAY_PREDICTED_PAYDAY",
        None,
        TODAY,
        {},
    )
