"""Pave client failures: typed errors, inline retries only where safe, 429 with Retry-After, no key in logs."""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from typing import Any

import pytest
import requests

from chalicelib.peers.pave import (
    Frequency,
    PaveClient,
    PaveError,
    PaveNotFoundError,
    PaveRateLimitedError,
    pave_from,
)
from chalicelib.peers.transport import retry_after_seconds
from ops.fakes.pave import FakePave
from ops.fakes.peers.server import Reply
from tests.pave.conftest import MAX_ATTEMPTS, READ_TIMEOUT, STALL_SECONDS, TODAY, txn


def _upload(client: PaveClient, user_id: str) -> Any:
    return client.upload_transactions(user_id, [txn(user_id, "t-1", 1000, TODAY)])


def test_a_gateway_error_on_a_poll_is_retried(pave: FakePave, client: PaveClient, user_id: str) -> None:
    # GIVEN an upload, and a Pave whose gateway answers the next poll 503
    receipt = _upload(client, user_id)
    pave.fail_next(1, status=503)

    # WHEN the request is polled
    status = client.request_status(user_id, receipt.request_id)

    # THEN the GET was tried again and answered
    assert status.is_processed
    assert [r.method for r in pave.requests] == ["POST", "GET", "GET"]


def test_a_gateway_error_on_an_upload_is_retried_with_the_same_key_and_uploads_once(
    pave: FakePave, client: PaveClient, user_id: str
) -> None:
    # GIVEN a Pave that answers the first upload attempt 502
    pave.fail_next(1, status=502)

    # WHEN transactions are uploaded
    receipt = _upload(client, user_id)

    # THEN the upload (idempotent: it carries a key) was retried with the same key, and Pave made one request
    first, second = pave.requests
    assert first.header("Idempotency-Key") == second.header("Idempotency-Key")
    assert [r["request_id"] for r in pave.requests_of(user_id)] == [receipt.request_id]


def test_a_post_without_an_idempotency_key_is_not_retried(pave: FakePave, client: PaveClient, user_id: str) -> None:
    # GIVEN a Pave that answers 503, and a POST that carries no key (not idempotent by contract)
    pave.fail_next(1, status=503)
    body = {"transactions": [], "removed": [{"transaction_id": "t-1"}]}

    # WHEN it is sent through the client's transport
    response = client.transport.send("POST", f"/users/{user_id}/transactions", json_body=body)

    # THEN it was tried once and the 503 returned: a blind retry could do the work twice
    assert response.status_code == 503
    assert len(pave.requests) == 1


@pytest.mark.parametrize("status", [500, 503])
def test_server_errors_are_retryable_and_a_500_is_not_retried_inline(
    pave: FakePave, client: PaveClient, user_id: str, status: int
) -> None:
    # GIVEN a Pave that keeps failing with a server error
    pave.fail_next(MAX_ATTEMPTS, status=status)

    # WHEN the insights are read
    with pytest.raises(PaveError) as raised:
        client.insights(user_id)

    # THEN the failure is retryable; only the gateway statuses were tried again inside the call
    assert (raised.value.status, raised.value.retryable) == (status, True)
    assert len(pave.requests) == (1 if status == 500 else MAX_ATTEMPTS)


def test_a_short_retry_after_is_waited_out_inside_the_call(pave: FakePave, client: PaveClient, user_id: str) -> None:
    # GIVEN a Pave that rate-limits the next poll for 0.05 s
    receipt = _upload(client, user_id)
    pave.rate_limit_next(1, retry_after=0.05)

    # WHEN the request is polled
    status = client.request_status(user_id, receipt.request_id)

    # THEN the client waited and asked again
    assert status.is_processed
    assert len(pave.requests_to("GET", pave.requests[-1].path)) == 2


def test_a_long_retry_after_raises_at_once_with_the_wait(pave: FakePave, client: PaveClient, user_id: str) -> None:
    # GIVEN a Pave that asks for 30 seconds of quiet
    pave.rate_limit_next(1, retry_after=30)

    # WHEN transactions are uploaded
    with pytest.raises(PaveRateLimitedError) as raised:
        _upload(client, user_id)

    # THEN the caller learns how long to wait (to delay its message), and nothing was retried
    assert (raised.value.status, raised.value.retryable, raised.value.retry_after) == (429, True, 30.0)
    assert len(pave.requests) == 1


def test_a_429_without_retry_after_is_retryable_and_not_waited(
    pave: FakePave, client: PaveClient, user_id: str
) -> None:
    # GIVEN a Pave that rate-limits without saying for how long
    pave.rate_limit_next(1, retry_after=None)

    # WHEN the score is read
    with pytest.raises(PaveRateLimitedError) as raised:
        client.cash_advance_score(user_id)

    # THEN it is retryable with no wait known
    assert (raised.value.retryable, raised.value.retry_after) == (True, None)
    assert "Too Many Requests" in str(raised.value)


def test_retry_after_is_read_as_seconds_or_as_an_http_date() -> None:
    # GIVEN Retry-After as delta-seconds, as an HTTP date 20 s ahead, in the past, and garbled
    now = datetime(2024, 6, 14, 12, 0, tzinfo=UTC)

    def header(value: str) -> requests.Response:
        response = requests.Response()
        response.headers["Retry-After"] = value
        return response

    # WHEN each is read / THEN seconds come back, never negative, None when unreadable
    assert retry_after_seconds(header("7"), now) == 7.0
    assert retry_after_seconds(header(format_datetime(now + timedelta(seconds=20), usegmt=True)), now) == 20.0
    assert retry_after_seconds(header(format_datetime(now - timedelta(seconds=5), usegmt=True)), now) == 0.0
    assert retry_after_seconds(header("soon"), now) is None
    assert retry_after_seconds(requests.Response(), now) is None


def test_a_slow_pave_times_out_as_a_retryable_error_without_an_inline_retry(own_pave: FakePave, user_id: str) -> None:
    # GIVEN a Pave that holds the next request past the client's read timeout
    pave = own_pave
    client = pave_from(pave.config(read_timeout_seconds=READ_TIMEOUT, backoff_seconds=0.01))
    pave.stall_next(1, seconds=STALL_SECONDS)

    # WHEN the insights are read
    with pytest.raises(PaveError) as raised:
        client.insights(user_id)

    # THEN it is a retryable timeout, tried once (the read budget is spent; redelivery retries)
    assert raised.value.retryable
    assert raised.value.status is None
    assert "timed out" in str(raised.value)
    assert len(pave.requests) == 1


def test_an_unreachable_pave_is_retryable(own_pave: FakePave, user_id: str) -> None:
    # GIVEN a client aimed at a Pave that has gone away
    client = pave_from(own_pave.config(backoff_seconds=0.01, max_attempts=2))
    own_pave.stop()

    # WHEN a request is polled
    with pytest.raises(PaveError) as raised:
        client.request_status(user_id, "req_1")

    # THEN the connection failure is retryable
    assert raised.value.retryable
    assert "could not connect" in str(raised.value)


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        (Reply(200, raw=b"<html>maintenance</html>"), "not JSON"),
        (Reply(200, {"user_id": "x"}), "user_id differs"),
        (Reply(200, {"recurring_expenditures": "none"}), "fields missing or mistyped"),
        (Reply(200, {"user_id": "USER", "recurring_expenditures": [{"merchant_uuid": "m"}]}), "stream incomplete"),
        (
            Reply(200, {"user_id": "USER", "income": {"monthly_income": "a lot"}}),
            "amount not a number",
        ),
    ],
)
def test_a_malformed_answer_is_a_non_retryable_error(
    pave: FakePave, client: PaveClient, user_id: str, reply: Reply, reason: str
) -> None:
    # GIVEN a Pave answering 200 with a body that breaks the contract
    body = reply.body
    if isinstance(body, dict) and body.get("user_id") == "USER":
        reply = Reply(200, {**body, "user_id": user_id})
    pave.reply_next(reply)

    # WHEN the insights are read
    with pytest.raises(PaveError) as raised:
        client.insights(user_id)

    # THEN the error says so and retrying would not help
    assert "malformed" in str(raised.value), reason
    assert (raised.value.status, raised.value.retryable) == (200, False)


@pytest.mark.parametrize("request_id", ["req#1", "x" * 129, ""])
def test_an_unusable_request_id_from_pave_is_malformed(
    pave: FakePave, client: PaveClient, user_id: str, request_id: str
) -> None:
    # GIVEN a Pave that answers an upload with a request id unfit for a key
    pave.reply_next(Reply(202, {"request_id": request_id, "status": "pending"}))

    # WHEN transactions are uploaded
    with pytest.raises(PaveError) as raised:
        _upload(client, user_id)

    # THEN it is refused as malformed
    assert "malformed" in str(raised.value)
    assert not raised.value.retryable


def test_unknown_users_and_requests_are_not_found(pave: FakePave, client: PaveClient, user_id: str) -> None:
    # GIVEN a user who never uploaded anything
    # WHEN their insights, score and a request are asked for
    for call, what in (
        (lambda: client.insights(user_id), "user"),
        (lambda: client.cash_advance_score(user_id), "user"),
        (lambda: client.request_status(user_id, "req_unknown"), "request"),
    ):
        with pytest.raises(PaveNotFoundError) as raised:
            call()

        # THEN each is a non-retryable not-found naming what is missing
        assert (raised.value.what, raised.value.status, raised.value.retryable) == (what, 404, False)


def test_a_404_without_paves_code_is_a_failure_not_a_missing_user(pave: FakePave, user_id: str) -> None:
    # GIVEN a client aimed at the wrong path (no /v1)
    client = pave_from(pave.config(base_url=pave.url))

    # WHEN the insights are read
    with pytest.raises(PaveError) as raised:
        client.insights(user_id)

    # THEN it fails loudly rather than look like "no data yet"
    assert not isinstance(raised.value, PaveNotFoundError)
    assert (raised.value.status, raised.value.retryable) == (404, False)
    assert "ROUTE_NOT_FOUND" in str(raised.value)


def test_a_wrong_api_key_is_refused_and_not_retryable(pave: FakePave, user_id: str) -> None:
    # GIVEN a client with a key Pave does not know
    client = pave_from(pave.config(api_key="not-the-key"))

    # WHEN transactions are uploaded
    with pytest.raises(PaveError) as raised:
        _upload(client, user_id)

    # THEN it is an authorization failure retrying cannot fix
    assert (raised.value.status, raised.value.retryable) == (401, False)


def test_the_key_header_is_configurable(user_id: str) -> None:
    # GIVEN a Pave that takes the key as a bearer token
    with FakePave(api_key="k-123", api_key_header="Authorization") as pave:
        client = pave_from(pave.config())

        # WHEN transactions are uploaded
        _upload(client, user_id)

        # THEN the key went as "Authorization: Bearer", and no X-API-Key was sent
        [request] = pave.requests
        assert request.header("Authorization") == "Bearer k-123"
        assert request.header("X-API-Key") is None


def test_an_unknown_frequency_is_reported_not_fatal(pave: FakePave, client: PaveClient, user_id: str) -> None:
    # GIVEN an answer with a cadence this service does not know, an annual bill and negative amounts
    stream = {
        "merchant_uuid": "m-1",
        "normalized_merchant_name": "Gym",
        "normalized_frequency": "fortnightly-ish",
        "avg_amount": 39.999,
        "next_date": "2024-07-01",
    }
    annual = {**stream, "merchant_uuid": "m-2", "normalized_frequency": "annual", "avg_amount": -99.5}
    pave.reply_next(Reply(200, {"user_id": user_id, "recurring_expenditures": [stream, annual]}))

    # WHEN the insights are read
    insights = client.insights(user_id)

    # THEN the stream is kept as UNKNOWN with its raw value; amounts are positive cents, half-even
    gym, yearly = insights.recurring
    assert (gym.frequency, gym.frequency_raw, gym.amount) == (Frequency.UNKNOWN, "fortnightly-ish", 4000)
    assert (yearly.frequency, yearly.amount) == (Frequency.ANNUALLY, 9950)
    assert insights.income.next_payday is None and insights.rituals == ()


def test_no_api_key_reaches_the_logs(
    pave: FakePave, client: PaveClient, user_id: str, service_logs: list[logging.LogRecord]
) -> None:
    # GIVEN failures of every kind: retried 503s, a 429, an auth failure, a malformed answer, a not-found
    pave.fail_next(MAX_ATTEMPTS, status=503)
    with pytest.raises(PaveError):
        client.insights(user_id)
    pave.rate_limit_next(1, retry_after=60)
    with pytest.raises(PaveRateLimitedError):
        _upload(client, user_id)
    with pytest.raises(PaveError):
        pave_from(pave.config(api_key="wrong-secret-key")).insights(user_id)
    pave.reply_next(Reply(200, raw=b"nope"))
    with pytest.raises(PaveError):
        client.cash_advance_score(user_id)
    with pytest.raises(PaveNotFoundError):
        client.insights(user_id)

    # WHEN the service's log records are read in full
    text = " ".join(f"{r.getMessage()} {r.__dict__}" for r in service_logs)

    # THEN each failure was logged, and neither key appears anywhere
    assert text.count("peer call failed") >= 5
    assert pave.api_key not in text
    assert "wrong-secret-key" not in text
