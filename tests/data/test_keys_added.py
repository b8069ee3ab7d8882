"""The key builders added for these modules: exact shapes, and ranges that bound what they should."""

from __future__ import annotations

import pytest

from chalicelib.data import keys


def test_webhook_source_prefixes_nest() -> None:
    full = keys.webhook_info_keys("u", "i", "2025-01-01T00:00:00.000000Z", "TRANSACTIONS", "DEFAULT_UPDATE", "PLAID")
    for prefix in (
        keys.webhook_source_prefix("PLAID"),
        keys.webhook_source_prefix("PLAID", "TRANSACTIONS"),
        keys.webhook_source_prefix("PLAID", "TRANSACTIONS", "DEFAULT_UPDATE"),
    ):
        assert full["GSI4SK"].startswith(prefix)
    assert not full["GSI4SK"].startswith(keys.webhook_source_prefix("PLAID", "TRANSACTION"))
    assert not full["GSI4SK"].startswith(keys.webhook_source_prefix("PLAID", "TRANSACTIONS", "DEFAULT"))


def test_summary_month_range_covers_every_granularity_of_its_months_only() -> None:
    low, high = keys.summary_month_range("2025-02", "2025-03")
    inside = [
        keys.summary_sk("2025-02"),
        keys.summary_sk("2025-03", "a"),
        keys.summary_sk("2025-03", "zzz", "zzz"),
        keys.summary_sk("2025-03", category_id="c"),
    ]
    outside = [keys.summary_sk("2025-01", "z"), keys.summary_sk("2025-04")]
    assert all(low <= sk <= high for sk in inside)
    assert not any(low <= sk <= high for sk in outside)


def test_liability_and_identity_builders_match_the_row_keys() -> None:
    history = keys.liability_history_key("u", "i", "a", "ts")
    gsi = keys.liability_history_gsi_keys("u", "a", "ts")
    assert history["SK"].startswith(keys.liability_history_prefix("i", "a"))
    assert gsi["GSI1PK"] == keys.liability_history_account_pk("a")
    assert gsi["GSI1SK"].startswith(keys.TIMESTAMP_PREFIX)
    assert keys.liability_gsi_keys("u", "a")["GSI1PK"] == keys.liability_account_pk("a")
    idv = keys.identity_verification_gsi_keys("u", "idv", "ts", "scr")
    assert idv["GSI2SK"] == keys.identity_verification_watchlist_sk("scr")


def test_plain_table_keys_refuse_empty_parts() -> None:
    assert keys.institution_key("ins_1") == {"institution_id": "ins_1"}
    assert keys.account_change_key("u", "d") == {"user_id": "u", "change_date": "d"}
    with pytest.raises(keys.InvalidKeyError):
        keys.institution_key("")
    with pytest.raises(keys.InvalidKeyError):
        keys.account_change_key("u", "")
