"""Every insight key, exactly as the access patterns name it."""

from __future__ import annotations

from datetime import date

import pytest

from chalicelib.data.keys import InvalidKeyError
from chalicelib.insight.data import keys

TS = "2026-11-20T12:30:00.123456Z"


def test_pave_entity_keys() -> None:
    assert keys.payday_key("u1") == {"PK": "PAYDAY#u1", "SK": "PREDICTION"}
    assert keys.income_verification_key("u1") == {"PK": "USERS#u1", "SK": "VERIFICATION"}
    assert keys.savings_month_key("u1", "2026-11") == {"PK": "USERS#u1", "SK": "SAVINGS_MONTH#2026-11"}
    assert keys.alert_key("u1") == {"PK": "USERS#u1", "SK": "ALERT#u1"}
    assert keys.pave_label_key("u1") == {"PK": "LABEL#u1", "SK": "PAVE#REFRESH_INSIGHTS"}
    assert keys.last_page_key("u1", "req-9") == {"PK": "USERS#u1", "SK": "LAST_PAGE#REQUEST_ID#req-9"}
    assert keys.insights_key("u1", TS) == {"PK": "MINE#u1", "SK": f"TIME#{TS}"}
    assert keys.recurring_key("u1", TS, "m-uuid", "MONTHLY", 1599) == {
        "PK": "USERS#u1",
        "SK": f"RECURRING#{TS}#MERCHANT#m-uuid#MONTHLY#1599",
    }
    assert keys.ritual_key("u1", TS, "m-1", "WEEKLY", 450) == {
        "PK": "USERS#u1",
        "SK": f"RITUAL#{TS}#MERCHANT#m-1#WEEKLY#450",
    }
    assert keys.income_key("u1") == {"PK": "USERS#u1", "SK": "INCOME#u1"}
    assert keys.score_key("u1", TS) == {"PK": "USERS#u1", "SK": f"CASH_ADVANCE_SCORE#{TS}"}


def test_prefixes_select_one_entity_of_one_mine() -> None:
    sk = keys.recurring_key("u1", TS, "m", "MONTHLY", 1)["SK"]
    assert sk.startswith(keys.recurring_prefix(TS))
    assert not sk.startswith(keys.ritual_prefix(TS))
    assert not sk.startswith(keys.recurring_prefix("2026-11-20T12:30:00.123457Z"))
    assert keys.last_page_key("u1", "r")["SK"].startswith(keys.LAST_PAGE_PREFIX)
    assert keys.score_key("u1", TS)["SK"].startswith(keys.CASH_ADVANCE_SCORE_PREFIX)
    assert keys.savings_month_key("u1", "2026-01")["SK"].startswith(keys.SAVINGS_MONTH_PREFIX)


def test_other_tables_keys() -> None:
    assert keys.income_detection_key("u1", TS) == {"PK": "INCOME_DETECTION#u1", "SK": TS}
    assert keys.capture_key("u1", "PAYDAY_PREDICTION", TS, "abc") == {
        "PK": "USERS#u1",
        "SK": f"PAYDAY_PREDICTION#{TS}#abc",
    }
    assert keys.daily_capture_key("u1", "FM_PAYDAY_FILTERED_TXNS", date(2026, 11, 20)) == {
        "PK": "USERS#u1",
        "SK": "FM_PAYDAY_FILTERED_TXNS#2026-11-20",
    }
    assert keys.balance_settings_key("u1") == {"user_id": "u1"}
    assert keys.balance_alert_lock_key("u1") == "balance-alert:user_id:u1"


@pytest.mark.parametrize(
    "build",
    [
        lambda: keys.payday_key("a#b"),
        lambda: keys.income_verification_key(""),
        lambda: keys.savings_month_key("u1", "2026-13"),
        lambda: keys.savings_month_key("u1", "2026-1"),
        lambda: keys.recurring_key("u1", TS, "m", "MONTHLY", 15.99),  # type: ignore[arg-type]
        lambda: keys.recurring_key("u1", TS, "m#x", "MONTHLY", 1),
        lambda: keys.balance_alert_lock_key("u:1"),
        lambda: keys.income_detection_key("u1", "a#b"),
    ],
)
def test_unsafe_segments_are_refused(build: object) -> None:
    with pytest.raises(InvalidKeyError):
        build()  # type: ignore[operator]


def test_timestamps_in_keys_sort_as_time() -> None:
    from datetime import UTC, datetime, timedelta

    from chalicelib.data.ttl import iso_timestamp

    base = datetime(2026, 1, 1, tzinfo=UTC)
    moments = [base + timedelta(microseconds=n) for n in (0, 1, 999_999, 10**6, 10**9)]
    sks = [keys.score_key("u", iso_timestamp(m))["SK"] for m in moments]
    assert sks == sorted(sks)
