"""Peer-service configuration: read in :mod:`chalicelib.settings`, re-exported here.

The names, defaults and the credentials the local fakes accept are the contract (see
``docs/peers.md``). Locally every peer is a fake on 127.0.0.1:4570-4573
(``python -m ops.fakes.peers``).
"""

from __future__ import annotations

from chalicelib.settings import (
    ADMIN_API_PORT,
    LOCAL_ADMIN_API_TOKEN,
    LOCAL_PAYMENTS_SERVICE_TOKEN,
    LOCAL_SEGMENT_WRITE_KEY,
    LOCAL_USER_SERVICE_TOKEN,
    PAYMENTS_SERVICE_PORT,
    SEGMENT_PORT,
    USER_SERVICE_PORT,
    PeerConfig,
    get_settings,
    load_peer_config,
)

__all__ = [
    "ADMIN_API_PORT",
    "LOCAL_ADMIN_API_TOKEN",
    "LOCAL_PAYMENTS_SERVICE_TOKEN",
    "LOCAL_SEGMENT_WRITE_KEY",
    "LOCAL_USER_SERVICE_TOKEN",
    "PAYMENTS_SERVICE_PORT",
    "SEGMENT_PORT",
    "USER_SERVICE_PORT",
    "PeerConfig",
    "get_peer_config",
    "load_peer_config",
]


def get_peer_config() -> PeerConfig:
    """The process-wide peer configuration (part of the cached settings)."""
    return get_settings().peers
