"""Reading stored rows attribute by attribute: a missing attribute takes its default silently,
one that cannot be read takes it too and is recorded; a type names its entity in any spelling."""

from __future__ import annotations

from datetime import UTC, date, datetime
from decimal import Decimal

import pytest

from chalicelib.data.tolerant import (
    LONG_AGO,
    RowReader,
    UnreadableRowError,
    is_service_timestamp,
    parse_day_text,
    parse_timestamp_text,
)
from chalicelib.insight.data import keys
from chalicelib.insight.data.income_verifications import PayFrequency


def test_missing_attributes_take_their_defaults_without_a_problem() -> None:
    reader = RowReader("ALERT", {"PK": "USERS#u-1", "SK": "ALERT#u-1", "stored_null": None})
    assert reader.text("user_id", "") == ""
    assert reader.whole("amount", 0) == 0
    assert reader.flag("alert_sent", True) is True
    assert reader.timestamp("updated_date", None) is None
    assert reader.text("stored_null", "default") == "default"
    assert (reader.mapping("details"), reader.sequence("notes")) == ({}, [])
    assert reader.readable
    reader.require_readable()


def test_present_attributes_that_cannot_be_read_are_problems_naming_only_the_attribute() -> None:
    row = {
        "PK": "USERS#u-1",
        "SK": "VERIFICATION",
        "amount": Decimal("12.5"),
        "alert_sent": "yes",
        "updated_date": "last tuesday",
        "pay_frequency": "FORTNIGHTLY",
        "details": ["not", "a", "map"],
    }
    reader = RowReader("INCOME_VERIFICATION", row)
    assert reader.whole("amount", 0) == 0
    assert reader.flag("alert_sent", True) is True
    assert reader.timestamp("updated_date", LONG_AGO) == LONG_AGO
    assert reader.choice("pay_frequency", PayFrequency, PayFrequency.UNKNOWN) is PayFrequency.UNKNOWN
    assert reader.mapping("details") == {}
    assert [p.split(":")[0] for p in reader.problems] == [
        "amount",
        "alert_sent",
        "updated_date",
        "pay_frequency",
        "details",
    ]
    assert "last tuesday" not in " ".join(reader.problems)  # values are never reported
    with pytest.raises(UnreadableRowError) as raised:
        reader.require_readable()
    assert raised.value.key == {"PK": "USERS#u-1", "SK": "VERIFICATION"}


def test_values_are_read_in_the_previous_systems_forms() -> None:
    reader = RowReader("X", {"PK": "USERS#u-1", "f": "biweekly", "n": Decimal(7), "at": "0001-01-01T00:00:00Z"})
    assert reader.choice("f", PayFrequency, None) is PayFrequency.BIWEEKLY
    assert reader.whole("n", 0) == 7
    assert reader.timestamp("at", None) is None  # Go's zero time: not recorded
    assert reader.key_part("USERS") == "u-1"
    assert reader.readable
    assert parse_timestamp_text("2026-10-03T04:05:06.123456789Z") == datetime(2026, 10, 3, 4, 5, 6, 123456, tzinfo=UTC)
    assert parse_timestamp_text("2026-10-03T04:05:06-05:00") == datetime(2026, 10, 3, 9, 5, 6, tzinfo=UTC)
    assert parse_day_text("2026-11-27") == parse_day_text("2026-11-27T00:00:00Z") == date(2026, 11, 27)
    assert parse_day_text("2026-11-27junk") is None
    assert is_service_timestamp("2026-10-03T04:05:06.123456Z")
    assert not is_service_timestamp("2026-10-03T04:05:06.123456789Z")
    assert not is_service_timestamp("2026-13-03T04:05:06.123456Z")


@pytest.mark.parametrize(
    ("entity", "stored", "names_it"),
    [
        (keys.BALANCE, "BALANCE", True),
        (keys.BALANCE, "balance", True),
        (keys.BALANCE, "SAVINGS_MONTH", True),
        (keys.BALANCE, None, True),
        (keys.BALANCE, "ALERT", False),
        (keys.INSIGHTS, "insights", True),
        (keys.SCORES, "Scores", True),
        (keys.SCORES, 7, False),
    ],
)
def test_a_type_names_its_entity_in_any_spelling(entity: str, stored: object, names_it: bool) -> None:
    row = {"PK": "USERS#u-1", "SK": "X"} | ({} if stored is None else {"type": stored})
    assert keys.names_entity(row, entity) is names_it
