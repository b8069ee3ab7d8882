"""Fixtures for the peer clients: the four fakes on ephemeral ports and clients aimed at them.

Fakes are per test (binding a port takes microseconds), so a request a test stalled can
never land in the next test's recordings. Timeouts and backoff are short so failure paths
run in well under a second; the production values are in ``chalicelib.peers.config``.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest

from chalicelib.peers import (
    AdminApiClient,
    PaymentsServiceClient,
    PeerConfig,
    SegmentTracker,
    UserServiceClient,
    admin_api_from,
    payments_service_from,
    segment_from,
    user_service_from,
)
from ops.fakes.peers import FakePeers

#: Client read timeout in tests; a stall of STALL_SECONDS is sure to exceed it.
READ_TIMEOUT = 1.0  # generous: a loaded CI machine must not turn a slow answer into a timeout
STALL_SECONDS = 2.5  # well past READ_TIMEOUT, so a stall is always a timeout
MAX_ATTEMPTS = 3


def new_id(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:12]}"


@pytest.fixture
def peers() -> Iterator[FakePeers]:
    with FakePeers() as fakes:
        yield fakes


@pytest.fixture
def peer_config(peers: FakePeers) -> PeerConfig:
    return peers.config(
        connect_timeout_seconds=0.5,
        read_timeout_seconds=READ_TIMEOUT,
        max_attempts=MAX_ATTEMPTS,
        backoff_seconds=0.01,
        backoff_max_seconds=0.02,
    )


@pytest.fixture
def user_service(peer_config: PeerConfig) -> UserServiceClient:
    return user_service_from(peer_config)


@pytest.fixture
def payments(peer_config: PeerConfig) -> PaymentsServiceClient:
    return payments_service_from(peer_config)


@pytest.fixture
def admin_api(peer_config: PeerConfig) -> AdminApiClient:
    return admin_api_from(peer_config)


@pytest.fixture
def segment(peer_config: PeerConfig) -> SegmentTracker:
    return segment_from(peer_config)
