"""Pure rules of the foundation: keys, TTLs, money, settings, log redaction."""

from __future__ import annotations

import json
import logging
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from pathlib import Path

import pytest

from chalicelib.data import keys, money, ttl
from chalicelib.data.accounts import Account, Balances, account_item
from chalicelib.data.transactions import Transaction, amount_from_item, transaction_item
from chalicelib.errors import ConfigurationError, ValidationError
from chalicelib.observability import REDACTED, RedactingFormatter, redact
from chalicelib.settings import (
    SECRETS,
    SERVICE_URLS,
    Settings,
    load_pave_config,
    load_peer_config,
    load_settings,
    missing_settings,
    reset_settings,
)

ROOT = Path(__file__).resolve().parents[2]

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


# --- keys -----------------------------------------------------------------------------


def test_transaction_keys_follow_seed_000() -> None:
    item = transaction_item(Transaction("u1", "a1", "t1", 1234, date(2026, 11, 2), category_id="c9"), NOW)
    assert (item["PK"], item["SK"]) == ("TXN#t1", "TXN#t1")
    assert item["GSI1PK"] == "ACCOUNTS#u1"
    assert item["GSI2PK"] == "ACCOUNTS#u1#CATEGORY#c9"
    assert item["GSI3PK"] == "ACCOUNTS#u1#ACCOUNT#a1"
    assert item["GSI4PK"] == "ACCOUNTS#u1#ACCOUNT#a1#CATEGORY#c9"
    assert {item[f"GSI{n}SK"] for n in (1, 2, 3, 4)} == {"DATE#2026-11-02#TXN#t1"}
    assert item["type"] == "TRANSACTION"


def test_a_removed_transaction_hides_every_gsi_sort_key() -> None:
    item = transaction_item(Transaction("u1", "a1", "t1", 1, date(2026, 11, 2), removed=True), NOW)
    assert item["txn_removed"] is True
    assert all(item[f"GSI{n}SK"].startswith("REMOVED#DATE#") for n in (1, 2, 3, 4))
    assert keys.removed(keys.removed("DATE#x")) == "REMOVED#DATE#x", "removing twice changes nothing"


def test_optional_transaction_attributes_are_omitted_when_empty() -> None:
    item = transaction_item(Transaction("u1", "a1", "t1", 1, date(2026, 11, 2)), NOW)
    assert "txn_merchant_name" not in item and "txn_category" not in item and "txn_name" not in item


@pytest.mark.parametrize("segment", ["", "a#b"])
def test_key_segments_may_not_be_empty_or_contain_the_separator(segment: str) -> None:
    with pytest.raises(keys.InvalidKeyError, match="invalid key segment"):
        keys.transaction_key(segment)


def test_other_entity_keys() -> None:
    assert keys.account_key("u", "a") == {"PK": "ACCOUNTS#u", "SK": "ACCOUNT#a"}
    assert keys.balance_key("u", "a", "2026-11-30") == {"PK": "BALANCE#u", "SK": "ACCOUNT#a#2026-11-30"}
    assert keys.remove_key("t") == {"PK": "REMOVE#t", "SK": "REMOVE#t"}
    assert keys.layer_key("public-x") == {"PK": "LAYER#public-x", "SK": "TOKEN"}
    assert keys.item_key("u", "i") == {"PK": "USERS#u", "SK": "ITEMS#i"}
    assert keys.item_gsi_keys("u", "i") == {"GSI1PK": "ITEMS#i", "GSI1SK": "USERS#u"}
    assert keys.summary_sk("2026-11", "a", "c") == "DATE#2026-11#ACCOUNT#a#CATEGORY#c"
    webhook = keys.webhook_info_keys("u", "i", "2026-11-30T00:00:00.000000Z", "TRANSACTIONS", "DEFAULT_UPDATE", "PLAID")
    assert webhook["SK"] == "DATETIME#2026-11-30T00:00:00.000000Z#TYPE#TRANSACTIONS#CODE#DEFAULT_UPDATE"
    assert webhook["GSI2SK"] == "TYPE#TRANSACTIONS#CODE#DEFAULT_UPDATE#DATETIME#2026-11-30T00:00:00.000000Z"
    assert webhook["GSI4SK"].startswith("SOURCE#PLAID#TYPE#TRANSACTIONS#")


# --- TTL ------------------------------------------------------------------------------


def test_transaction_ttl_is_date_plus_120_days_but_never_sooner_than_14_days() -> None:
    recent = date(2026, 11, 20)
    assert ttl.transaction_ttl(recent, NOW) == ttl.epoch(datetime(2026, 11, 20, tzinfo=UTC) + timedelta(days=120))
    assert ttl.transaction_ttl(date(2020, 1, 1), NOW) == ttl.epoch(NOW + timedelta(days=14))


# --- money ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("amount", "cents"),
    [(12.34, 1234), ("-0.10", -10), (0.1 + 0.2, 30), (Decimal("1.005"), 100), (1.015, 102), (5, 500)],
)
def test_dollars_become_integer_cents_through_decimal(amount: object, cents: int) -> None:
    assert money.dollars_to_cents(amount) == cents


@pytest.mark.parametrize("bad", [True, None, "abc", float("nan"), float("inf"), [1]])
def test_non_amounts_are_rejected(bad: object) -> None:
    with pytest.raises(ValidationError):
        money.dollars_to_cents(bad)


def test_string_copies_and_stored_amounts() -> None:
    assert money.cents_to_string(-1230) == "-12.30"
    assert money.from_dynamo(Decimal("1234")) == 1234
    with pytest.raises(ValidationError):
        money.from_dynamo(Decimal("12.5"))


def test_legacy_negative_amounts_are_corrected_from_the_string_copy() -> None:
    legacy = {"txn_amount": Decimal(2500), "txn_amount_string": "-25.00"}
    assert amount_from_item(legacy) == -2500
    assert amount_from_item({"txn_amount": Decimal(2500), "txn_amount_string": "25.00"}) == 2500
    assert amount_from_item({"txn_amount": Decimal(-700)}) == -700


def test_a_null_plaid_balance_is_stored_as_zero_with_its_flag_false() -> None:
    account = Account("u", "i", "a", "Checking", "depository", Balances(0, 5000, available_reported=False))
    item = account_item(account, NOW)
    assert item["acct_balances"]["bal_available"] == 0
    assert item["bal_available_reported"] is False
    assert item["acct_balances"]["calc_bal_available"] == 5000
    assert item["acct_balances"]["bal_current_string"] == "50.00"


# --- settings -------------------------------------------------------------------------


def test_names_derive_from_the_stage(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STAGE", "prod")
    settings = load_settings()
    assert settings.transactions_table == "prod-txn-transactions"
    assert settings.throttle_queue == "prod-txn-plaid-throttle"
    assert settings.account_changes_table == "plaid-account-changes"
    assert settings.enable_liability_mining is False


def test_the_shared_table_region_is_its_own_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    # GIVEN a deploy region other than us-east-1
    monkeypatch.setenv("AWS_REGION", "us-west-2")
    monkeypatch.delenv("ACCOUNT_CHANGES_REGION", raising=False)
    # THEN staging and prod use the us-east-1 table, other stages the deploy region's
    for stage, region in (("prod", "us-east-1"), ("staging", "us-east-1"), ("dev", None)):
        monkeypatch.setenv("STAGE", stage)
        assert load_settings().account_changes_region == region
    # AND the variable overrides both
    monkeypatch.setenv("ACCOUNT_CHANGES_REGION", "eu-west-1")
    assert load_settings().account_changes_region == "eu-west-1"


def test_prod_never_falls_back_to_local_secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STAGE", "prod")
    monkeypatch.delenv("PLAID_SECRET", raising=False)
    monkeypatch.delenv("PLAID_SECRET_PARAMETER", raising=False)
    settings = load_settings()
    with pytest.raises(ConfigurationError, match="PLAID_SECRET"):
        _ = settings.plaid_secret
    monkeypatch.setenv("PLAID_SECRET", "from-the-environment")
    assert settings.plaid_secret == "from-the-environment"
    assert "from-the-environment" not in repr(settings)


URLS = SERVICE_URLS


@pytest.mark.parametrize("name", URLS)
def test_prod_never_falls_back_to_a_local_fakes_url(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    # GIVEN prod with every other URL and secret configured, but not this URL
    monkeypatch.setenv("STAGE", "prod")
    for other in URLS:
        monkeypatch.setenv(other, "https://other.example.test")
    for secret in ("USER_SERVICE_TOKEN", "PAYMENTS_SERVICE_TOKEN", "ADMIN_API_TOKEN", "SEGMENT_WRITE_KEY"):
        monkeypatch.setenv(secret, "configured")
    monkeypatch.setenv("PAVE_API_KEY", "configured")
    monkeypatch.delenv(name)

    def read() -> str:
        settings = load_settings()
        if name == "PLAID_BASE_URL":
            return settings.plaid_base_url
        if name == "PAVE_URL":
            return load_pave_config().base_url
        return str(getattr(load_peer_config(), name.lower()))

    # WHEN it is read THEN it is a configuration error naming the variable, not 127.0.0.1
    with pytest.raises(ConfigurationError, match=name):
        read()
    # AND with the URL set it is used; outside prod the local fake's fills in
    monkeypatch.setenv(name, "https://service.example.test/")
    assert read() == "https://service.example.test"
    monkeypatch.delenv(name)
    monkeypatch.setenv("STAGE", "dev")
    assert read().startswith("http://127.0.0.1:")


def _read_every_setting(settings: Settings) -> None:
    """Read what a prod function may read: every property (secrets, Plaid's URL, the peers', Pave's)."""
    for name, member in vars(Settings).items():
        if isinstance(member, property):
            getattr(settings, name)


def test_prod_needs_exactly_the_declared_service_urls_and_secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    # GIVEN prod with every declared URL and secret set (secrets by value; SSM reads are tested with Pave's key)
    monkeypatch.setenv("STAGE", "prod")
    for name in SERVICE_URLS:
        monkeypatch.setenv(name, "https://service.example.test")
    for name in SECRETS:
        monkeypatch.setenv(name, "configured")
        monkeypatch.delenv(f"{name}_PARAMETER", raising=False)
    reset_settings()
    # THEN every setting reads: prod needs nothing the declaration (and the package check) leaves out
    _read_every_setting(load_settings())
    # AND without any one of them, a read fails naming it: prod needs every declared one
    for name in [*SERVICE_URLS, *SECRETS]:
        with monkeypatch.context() as without:
            without.delenv(name)
            reset_settings()
            with pytest.raises(ConfigurationError, match=name):
                _read_every_setting(load_settings())
    reset_settings()


def test_missing_settings_names_what_a_prod_environment_lacks_in_declaration_order() -> None:
    complete = dict.fromkeys(SERVICE_URLS, "https://service.example.test")
    complete |= {f"{name}_PARAMETER": f"/txn/prod/{name.lower()}" for name in SECRETS}
    assert missing_settings("prod", complete) == []
    # a blank URL is missing; a secret's value instead of its parameter name is too (it never belongs there)
    lacking = {**complete, "ADMIN_API_URL": " ", "PAVE_API_KEY": "a-secret-value"}
    del lacking["PAVE_API_KEY_PARAMETER"], lacking["USER_SERVICE_URL"]
    assert missing_settings("prod", lacking) == ["USER_SERVICE_URL", "ADMIN_API_URL", "PAVE_API_KEY_PARAMETER"]
    # outside prod the local defaults fill in
    assert missing_settings("dev", {}) == []


def test_prods_configuration_names_the_public_services_urls() -> None:
    # (the internal services' URLs are the deployer's to add: docs/operations.md)
    config = json.loads((ROOT / ".chalice" / "config.json").read_text())
    prod = config["stages"]["prod"]["environment_variables"]
    assert prod["PLAID_BASE_URL"] == "https://production.plaid.com"
    assert prod["SEGMENT_HOST"].startswith("https://") and prod["PAVE_URL"].startswith("https://")


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("ENABLE_LIABILITY_MINING", "maybe"),
        ("THROTTLE_DELAY_SECONDS", "901"),
        ("SUMMARIES_ENABLED", "sometimes"),
        ("SUMMARY_ID_LIMIT", "1001"),
        ("SUMMARY_ID_LIMIT", "-1"),
        ("TRANSACTIONS_PAGE_SIZE", "501"),
        ("TRANSACTIONS_PAGE_SIZE", "0"),
        ("SYNC_PAGE_SIZE", "501"),
    ],
)
def test_malformed_settings_fail_loudly(monkeypatch: pytest.MonkeyPatch, name: str, value: str) -> None:
    monkeypatch.setenv(name, value)
    with pytest.raises(ConfigurationError, match=name):
        load_settings()


# --- logs -----------------------------------------------------------------------------


def test_tokens_and_secret_fields_never_reach_a_log_line() -> None:
    record = logging.LogRecord("txn", logging.INFO, __file__, 1, "linked access-sandbox-1234-abcd", None, None)
    record.access_token = "access-production-5678"
    record.payload = {"public_token": "public-sandbox-9", "nested": [{"secret": "s3cr3t", "ok": "fine"}]}
    line = RedactingFormatter().format(record)
    for secret in ("access-sandbox-1234-abcd", "access-production-5678", "public-sandbox-9", "s3cr3t"):
        assert secret not in line
    assert "fine" in line
    assert json.loads(line)["access_token"] == REDACTED
    assert redact({"authorization": "Bearer x"}) == {"authorization": REDACTED}
