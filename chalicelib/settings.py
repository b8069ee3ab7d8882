"""Every setting the service reads, in one place.

Settings come from the environment (the Chalice stage's ``environment_variables`` in
production, the embedded defaults locally). Resource names derive from the stage so
that ``dev`` and ``prod`` never collide; each can still be overridden by its own variable.
Secrets are read here and nowhere else, and never appear in ``repr``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

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


def _optional_delay(name: str) -> int | None:
    if os.environ.get(name) is None:
        return None
    value = _env_int(name, 0)
    if not 0 <= value <= 900:
        raise ConfigurationError(f"{name} must be between 0 and 900 seconds (SQS' limit), got {value}")
    return value


def _text(name: str, default: str) -> str:
    value = os.environ.get(name, default).strip()
    if not value:
        raise ConfigurationError(f"{name} must not be empty")
    return value


def _url(name: str, default: str) -> str:
    value = _text(name, default).rstrip("/")
    if not value.startswith(("http://", "https://")):
        raise ConfigurationError(f"{name} must be an http(s) URL, got {value!r}")
    return value


def _bounded(name: str, default: float, *, minimum: float) -> float:
    value = _env_float(name, default)
    if value < minimum:
        raise ConfigurationError(f"{name} must be at least {minimum}, got {value!r}")
    return value


def _whole(name: str, default: int, *, minimum: int) -> int:
    value = _env_int(name, default)
    if value < minimum:
        raise ConfigurationError(f"{name} must be at least {minimum}, got {value!r}")
    return value


def _page_size(name: str, default: int) -> int:
    value = _whole(name, default, minimum=1)
    if value > 500:
        raise ConfigurationError(f"{name} must be at most 500 (Plaid's limit), got {value}")
    return value


def _choice(name: str, default: str, allowed: frozenset[str]) -> str:
    value = os.environ.get(name, default).strip().upper()
    if value not in allowed:
        raise ConfigurationError(f"{name} must be one of {sorted(allowed)}, got {value!r}")
    return value


def _secret(name: str, local_default: str, stage: str) -> str:
    """A secret from ``<name>``, else from the SSM SecureString named by ``<name>_PARAMETER``.

    Outside prod a local default (what the local fakes accept) fills in; in prod a missing
    secret is a configuration error, never a silent default. SSM values are cached by
    Powertools for five minutes, so rotation reaches warm functions without a redeploy.
    """
    value = os.environ.get(name, "").strip()
    if value:
        return value
    parameter = os.environ.get(f"{name}_PARAMETER", "").strip()
    if parameter:
        from aws_lambda_powertools.utilities.parameters import get_parameter

        return str(get_parameter(parameter, decrypt=True, max_age=300))
    if stage == "prod":
        raise ConfigurationError(f"{name} (or {name}_PARAMETER) must be set in prod")
    return local_default


#: Every secret the settings read: ``<NAME>``, else the SSM parameter ``<NAME>_PARAMETER`` names.
SECRETS = (
    "PLAID_CLIENT_ID",
    "PLAID_SECRET",
    "USER_SERVICE_TOKEN",
    "PAYMENTS_SERVICE_TOKEN",
    "ADMIN_API_TOKEN",
    "SEGMENT_WRITE_KEY",
    "PAVE_API_KEY",
)
#: Every service base URL the settings read; outside prod the local fakes' fill in.
SERVICE_URLS = (
    "PLAID_BASE_URL",
    "USER_SERVICE_URL",
    "PAYMENTS_SERVICE_URL",
    "ADMIN_API_URL",
    "SEGMENT_HOST",
    "PAVE_URL",
)


def missing_settings(stage: str, environment: Mapping[str, str]) -> list[str]:
    """The variables ``stage``'s functions need at run time that ``environment`` (their Lambda
    environment) lacks: in prod, every service URL and every secret's ``<NAME>_PARAMETER`` (a
    secret's value never belongs in a deployed environment). None outside prod, whose local
    defaults fill in. Without this check prod would fail only at each setting's first use."""
    if stage != "prod":
        return []
    needed = [*SERVICE_URLS, *(f"{name}_PARAMETER" for name in SECRETS)]
    return [name for name in needed if not environment.get(name, "").strip()]


#: How an item's transactions are mined: ``/transactions/get`` windows or ``/transactions/sync`` cursors.
MINING_MODES = frozenset({"GET", "SYNC"})

LOCAL_HOST = "127.0.0.1"
PLAID_PORT = 4567
USER_SERVICE_PORT = 4570
PAYMENTS_SERVICE_PORT = 4571
ADMIN_API_PORT = 4572
SEGMENT_PORT = 4573
#: The local development identity provider (``python -m ops.fakes.auth0``).
AUTH0_PORT = 4574
LOCAL_AUTH0_AUDIENCE = "https://txn.local/api"
LOCAL_PLAID_LAYER_TEMPLATE_ID = "template_local"
LOCAL_PLAID_IDV_TEMPLATE_ID = "idvtmp_local"

#: Credentials the local fakes accept, so the run command works with no set-up (never prod).
LOCAL_PLAID_CLIENT_ID = "local-client-id"
LOCAL_PLAID_SECRET = "local-secret"  # noqa: S105 - what the local fake accepts
LOCAL_USER_SERVICE_TOKEN = "local-user-service-token"  # noqa: S105 - what the local fakes accept
LOCAL_PAYMENTS_SERVICE_TOKEN = "local-payments-service-token"  # noqa: S105 - what the local fakes accept
LOCAL_ADMIN_API_TOKEN = "local-admin-api-token"  # noqa: S105 - what the local fakes accept
LOCAL_SEGMENT_WRITE_KEY = "local-segment-write-key"
#: The local fake Pave (``python -m ops.fakes.pave``) and the API key it accepts.
PAVE_PORT = 4575
LOCAL_PAVE_API_KEY = "local-pave-api-key"


def _local(port: int) -> str:
    return f"http://{LOCAL_HOST}:{port}"


def _service_url(name: str, local_default: str, stage: str) -> str:
    """A peer's base URL; outside prod the local fake's fills in, in prod it must be configured.

    A deployed function that fell back to 127.0.0.1 would fail every call with a connection
    error far from its cause; a missing URL is a configuration error at first use instead.
    """
    if stage == "prod" and not os.environ.get(name, "").strip():
        raise ConfigurationError(f"{name} must be set in prod (the stage's environment in .chalice/config.json)")
    return _url(name, local_default)


@dataclass(frozen=True)
class PeerConfig:
    """Base URLs, credentials, timeouts and retry budget for every peer service."""

    user_service_url: str
    payments_service_url: str
    admin_api_url: str
    segment_host: str
    user_service_token: str = field(repr=False)
    payments_service_token: str = field(repr=False)
    admin_api_token: str = field(repr=False)
    segment_write_key: str = field(repr=False)
    connect_timeout_seconds: float = 2.0
    read_timeout_seconds: float = 5.0
    #: Attempts per idempotent call (1 = no retry); retries only on 502/503/504 and refused connections.
    max_attempts: int = 3
    #: First backoff; doubles per retry, capped at ``backoff_max_seconds``.
    backoff_seconds: float = 0.2
    backoff_max_seconds: float = 2.0
    #: Compress Segment batches (the real API accepts gzip; the fake does too).
    segment_gzip: bool = True


@lru_cache(maxsize=4)
def _peer_config(stage: str) -> PeerConfig:
    return load_peer_config(stage)


def load_peer_config(stage: str | None = None) -> PeerConfig:
    stage = stage or _env("STAGE", "dev")
    return PeerConfig(
        user_service_url=_service_url("USER_SERVICE_URL", _local(USER_SERVICE_PORT), stage),
        payments_service_url=_service_url("PAYMENTS_SERVICE_URL", _local(PAYMENTS_SERVICE_PORT), stage),
        admin_api_url=_service_url("ADMIN_API_URL", _local(ADMIN_API_PORT), stage),
        segment_host=_service_url("SEGMENT_HOST", _local(SEGMENT_PORT), stage),
        user_service_token=_secret("USER_SERVICE_TOKEN", LOCAL_USER_SERVICE_TOKEN, stage),
        payments_service_token=_secret("PAYMENTS_SERVICE_TOKEN", LOCAL_PAYMENTS_SERVICE_TOKEN, stage),
        admin_api_token=_secret("ADMIN_API_TOKEN", LOCAL_ADMIN_API_TOKEN, stage),
        segment_write_key=_text("SEGMENT_WRITE_KEY", _secret("SEGMENT_WRITE_KEY", LOCAL_SEGMENT_WRITE_KEY, stage)),
        connect_timeout_seconds=_bounded("PEER_CONNECT_TIMEOUT_SECONDS", 2.0, minimum=0.01),
        read_timeout_seconds=_bounded("PEER_READ_TIMEOUT_SECONDS", 5.0, minimum=0.01),
        max_attempts=_whole("PEER_MAX_ATTEMPTS", 3, minimum=1),
        backoff_seconds=_bounded("PEER_BACKOFF_SECONDS", 0.2, minimum=0),
        backoff_max_seconds=_bounded("PEER_BACKOFF_MAX_SECONDS", 2.0, minimum=0),
        segment_gzip=_env_bool("SEGMENT_GZIP", True),
    )


@dataclass(frozen=True)
class PaveConfig:
    """Where Pave is, how to authenticate, and how long and how often to try (``docs/peers.md``, Pave)."""

    #: Base URL including the API version, e.g. ``https://api.pave.dev/v1``.
    base_url: str
    api_key: str = field(repr=False)
    #: Header carrying the key; ``Authorization`` sends ``Bearer <key>`` instead of the bare key.
    api_key_header: str = "X-API-Key"
    connect_timeout_seconds: float = 2.0
    #: Uploads carry up to ``upload_page_size`` transactions, so the read budget is larger than other peers'.
    read_timeout_seconds: float = 10.0
    max_attempts: int = 3
    backoff_seconds: float = 0.2
    backoff_max_seconds: float = 2.0
    #: A 429 whose ``Retry-After`` is at most this is waited out inside the call; longer ones raise.
    max_retry_after_seconds: float = 2.0
    #: Transactions (and removals) per upload request.
    upload_page_size: int = 500


@lru_cache(maxsize=4)
def _pave_config(stage: str) -> PaveConfig:
    return load_pave_config(stage)


def load_pave_config(stage: str | None = None) -> PaveConfig:
    stage = stage or _env("STAGE", "dev")
    page_size = _whole("PAVE_UPLOAD_PAGE_SIZE", 500, minimum=1)
    if page_size > 1000:
        raise ConfigurationError(f"PAVE_UPLOAD_PAGE_SIZE must be at most 1000, got {page_size}")
    return PaveConfig(
        base_url=_service_url("PAVE_URL", f"{_local(PAVE_PORT)}/v1", stage),
        api_key=_secret("PAVE_API_KEY", LOCAL_PAVE_API_KEY, stage),
        api_key_header=_text("PAVE_API_KEY_HEADER", "X-API-Key"),
        connect_timeout_seconds=_bounded("PAVE_CONNECT_TIMEOUT_SECONDS", 2.0, minimum=0.01),
        read_timeout_seconds=_bounded("PAVE_READ_TIMEOUT_SECONDS", 10.0, minimum=0.01),
        max_attempts=_whole("PAVE_MAX_ATTEMPTS", 3, minimum=1),
        backoff_seconds=_bounded("PAVE_BACKOFF_SECONDS", 0.2, minimum=0),
        backoff_max_seconds=_bounded("PAVE_BACKOFF_MAX_SECONDS", 2.0, minimum=0),
        max_retry_after_seconds=_bounded("PAVE_MAX_RETRY_AFTER_SECONDS", 2.0, minimum=0),
        upload_page_size=page_size,
    )


#: The predicted low-balance alert's default level. Chosen on the forecast backtest's tuning
#: seed (``python -m ops.bench_forecast --choose-level``): of the levels from 0.2 to 0.65, the
#: one farthest from failing either goal of "goes low within 14 days" (precision >= 0.8,
#: recall >= 0.85), the smaller of its two margins the largest.
LOW_BALANCE_PREDICTION_LEVEL = 0.4


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
    #: The insight service's tables: its own (stage-prefixed) and two owned by other services.
    pave_table: str
    income_detection_table: str
    data_capture_table: str
    user_balance_settings_table: str
    locks_table: str
    #: Where ``plaid-account-changes`` lives; None = the deploy region (``region``).
    account_changes_region: str | None

    webhooks_queue: str
    throttle_queue: str
    listener_queue: str
    replay_feeder_queue: str
    #: The Pave feeder's queue (fed by the ``user_new_txns_batch_completed`` rule) and the miner's poll queue.
    pave_feed_queue: str
    pave_poll_queue: str
    transactions_stream: str
    event_bus: str
    auth0_event_bus: str

    #: Per-message delay for MineRequests; None keeps the throttle queue's own (30 s).
    throttle_delay_seconds: int | None
    account_balance_ttl_days: int
    enable_liability_mining: bool

    plaid_timeout_seconds: float

    #: Bearer JWTs: RS256 only, verified against the issuer's JWKS. No issuer (prod unset) = every call 401s.
    auth0_issuer: str | None = None
    auth0_audience: str = LOCAL_AUTH0_AUDIENCE
    auth0_jwks_url: str | None = None
    #: The scope a service token carries to act for any user.
    auth0_service_scope: str = "txn:act-for-any-user"
    auth0_jwks_cache_seconds: float = 600.0
    #: Whether ``POST /v1/users/{user_id}/balances/qa-seed`` exists; never in prod.
    enable_qa_seed: bool = False
    plaid_layer_template_id: str = LOCAL_PLAID_LAYER_TEMPLATE_ID
    #: The Plaid Identity Verification template the API starts KYC sessions with.
    plaid_idv_template_id: str = LOCAL_PLAID_IDV_TEMPLATE_ID
    #: Where Plaid sends webhooks for items linked through the API (None: the Link customization's).
    plaid_webhook_url: str | None = None
    #: Lifetime of a prequal or reactivation item until the persist endpoint clears it.
    pending_item_ttl_days: int = 7
    #: The payday chain's flags: FloatMe V2 (``used_v2``) and Pave's income insight (``used_pave_v2``).
    payday_used_v2: bool = True
    payday_used_pave_v2: bool = True
    #: Days a recurring or ritual expense row outlives its ``due_date`` (``EXPENSE_TTL``).
    expense_ttl_days: int = 30
    #: Days a cash-advance score row is kept (``ScoreTTL``).
    score_ttl_days: int = 30
    #: Where the refiner, the balance refresh and item removal announce a user's new balances
    #: (savings months and balance alerts are kept current from it).
    balance_updates_queue: str = "dev-insight-balance-updates"
    #: Whether income detection runs its model (``ml_enabled``); off, the rule methods decide.
    income_ml_enabled: bool = True
    #: How newly linked items are mined: ``GET`` (``/transactions/get`` windows) or ``SYNC`` (``/transactions/sync``).
    new_item_mining_mode: str = "GET"
    #: A sync loop with no progress for this long is abandoned, and the next pull of its item takes over.
    sync_loop_stale_seconds: int = 3600
    #: Updates asked for per ``/transactions/sync`` page (Plaid allows 1..500).
    sync_page_size: int = 500
    #: Transactions asked for per ``/transactions/get`` page (Plaid allows 1..500). Smaller pages
    #: cost each miner invocation less time (the SDK parses every page) at more requests.
    transactions_page_size: int = 500
    #: Live balance refreshes (billed by Plaid per call) a user may make per window.
    balance_refresh_limit: int = 10
    balance_refresh_window_seconds: int = 3600
    #: Whether the refiner keeps the monthly summaries current (off: rows keep the contribution
    #: they record and summaries stop moving; run the backfill after turning it back on).
    summaries_enabled: bool = True
    #: Most transaction ids a summary row lists in each of its two id sets (bounds the row's size).
    summary_id_limit: int = 250
    #: First delay of a Pave poll (doubles per attempt, at most 900 s); None keeps the poll queue's own (30 s).
    pave_poll_delay_seconds: int | None = None
    #: Polls of one upload request before the miner gives up on it.
    pave_poll_max_attempts: int = 8
    #: A Pave mine older than this no longer answers the expenses endpoint (our detector does).
    pave_mine_max_age_days: int = 7
    #: The predicted low-balance alert goes out when the forecast's probability of going below
    #: the user's threshold before the next payday exceeds this (1 never does: the alert is off).
    low_balance_prediction_level: float = LOW_BALANCE_PREDICTION_LEVEL

    # Secrets resolve on first use, not when settings load: packaging and deploying import
    # the app (for its names) where no secret exists, and SSM is only reachable at run time.

    @property
    def plaid_client_id(self) -> str:
        return _secret("PLAID_CLIENT_ID", LOCAL_PLAID_CLIENT_ID, self.stage)

    @property
    def plaid_secret(self) -> str:
        return _secret("PLAID_SECRET", LOCAL_PLAID_SECRET, self.stage)

    @property
    def plaid_base_url(self) -> str:
        """Read at first use, like the secrets: tooling that only needs prod's names needs no URL."""
        return _service_url("PLAID_BASE_URL", _local(PLAID_PORT), self.stage)

    @property
    def peers(self) -> PeerConfig:
        return _peer_config(self.stage)

    @property
    def pave(self) -> PaveConfig:
        return _pave_config(self.stage)


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
        pave_table=_env("PAVE_TABLE", prefix + "pave"),
        income_detection_table=_env("INCOME_DETECTION_TABLE", prefix + "incomedetection"),
        data_capture_table=_env("DATA_CAPTURE_TABLE", prefix + "fmdatacapture"),
        user_balance_settings_table=_env("USER_BALANCE_SETTINGS_TABLE", "user-balance-settings"),
        locks_table=_env("LOCKS_TABLE", "locks"),
        account_changes_region=_account_changes_region(stage),
        webhooks_queue=_env("WEBHOOKS_QUEUE", prefix + "txn-plaid-webhooks"),
        throttle_queue=_env("THROTTLE_QUEUE", prefix + "txn-plaid-throttle"),
        listener_queue=_env("LISTENER_QUEUE", prefix + "txn-listener-eventbridge"),
        replay_feeder_queue=_env("REPLAY_FEEDER_QUEUE", prefix + "insight-replay-feeder"),
        pave_feed_queue=_env("PAVE_FEED_QUEUE", prefix + "insight-pave-feed"),
        pave_poll_queue=_env("PAVE_POLL_QUEUE", prefix + "insight-pave-poll"),
        transactions_stream=_env("TRANSACTIONS_STREAM", prefix + "txn-plaid-transactions"),
        event_bus=_env("EVENT_BUS", prefix + "txn-events"),
        auth0_event_bus=_env("AUTH0_EVENT_BUS", prefix + "auth0-logs"),
        throttle_delay_seconds=_optional_delay("THROTTLE_DELAY_SECONDS"),
        account_balance_ttl_days=_env_int("ACCOUNT_BALANCE_TTL_DAYS", 100),
        enable_liability_mining=_env_bool("ENABLE_LIABILITY_MINING", stage != "prod"),
        plaid_timeout_seconds=_bounded("PLAID_TIMEOUT_SECONDS", 10.0, minimum=0.01),
        payday_used_v2=_env_bool("PAYDAY_USED_V2", True),
        payday_used_pave_v2=_env_bool("PAYDAY_USED_PAVE_V2", True),
        **_api_settings(stage),
        expense_ttl_days=_whole("EXPENSE_TTL_DAYS", 30, minimum=1),
        score_ttl_days=_whole("SCORE_TTL_DAYS", 30, minimum=1),
        balance_updates_queue=_env("BALANCE_UPDATES_QUEUE", prefix + "insight-balance-updates"),
        income_ml_enabled=_env_bool("INCOME_ML_ENABLED", True),
        new_item_mining_mode=_choice("NEW_ITEM_MINING_MODE", "GET", MINING_MODES),
        sync_loop_stale_seconds=_whole("SYNC_LOOP_STALE_SECONDS", 3600, minimum=60),
        sync_page_size=_page_size("SYNC_PAGE_SIZE", 500),
        transactions_page_size=_page_size("TRANSACTIONS_PAGE_SIZE", 500),
        summaries_enabled=_env_bool("SUMMARIES_ENABLED", True),
        summary_id_limit=_summary_id_limit(),
        pave_poll_delay_seconds=_optional_delay("PAVE_POLL_DELAY_SECONDS"),
        pave_poll_max_attempts=_whole("PAVE_POLL_MAX_ATTEMPTS", 8, minimum=1),
        pave_mine_max_age_days=_whole("PAVE_MINE_MAX_AGE_DAYS", 7, minimum=1),
        low_balance_prediction_level=_probability("LOW_BALANCE_PREDICTION_LEVEL", LOW_BALANCE_PREDICTION_LEVEL),
    )


def _probability(name: str, default: float) -> float:
    value = _env_float(name, default)
    if not 0.0 <= value <= 1.0:
        raise ConfigurationError(f"{name} must be a probability from 0 to 1, got {value!r}")
    return value


#: Ids of at most this many bytes each keep a full summary row far below DynamoDB's 400 KB item limit.
MAX_SUMMARY_ID_LIMIT = 1000


def _summary_id_limit() -> int:
    value = _whole("SUMMARY_ID_LIMIT", 250, minimum=0)
    if value > MAX_SUMMARY_ID_LIMIT:
        raise ConfigurationError(f"SUMMARY_ID_LIMIT must be at most {MAX_SUMMARY_ID_LIMIT}, got {value}")
    return value


#: Stages whose shared ``plaid-account-changes`` table is the one in this region, whatever the deploy region.
SHARED_TABLE_STAGES = frozenset({"prod", "staging"})
SHARED_TABLE_REGION = "us-east-1"


def _account_changes_region(stage: str) -> str | None:
    """``ACCOUNT_CHANGES_REGION``; by default us-east-1 in staging and prod, the deploy region elsewhere."""
    raw = os.environ.get("ACCOUNT_CHANGES_REGION", "").strip()
    if raw:
        return raw
    return SHARED_TABLE_REGION if stage in SHARED_TABLE_STAGES else None


def _api_settings(stage: str) -> dict[str, Any]:
    """The HTTP API's settings: identity provider, QA seed, Layer template, item expiry."""
    local_issuer = f"{_local(AUTH0_PORT)}/"
    issuer = os.environ.get("AUTH0_ISSUER", "" if stage == "prod" else local_issuer).strip() or None
    if issuer is not None and not issuer.startswith(("http://", "https://")):
        raise ConfigurationError(f"AUTH0_ISSUER must be an http(s) URL, got {issuer!r}")
    jwks_default = f"{issuer.rstrip('/')}/.well-known/jwks.json" if issuer else ""
    webhook_url = os.environ.get("PLAID_WEBHOOK_URL", "").strip() or None
    return {
        "auth0_issuer": issuer,
        "auth0_audience": _text("AUTH0_AUDIENCE", LOCAL_AUTH0_AUDIENCE),
        "auth0_jwks_url": (_url("AUTH0_JWKS_URL", jwks_default) if issuer or "AUTH0_JWKS_URL" in os.environ else None),
        "auth0_service_scope": _text("AUTH0_SERVICE_SCOPE", "txn:act-for-any-user"),
        "auth0_jwks_cache_seconds": _bounded("AUTH0_JWKS_CACHE_SECONDS", 600.0, minimum=1.0),
        "enable_qa_seed": stage != "prod" and _env_bool("ENABLE_QA_SEED", True),
        "plaid_layer_template_id": _text("PLAID_LAYER_TEMPLATE_ID", LOCAL_PLAID_LAYER_TEMPLATE_ID),
        "plaid_idv_template_id": _text("PLAID_IDV_TEMPLATE_ID", LOCAL_PLAID_IDV_TEMPLATE_ID),
        "plaid_webhook_url": _url("PLAID_WEBHOOK_URL", webhook_url) if webhook_url else None,
        "pending_item_ttl_days": _whole("PENDING_ITEM_TTL_DAYS", 7, minimum=1),
        "balance_refresh_limit": _whole("BALANCE_REFRESH_LIMIT", 10, minimum=1),
        "balance_refresh_window_seconds": _whole("BALANCE_REFRESH_WINDOW_SECONDS", 3600, minimum=1),
    }


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The process-wide settings, read once (Lambda reuses the process)."""
    return load_settings()


def reset_settings() -> None:
    """Forget cached settings and secrets so the next call re-reads the environment (tests)."""
    get_settings.cache_clear()
    _peer_config.cache_clear()
    _pave_config.cache_clear()
