"""Every setting the service reads, in one place.

Settings come from the environment (the Chalice stage's ``environment_variables`` in
production, the embedded defaults locally). Resource names derive from the stage so
that ``dev`` and ``prod`` never collide; each can still be overridden by its own variable.
Secrets are read here and nowhere else, and never appear in ``repr``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from functools import lru_cache

from chalicelib.errors import ConfigurationError

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def _env(name: str, default: str) -> str:
    return os.environ.get(name, default)


def _env_bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None:
        return default
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ConfigurationError(f"{name} must be a boolean, got {raw!r}")


def _env_int(name: str, default: int) -> int:
    raw = os.environ.get(name)
    if raw is None:
        return default
    try:
        return int(raw)
    except ValueError as exc:
        raise ConfigurationError(f"{name} must be an integer, got {raw!r}") from exc


def _env_float(name: str, default: float) -> float:
    raw = os.environ.get(name)
    if raw is None:
        return default
    try:
        return float(raw)
    except ValueError as exc:
        raise ConfigurationError(f"{name} must be a number, got {raw!r}") from exc


@dataclass(frozen=True)
class Settings:
    """Resolved configuration; build it with :func:`get_settings`."""

    stage: str
    region: str
    aws_endpoint_url: str | None
    aws_connect_timeout: float
    aws_read_timeout: float
    aws_max_attempts: int

    transactions_table: str
    plaid_table: str
    institutions_table: str
    account_changes_table: str

    webhooks_queue: str
    throttle_queue: str
    listener_queue: str
    replay_feeder_queue: str
    transactions_stream: str
    event_bus: str
    auth0_event_bus: str

    account_balance_ttl_days: int
    enable_liability_mining: bool

    plaid_base_url: str
    plaid_client_id: str
    plaid_secret: str = field(repr=False)
    plaid_timeout_seconds: float = 10.0

    @property
    def is_prod(self) -> bool:
        return self.stage == "prod"


def load_settings() -> Settings:
    """Read the environment now; prefer :func:`get_settings` outside tests."""
    stage = _env("STAGE", "dev")
    if not stage or "#" in stage:
        raise ConfigurationError(f"STAGE must be a plain name, got {stage!r}")
    prefix = f"{stage}-"
    return Settings(
        stage=stage,
        region=_env("AWS_REGION", _env("AWS_DEFAULT_REGION", "us-east-1")),
        aws_endpoint_url=os.environ.get("AWS_ENDPOINT_URL") or None,
        aws_connect_timeout=_env_float("AWS_CONNECT_TIMEOUT", 2.0),
        aws_read_timeout=_env_float("AWS_READ_TIMEOUT", 10.0),
        aws_max_attempts=_env_int("AWS_MAX_ATTEMPTS", 5),
        transactions_table=_env("TRANSACTIONS_TABLE", prefix + "txn-transactions"),
        plaid_table=_env("PLAID_TABLE", prefix + "txn-plaid"),
        institutions_table=_env("INSTITUTIONS_TABLE", prefix + "txn-plaid-institutions"),
        account_changes_table=_env("ACCOUNT_CHANGES_TABLE", "plaid-account-changes"),
        webhooks_queue=_env("WEBHOOKS_QUEUE", prefix + "txn-plaid-webhooks"),
        throttle_queue=_env("THROTTLE_QUEUE", prefix + "txn-plaid-throttle"),
        listener_queue=_env("LISTENER_QUEUE", prefix + "txn-listener-eventbridge"),
        replay_feeder_queue=_env("REPLAY_FEEDER_QUEUE", prefix + "insight-replay-feeder"),
        transactions_stream=_env("TRANSACTIONS_STREAM", prefix + "txn-plaid-transactions"),
        event_bus=_env("EVENT_BUS", prefix + "txn-events"),
        auth0_event_bus=_env("AUTH0_EVENT_BUS", prefix + "auth0-logs"),
        account_balance_ttl_days=_env_int("ACCOUNT_BALANCE_TTL_DAYS", 100),
        enable_liability_mining=_env_bool("ENABLE_LIABILITY_MINING", stage != "prod"),
        plaid_base_url=_env("PLAID_BASE_URL", "http://127.0.0.1:4567"),
        plaid_client_id=_env("PLAID_CLIENT_ID", "local-client-id"),
        plaid_secret=_env("PLAID_SECRET", "local-secret"),
        plaid_timeout_seconds=_env_float("PLAID_TIMEOUT_SECONDS", 10.0),
    )


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The process-wide settings, read once (Lambda reuses the process)."""
    return load_settings()


def reset_settings() -> None:
    """Forget cached settings so the next call re-reads the environment (tests)."""
    get_settings.cache_clear()
