"""Clients of the peer services: User Service, Payments Service, Admin API and Segment
(Pave, the insights API, has its own module: :mod:`chalicelib.peers.pave`).

Handlers get process-wide clients from the factories below (built from
:func:`~chalicelib.peers.config.get_peer_config`, each opening its HTTP session on its first
call) and decide by error class. Contracts, errors, retries and idempotency: ``docs/peers.md``.
"""

from __future__ import annotations

from functools import lru_cache

from chalicelib.peers.admin_api import NOTE_SOURCE, AdminApiClient, Note
from chalicelib.peers.config import PeerConfig, get_peer_config
from chalicelib.peers.errors import (
    AdminApiError,
    PaymentsServiceError,
    PeerServiceError,
    SegmentError,
    UserNotFoundError,
    UserServiceError,
)
from chalicelib.peers.idempotency import derive_key
from chalicelib.peers.payments import PaymentsServiceClient
from chalicelib.peers.tracking import (
    LOW_BALANCE_ALERT,
    LOW_BALANCE_PREDICTED,
    PLAID_ITEM_ERRORED,
    PLAID_ITEM_REPAIRED,
    SegmentTracker,
)
from chalicelib.peers.transport import RetryPolicy, Timeouts
from chalicelib.peers.user_service import User, UserServiceClient, UserStatus
from chalicelib.settings import reset_settings

__all__ = [
    "LOW_BALANCE_ALERT",
    "LOW_BALANCE_PREDICTED",
    "NOTE_SOURCE",
    "PLAID_ITEM_ERRORED",
    "PLAID_ITEM_REPAIRED",
    "AdminApiClient",
    "AdminApiError",
    "Note",
    "PaymentsServiceClient",
    "PaymentsServiceError",
    "PeerConfig",
    "PeerServiceError",
    "RetryPolicy",
    "SegmentError",
    "SegmentTracker",
    "Timeouts",
    "User",
    "UserNotFoundError",
    "UserServiceClient",
    "UserServiceError",
    "UserStatus",
    "admin_api_from",
    "derive_key",
    "get_admin_api",
    "get_payments_service",
    "get_segment",
    "get_user_service",
    "payments_service_from",
    "reset_peers",
    "segment_from",
    "user_service_from",
]


def _timeouts(config: PeerConfig) -> Timeouts:
    return Timeouts(connect=config.connect_timeout_seconds, read=config.read_timeout_seconds)


def _retry(config: PeerConfig) -> RetryPolicy:
    return RetryPolicy(
        max_attempts=config.max_attempts,
        backoff_seconds=config.backoff_seconds,
        backoff_max_seconds=config.backoff_max_seconds,
    )


def user_service_from(config: PeerConfig) -> UserServiceClient:
    return UserServiceClient(
        config.user_service_url, config.user_service_token, timeouts=_timeouts(config), retry=_retry(config)
    )


def payments_service_from(config: PeerConfig) -> PaymentsServiceClient:
    return PaymentsServiceClient(
        config.payments_service_url, config.payments_service_token, timeouts=_timeouts(config), retry=_retry(config)
    )


def admin_api_from(config: PeerConfig) -> AdminApiClient:
    return AdminApiClient(
        config.admin_api_url, config.admin_api_token, timeouts=_timeouts(config), retry=_retry(config)
    )


def segment_from(config: PeerConfig) -> SegmentTracker:
    return SegmentTracker(
        config.segment_write_key,
        config.segment_host,
        timeouts=_timeouts(config),
        retry=_retry(config),
        gzip=config.segment_gzip,
    )


@lru_cache(maxsize=1)
def get_user_service() -> UserServiceClient:
    """The process-wide User Service client."""
    return user_service_from(get_peer_config())


@lru_cache(maxsize=1)
def get_payments_service() -> PaymentsServiceClient:
    """The process-wide Payments Service client."""
    return payments_service_from(get_peer_config())


@lru_cache(maxsize=1)
def get_admin_api() -> AdminApiClient:
    """The process-wide Admin API client."""
    return admin_api_from(get_peer_config())


@lru_cache(maxsize=1)
def get_segment() -> SegmentTracker:
    """The process-wide Segment tracker."""
    return segment_from(get_peer_config())


def reset_peers() -> None:
    """Close every built client and re-read the environment on next use (tests, env changes)."""
    from chalicelib.peers.pave import reset_pave  # Pave's client lives in its own module

    reset_pave()
    for factory in (get_user_service, get_payments_service, get_admin_api):
        if factory.cache_info().currsize:
            factory().transport.close()
        factory.cache_clear()
    get_segment.cache_clear()
    reset_settings()
