"""The fakes themselves: control plane over HTTP and the ``python -m ops.fakes.peers`` command."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pytest
import requests

from chalicelib.peers import UserNotFoundError, user_service_from
from chalicelib.peers.config import load_peer_config
from ops.fakes.peers import FakePeers
from tests.peers.conftest import new_id

ROOT = Path(__file__).resolve().parents[2]


def test_the_control_plane_seeds_state_injects_faults_and_shows_recordings(peers: FakePeers, user_id: str) -> None:
    # GIVEN a user seeded and a fault injected over HTTP, as a separate process would
    base = peers.user_service.url
    requests.put(f"{base}/_fake/users/{user_id}", json={"status": "CLOSED"}, timeout=2).raise_for_status()
    requests.post(f"{base}/_fake/faults", json={"count": 1, "status": 503}, timeout=2).raise_for_status()
    client = user_service_from(peers.config(backoff_seconds=0.01))

    # WHEN the client asks for the user
    user = client.get_user(user_id)

    # THEN the 503 was retried, the seeded user returned, and both attempts are listed
    assert user.status == "CLOSED"
    recorded = requests.get(f"{base}/_fake/requests", timeout=2).json()
    assert [r["path"] for r in recorded] == [f"/v1/users/{user_id}"] * 2


def test_reset_forgets_state_and_recordings(peers: FakePeers, user_id: str) -> None:
    # GIVEN a user and a recorded lookup
    peers.user_service.add_user(user_id)
    client = user_service_from(peers.config())
    client.get_user(user_id)

    # WHEN the fakes are reset
    requests.post(f"{peers.user_service.url}/_fake/reset", timeout=2).raise_for_status()

    # THEN the user is gone and nothing is recorded but the new lookup
    with pytest.raises(UserNotFoundError):
        client.get_user(user_id)
    assert len(peers.user_service.requests) == 1


def test_the_command_serves_all_four_fakes_until_terminated() -> None:
    # GIVEN the command started on free ports
    process = subprocess.Popen(
        [sys.executable, "-m", "ops.fakes.peers", "--any-port"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        urls = dict(process.stdout.readline().split() for _ in range(4))

        # WHEN a never-seeded user is looked up (the command answers unknown users as ACTIVE)
        user_id = new_id("user")
        answer = requests.get(
            f"{urls['user-service']}/v1/users/{user_id}",
            headers={"Authorization": f"Bearer {load_peer_config().user_service_token}"},
            timeout=2,
        )

        # THEN all four are up and the lookup succeeds
        assert set(urls) == {"user-service", "payments-service", "admin-api", "segment"}
        assert answer.status_code == 200
        assert answer.json()["status"] == "ACTIVE"
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
    # AND it stops cleanly on SIGTERM
    assert process.returncode == 0
