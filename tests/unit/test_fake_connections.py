"""The fake services and the app's local server keep a client's connection open without stalling it.

A handler of Python's ``http.server`` writes a response's headers and its body apart. On a kept
connection, with Nagle's algorithm on, the body waits for the client's delayed acknowledgement of
the headers: about 40 ms a request, for every client that reuses its connection (plaid-python,
requests sessions, schemathesis with a session). :class:`ops.fakes.http.KeepAliveHandler` turns
the algorithm off on each connection it serves.
"""

from __future__ import annotations

import http.client
import json
import socket
from http.server import BaseHTTPRequestHandler

import pytest

from ops.app_server import AppRequestHandler
from ops.fakes.auth0 import FakeAuth0
from ops.fakes.http import HttpFake, KeepAliveHandler
from ops.fakes.pave import FakePave
from ops.fakes.peers.admin_api import FakeAdminApi
from ops.fakes.peers.payments import FakePaymentsService
from ops.fakes.peers.segment import FakeSegment
from ops.fakes.peers.user_service import FakeUserService
from ops.fakes.plaid import FakePlaid


class Probe(HttpFake):
    """A fake answering each GET with how its connection is set up."""

    name = "probe"

    def handler_class(self) -> type[BaseHTTPRequestHandler]:
        class Handler(KeepAliveHandler):
            def do_GET(self) -> None:
                nodelay = self.connection.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)
                body = json.dumps({"nodelay": bool(nodelay), "client_port": self.client_address[1]}).encode()
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: object) -> None:
                return

        return Handler


def test_a_kept_connection_serves_each_request_with_nagle_off() -> None:
    # GIVEN a fake on the shared keep-alive handler
    with Probe() as probe:
        connection = http.client.HTTPConnection(probe.host, probe.port, timeout=5)
        # WHEN three requests are sent on one connection
        answers = []
        for _ in range(3):
            connection.request("GET", "/")
            response = connection.getresponse()
            answers.append((response.status, response.getheader("Connection"), json.loads(response.read())))
        connection.close()
    # THEN each is answered on the same connection, which was not asked to close, with Nagle off
    assert [status for status, _, _ in answers] == [200, 200, 200]
    assert {close for _, close, _ in answers} == {None}
    assert len({answer["client_port"] for _, _, answer in answers}) == 1
    assert all(answer["nodelay"] for _, _, answer in answers)


KEEP_ALIVE_FAKES = [FakePlaid, FakePave, FakeAdminApi, FakePaymentsService, FakeSegment, FakeUserService]


@pytest.mark.parametrize("fake", KEEP_ALIVE_FAKES, ids=lambda fake: fake.__name__)
def test_every_keep_alive_fake_serves_through_the_shared_handler(fake: type[HttpFake]) -> None:
    # GIVEN a fake whose real service keeps connections / WHEN its handler is built
    handler = fake().handler_class()
    # THEN it is the shared keep-alive handler (HTTP/1.1, Nagle off)
    assert issubclass(handler, KeepAliveHandler)
    assert handler.protocol_version == "HTTP/1.1"
    assert handler.disable_nagle_algorithm


def test_the_app_server_of_the_tests_and_the_benchmark_turns_nagle_off_too() -> None:
    # Chalice's local handler keeps connections (HTTP/1.1) and writes headers and body apart
    assert AppRequestHandler.protocol_version == "HTTP/1.1"
    assert AppRequestHandler.disable_nagle_algorithm


def test_the_identity_provider_closes_each_connection_so_nagle_cannot_stall_it() -> None:
    # The development identity provider answers HTTP/1.0: every answer ends its connection.
    handler = FakeAuth0().handler_class()
    assert handler.protocol_version == "HTTP/1.0"
