"""The local AWS server keeps a client's connection open between requests (ops/keep_alive.py)."""

from __future__ import annotations

import http.client
import json
import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from werkzeug.serving import BaseWSGIServer, make_server
from werkzeug.wrappers import Request

from ops.moto_server import QuietRequestHandler

Environ = dict[str, Any]


def echo_app(environ: Environ, start_response: Callable[..., Any]) -> list[bytes]:
    """Answers with the request's method, body and client port (one port = one connection)."""
    if environ["PATH_INFO"] == "/boom":
        raise RuntimeError("the application failed")
    body = Request(environ).get_data()  # as moto reads it: the stated length, or a chunked body to its end
    answer = json.dumps({"method": environ["REQUEST_METHOD"], "body": body.decode(), "port": environ["REMOTE_PORT"]})
    start_response("200 OK", [("Content-Type", "application/json"), ("Content-Length", str(len(answer)))])
    return [answer.encode()]


@pytest.fixture
def server() -> Iterator[BaseWSGIServer]:
    # GIVEN the local AWS server's request handler serving a small application
    served = make_server("127.0.0.1", 0, echo_app, threaded=True, request_handler=QuietRequestHandler)
    thread = threading.Thread(target=served.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield served
    served.shutdown()
    served.server_close()


def connect(server: BaseWSGIServer) -> http.client.HTTPConnection:
    return http.client.HTTPConnection("127.0.0.1", server.server_port, timeout=5)


def ask(
    connection: http.client.HTTPConnection, method: str, path: str = "/", body: bytes | None = None, **headers: str
) -> tuple[http.client.HTTPResponse, bytes]:
    connection.request(method, path, body=body, headers=headers)
    response = connection.getresponse()
    return response, response.read()


def test_requests_with_bodies_share_one_connection_and_each_gets_its_own_body(server: BaseWSGIServer) -> None:
    # WHEN three requests, two with bodies, are sent one after another on one connection
    connection = connect(server)
    answers = [
        ask(connection, "POST", body=b'{"first": 1}'),
        ask(connection, "GET"),
        ask(connection, "POST", body=b"second"),
    ]
    # THEN each is answered with its own body, stating its length, on the same connection
    bodies = [json.loads(data) for _, data in answers]
    assert [(b["method"], b["body"]) for b in bodies] == [("POST", '{"first": 1}'), ("GET", ""), ("POST", "second")]
    assert len({b["port"] for b in bodies}) == 1
    assert all(response.getheader("Connection") is None for response, _ in answers)
    assert all(int(response.getheader("Content-Length")) == len(data) for response, data in answers)


def test_a_client_asking_to_close_gets_its_answer_and_a_closed_connection(server: BaseWSGIServer) -> None:
    connection = connect(server)
    response, data = ask(connection, "POST", body=b"last", Connection="close")
    assert json.loads(data)["body"] == "last"
    assert response.getheader("Connection") == "close"
    assert response.will_close


def test_a_chunked_body_is_served_by_werkzeug_which_then_closes(server: BaseWSGIServer) -> None:
    # WHEN a body of unstated length arrives
    connection = connect(server)
    connection.putrequest("POST", "/")
    connection.putheader("Transfer-Encoding", "chunked")
    connection.endheaders()
    connection.send(b"5\r\nhello\r\n0\r\n\r\n")
    response = connection.getresponse()
    # THEN it is read whole, and the connection is not kept (its end could not be told in advance)
    assert json.loads(response.read())["body"] == "hello"
    assert response.getheader("Connection") == "close"


def test_an_application_error_is_a_500_and_closes_the_connection(server: BaseWSGIServer) -> None:
    connection = connect(server)
    response, _ = ask(connection, "GET", "/boom")
    assert response.status == 500
    assert response.will_close


def test_a_head_answer_has_the_length_a_get_would_have_and_no_body(server: BaseWSGIServer) -> None:
    connection = connect(server)
    response, data = ask(connection, "HEAD")
    assert data == b""
    assert int(response.getheader("Content-Length")) > 0
    # AND the connection still serves the next request
    _, after = ask(connection, "GET")
    assert json.loads(after)["method"] == "GET"


def test_the_session_server_answers_aws_calls_on_one_connection(aws_endpoint: str) -> None:
    # GIVEN a connection to the session's local AWS (moto behind this handler)
    host, port = aws_endpoint.removeprefix("http://").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=5)
    headers = {
        "Content-Type": "application/x-amz-json-1.0",
        "X-Amz-Target": "DynamoDB_20120810.ListTables",
        "Authorization": "AWS4-HMAC-SHA256 Credential=test/20260101/us-east-1/dynamodb/aws4_request, "
        "SignedHeaders=host, Signature=0",
    }
    # WHEN two calls are made one after the other
    first, first_body = ask(connection, "POST", body=b"{}", **headers)
    socket = connection.sock
    second, second_body = ask(connection, "POST", body=b"{}", **headers)
    # THEN both are answered, and the second went over the first one's socket
    assert (first.status, second.status) == (200, 200)
    assert "TableNames" in json.loads(first_body) and "TableNames" in json.loads(second_body)
    assert not first.will_close and connection.sock is socket
