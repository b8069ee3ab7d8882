"""The whole local stack, once per session, for the end-to-end and API tests.

Registered from the root ``conftest.py`` as a plugin, so every directory shares one
instance of each fixture: one fake Plaid, one set of fake peers, one app server, and the
environment pointing the app at them (fixtures imported into two conftests would be two
fixtures, each starting its own stack and re-pointing the environment at it).

* the app is served over HTTP by Chalice's own local server (what ``chalice local`` runs);
* Plaid, the peer services and Pave are fakes on ephemeral ports, and the app's settings
  point at them (Pave processes an upload at its first poll; polls are not delayed);
* the event runtime delivers the queues, the stream and the table streams to the app's
  handlers, with a 1-second visibility timeout so retries come back quickly.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from chalicelib.aws.messaging import queue_url
from chalicelib.peers import reset_peers
from chalicelib.plaid.client import reset_plaid
from chalicelib.plaid.webhook_verification import reset_webhook_keys
from chalicelib.settings import get_settings, reset_settings
from ops.app_server import serve_app
from ops.demo import link_fake_item
from ops.fakes.pave import FakePave
from ops.fakes.peers import FakePeers
from ops.fakes.plaid import FakeItem, FakePlaid
from ops.runtime import EventRuntime
from tests.conftest import empty_queue


def _refresh_clients() -> None:
    reset_settings()  # AWS clients follow settings by themselves (cached by what they are built from)
    reset_plaid()
    reset_peers()
    reset_webhook_keys()
    queue_url.cache_clear()


@pytest.fixture(scope="session")
def stack_env(aws_endpoint: str) -> Iterator[dict[str, str]]:
    """Fake Plaid, fake peers and fake Pave running, and the environment pointing the app at them."""
    mp = pytest.MonkeyPatch()
    with FakePlaid() as plaid, FakePeers() as peers, FakePave() as pave:
        env = {
            "PLAID_BASE_URL": plaid.url,
            "THROTTLE_DELAY_SECONDS": "0",
            "PAVE_POLL_DELAY_SECONDS": "0",
            **peers.env(),
            **pave.env(),
        }
        for key, value in env.items():
            mp.setenv(key, value)
        _refresh_clients()
        yield {"plaid": plaid, "peers": peers, "pave": pave, **env}  # type: ignore[dict-item]
        mp.undo()
    _refresh_clients()


@pytest.fixture(scope="session")
def fake_plaid(stack_env: dict[str, Any]) -> FakePlaid:
    return stack_env["plaid"]  # type: ignore[no-any-return]


@pytest.fixture(scope="session")
def fake_peers(stack_env: dict[str, Any]) -> FakePeers:
    return stack_env["peers"]  # type: ignore[no-any-return]


@pytest.fixture(scope="session")
def fake_pave(stack_env: dict[str, Any]) -> FakePave:
    return stack_env["pave"]  # type: ignore[no-any-return]


@pytest.fixture(scope="session")
def app_url(stack_env: dict[str, Any]) -> Iterator[str]:
    """The app served over HTTP on an ephemeral port by Chalice's local server (ops/app_server.py)."""
    with serve_app() as url:
        yield url


@pytest.fixture
def runtime(stack_env: dict[str, Any]) -> EventRuntime:
    """An event runtime over the real app: the pipeline runs when a test drains it.

    The pipeline's queues are shared by the session: what other tests queued and left is
    removed first, so a test's counts are its own.
    """
    empty_pipeline_queues()
    return new_runtime()


def empty_pipeline_queues() -> None:
    """Remove what other tests queued and left on the queues a runtime consumes, including what
    their refines routed to the insight queues (the runtime would feed it to Pave)."""
    settings = get_settings()
    queues = (settings.webhooks_queue, settings.throttle_queue, settings.balance_updates_queue)
    queues += (settings.pave_feed_queue, settings.replay_feeder_queue, settings.pave_poll_queue)
    for queue in queues:
        empty_queue(queue)


def new_runtime(**knobs: Any) -> EventRuntime:
    """A runtime over the real app that sees only what arrives on the streams from now on
    (the streams are shared by the whole session) and retries failures after 1 s."""
    import app as app_module

    return EventRuntime(app_module.app, visibility_timeout=1, ttl_interval=None, starting_position="LATEST", **knobs)


def link_item(plaid: FakePlaid, user_id: str, **options: Any) -> FakeItem:
    """An item linked at (fake) Plaid and saved as an ITEM row, as the add-item API does."""
    return link_fake_item(plaid, user_id, **options)
