"""Tables other services own: the low-balance threshold (dollars -> cents) and dynamolock rows."""

from __future__ import annotations

from datetime import timedelta

import pytest
from boto3.dynamodb.types import Binary

from chalicelib.errors import ValidationError
from chalicelib.insight.data import keys, tables
from chalicelib.insight.data.balance_settings import (
    BalanceSettings,
    balance_settings_item,
    get_balance_settings,
    low_balance_threshold,
)
from chalicelib.insight.data.locks import get_lock, go_duration, parse_go_duration


@pytest.mark.integration
def test_threshold_in_dollars_is_read_as_cents(ddb: str, user_id: str) -> None:
    # GIVEN the owner's row with a $50.25 threshold
    tables.user_balance_settings().put_item(Item=balance_settings_item(user_id, "50.25"))
    # THEN the service reads 5025 cents
    assert get_balance_settings(user_id) == BalanceSettings(user_id, 5025)
    assert low_balance_threshold(user_id) == 5025


@pytest.mark.integration
def test_null_or_missing_threshold_means_alerts_are_off(ddb: str, user_id: str) -> None:
    tables.user_balance_settings().put_item(Item=balance_settings_item(user_id, None))
    assert low_balance_threshold(user_id) is None
    assert low_balance_threshold(f"{user_id}-never-set") is None


@pytest.mark.parametrize(
    ("text", "duration"),
    [
        ("1m0s", timedelta(seconds=60)),
        ("1s", timedelta(seconds=1)),
        ("1.5s", timedelta(seconds=1.5)),
        ("500ms", timedelta(milliseconds=500)),
        ("1h0m0s", timedelta(hours=1)),
        ("2h45m30.25s", timedelta(hours=2, minutes=45, seconds=30.25)),
        ("0s", timedelta(0)),
    ],
)
def test_go_durations_both_ways(text: str, duration: timedelta) -> None:
    assert parse_go_duration(text) == duration
    assert go_duration(duration) == text


def test_a_bad_duration_is_refused() -> None:
    for text in ("", "60", "1m0", "s", "1d"):
        with pytest.raises(ValidationError):
            parse_go_duration(text)


@pytest.mark.integration
def test_a_row_written_the_way_dynamolock_writes_it_is_read(ddb: str, user_id: str) -> None:
    # GIVEN a lock row exactly as a Go locker leaves it after release (plus our fencing token)
    key = keys.balance_alert_lock_key(user_id)
    tables.locks().put_item(
        Item={
            "key": key,
            "ownerName": "OWNER32",
            "leaseDuration": "1m0s",
            "recordVersionNumber": "1763640000000000000:ABCDEF",
            "data": Binary(b"payload"),
            "isReleased": "1",
            "fence": 7,
        }
    )
    lock = get_lock(key)
    assert lock is not None
    assert (lock.key, lock.owner_name, lock.lease_duration) == (key, "OWNER32", timedelta(seconds=60))
    assert (lock.record_version_number, lock.is_released, lock.data) == ("1763640000000000000:ABCDEF", True, b"payload")
    assert lock.additional == {"fence": 7}
    assert get_lock(f"{key}-none") is None
