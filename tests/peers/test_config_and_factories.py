"""Peer configuration from the environment, process-wide clients, idempotency keys."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest

from chalicelib.errors import ConfigurationError
from chalicelib.peers import derive_key, get_payments_service, get_user_service, reset_peers
from chalicelib.peers.config import load_peer_config
from ops.fakes.peers import FakePeers


@pytest.fixture
def clean_peers() -> Iterator[None]:
    reset_peers()
    yield
    reset_peers()


def test_defaults_point_at_the_local_fakes_and_hide_secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    # GIVEN no peer variables in the environment
    for name in ("USER_SERVICE_URL", "PAYMENTS_SERVICE_URL", "ADMIN_API_URL", "SEGMENT_HOST", "SEGMENT_WRITE_KEY"):
        monkeypatch.delenv(name, raising=False)

    # WHEN the configuration is read
    config = load_peer_config()

    # THEN each peer is on its local port and no credential shows in repr
    assert (config.user_service_url, config.payments_service_url, config.admin_api_url, config.segment_host) == (
        "http://127.0.0.1:4570",
        "http://127.0.0.1:4571",
        "http://127.0.0.1:4572",
        "http://127.0.0.1:4573",
    )
    assert config.segment_write_key not in repr(config)
    assert config.user_service_token not in repr(config)


def test_the_environment_overrides_every_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    # GIVEN production-like values
    monkeypatch.setenv("USER_SERVICE_URL", "https://users.internal/")
    monkeypatch.setenv("USER_SERVICE_TOKEN", "t-users")
    monkeypatch.setenv("PEER_READ_TIMEOUT_SECONDS", "7.5")
    monkeypatch.setenv("PEER_MAX_ATTEMPTS", "1")
    monkeypatch.setenv("SEGMENT_GZIP", "false")

    # WHEN the configuration is read
    config = load_peer_config()

    # THEN they are used (trailing slash dropped)
    assert config.user_service_url == "https://users.internal"
    assert config.user_service_token == "t-users"
    assert (config.read_timeout_seconds, config.max_attempts, config.segment_gzip) == (7.5, 1, False)


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("USER_SERVICE_URL", "users.internal"),
        ("PEER_READ_TIMEOUT_SECONDS", "soon"),
        ("PEER_MAX_ATTEMPTS", "0"),
        ("PEER_MAX_ATTEMPTS", "2.5"),
        ("SEGMENT_WRITE_KEY", "  "),
        ("SEGMENT_GZIP", "maybe"),
    ],
)
def test_malformed_values_are_configuration_errors(monkeypatch: pytest.MonkeyPatch, name: str, value: str) -> None:
    # GIVEN a malformed value
    monkeypatch.setenv(name, value)

    # WHEN the configuration is read
    # THEN it fails loudly, naming the variable
    with pytest.raises(ConfigurationError, match=name):
        load_peer_config()


def test_process_wide_clients_follow_the_environment_and_open_sessions_lazily(
    monkeypatch: pytest.MonkeyPatch, clean_peers: None, user_id: str
) -> None:
    with FakePeers() as peers:
        # GIVEN the environment points at running fakes, and a seeded user and bank account
        for name, value in peers.env().items():
            monkeypatch.setenv(name, value)
        reset_peers()
        peers.user_service.add_user(user_id, "SUSPENDED")
        peers.payments.add_bank_account(user_id)

        # WHEN handlers take the process-wide clients
        users = get_user_service()
        assert users.transport._session is None
        user = users.get_user(user_id)
        deleted = get_payments_service().delete_bank_account(user_id)

        # THEN the same client is reused, its session now open, and the calls reached the fakes
        assert get_user_service() is users
        assert users.transport._session is not None
        assert user.status == "SUSPENDED"
        assert deleted is True


def test_derived_keys_are_stable_distinct_and_uuid_shaped() -> None:
    # GIVEN the parts that identify one fact
    # WHEN keys are derived
    key = derive_key("plaid_item_errored", "item-1", "webhook-1")

    # THEN the same parts give the same key; another kind or part gives another; it is a UUID
    assert key == derive_key("plaid_item_errored", "item-1", "webhook-1")
    assert key != derive_key("plaid_item_repaired", "item-1", "webhook-1")
    assert key != derive_key("plaid_item_errored", "item-1", "webhook-2")
    assert key != derive_key("plaid_item_errored", "item-1webhook-1")
    assert str(uuid.UUID(key)) == key
    with pytest.raises(ValueError):
        derive_key("plaid_item_errored", "")
