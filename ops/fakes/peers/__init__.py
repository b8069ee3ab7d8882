"""Local fakes of the peer services, as real HTTP servers (see ``docs/peers.md``).

Tests start them on ephemeral ports (``with FakePeers() as peers:``) and point the clients at
them with :meth:`FakePeers.env` or :meth:`FakePeers.config`; the run command starts all four
on their default ports with ``python -m ops.fakes.peers``.
"""

from __future__ import annotations

import dataclasses
import threading
from types import TracebackType
from typing import Any, Self

from chalicelib.peers.config import PeerConfig, load_peer_config
from ops.fakes.peers.admin_api import FakeAdminApi
from ops.fakes.peers.payments import FakePaymentsService
from ops.fakes.peers.segment import FakeSegment
from ops.fakes.peers.server import FakeServer, RecordedRequest, Reply
from ops.fakes.peers.user_service import FakeUserService

__all__ = [
    "FakeAdminApi",
    "FakePaymentsService",
    "FakePeers",
    "FakeSegment",
    "FakeServer",
    "FakeUserService",
    "RecordedRequest",
    "Reply",
]


class FakePeers:
    """All four fakes together, on ephemeral ports unless ``default_ports``.

    Credentials default to the ones :func:`~chalicelib.peers.config.load_peer_config` reads
    (the local defaults unless the environment overrides them), so the app's clients and the
    fakes agree without further setup.
    """

    def __init__(
        self,
        host: str = "127.0.0.1",
        *,
        default_ports: bool = False,
        auto_user_status: str | None = None,
        config: PeerConfig | None = None,
    ) -> None:
        credentials = config or load_peer_config()

        def port(fake: type[FakeServer]) -> int:
            return fake.default_port if default_ports else 0

        self.user_service = FakeUserService(
            host, port(FakeUserService), token=credentials.user_service_token, auto_status=auto_user_status
        )
        self.payments = FakePaymentsService(host, port(FakePaymentsService), token=credentials.payments_service_token)
        self.admin_api = FakeAdminApi(host, port(FakeAdminApi), token=credentials.admin_api_token)
        self.segment = FakeSegment(host, port(FakeSegment), write_key=credentials.segment_write_key)
        self._credentials = credentials

    @property
    def all(self) -> tuple[FakeServer, ...]:
        return (self.user_service, self.payments, self.admin_api, self.segment)

    def start(self) -> Self:
        started: list[FakeServer] = []
        try:
            for fake in self.all:
                started.append(fake.start())
        except BaseException:
            for fake in started:
                fake.stop()
            raise
        return self

    def stop(self) -> None:
        """Stop all four at once (each waits up to one poll interval)."""
        stoppers = [threading.Thread(target=fake.stop) for fake in self.all]
        for thread in stoppers:
            thread.start()
        for thread in stoppers:
            thread.join()

    def reset(self) -> None:
        for fake in self.all:
            fake.reset()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    def env(self) -> dict[str, str]:
        """Environment variables that point :func:`load_peer_config` at these fakes."""
        return {
            "USER_SERVICE_URL": self.user_service.url,
            "PAYMENTS_SERVICE_URL": self.payments.url,
            "ADMIN_API_URL": self.admin_api.url,
            "SEGMENT_HOST": self.segment.url,
            "USER_SERVICE_TOKEN": self.user_service.token,
            "PAYMENTS_SERVICE_TOKEN": self.payments.token,
            "ADMIN_API_TOKEN": self.admin_api.token,
            "SEGMENT_WRITE_KEY": self.segment.write_key,
        }

    def config(self, **overrides: Any) -> PeerConfig:
        """A :class:`PeerConfig` aimed at these fakes (timeouts, retries overridable)."""
        return dataclasses.replace(
            self._credentials,
            user_service_url=self.user_service.url,
            payments_service_url=self.payments.url,
            admin_api_url=self.admin_api.url,
            segment_host=self.segment.url,
            **overrides,
        )
