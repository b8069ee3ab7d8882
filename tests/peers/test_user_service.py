"""User Service client against the fake over HTTP: users, statuses, not-found vs failure, retries."""

from __future__ import annotations

import pytest

from chalicelib.peers import UserNotFoundError, UserServiceClient, UserServiceError, UserStatus
from ops.fakes.peers import FakePeers, Reply
from tests.peers.conftest import MAX_ATTEMPTS, STALL_SECONDS


def test_an_active_user_is_returned_with_their_fields(
    peers: FakePeers, user_service: UserServiceClient, user_id: str
) -> None:
    # GIVEN an ACTIVE user with an email
    peers.user_service.add_user(user_id, "ACTIVE", email="someone@example.com")

    # WHEN the client asks for them
    user = user_service.get_user(user_id)

    # THEN the user comes back active, and the call carried the service token
    assert (user.user_id, user.status, user.email, user.is_active) == (
        user_id,
        UserStatus.ACTIVE,
        "someone@example.com",
        True,
    )
    assert user.created_at
    assert "someone@example.com" not in repr(user)
    [request] = peers.user_service.requests_to("GET", f"/v1/users/{user_id}")
    assert request.header("Authorization") == f"Bearer {peers.user_service.token}"
    assert request.header("X-Request-Id")


@pytest.mark.parametrize("status", ["PENDING", "SUSPENDED", "CLOSED", "DELETED"])
def test_every_other_known_status_is_not_active(
    peers: FakePeers, user_service: UserServiceClient, user_id: str, status: str
) -> None:
    # GIVEN a user in a non-active state
    peers.user_service.add_user(user_id, status)

    # WHEN the client asks for them
    user = user_service.get_user(user_id)

    # THEN the status is parsed and the user is not active
    assert user.status == UserStatus(status)
    assert not user.is_active


def test_an_unknown_status_is_kept_but_not_active(
    peers: FakePeers, user_service: UserServiceClient, user_id: str
) -> None:
    # GIVEN the User Service reports a status this service does not know
    peers.user_service.add_user(user_id, "FROZEN_FOR_REVIEW")

    # WHEN the client asks for the user
    user = user_service.get_user(user_id)

    # THEN it is UNKNOWN (not active), with the raw status kept for logs
    assert (user.status, user.raw_status, user.is_active) == (UserStatus.UNKNOWN, "FROZEN_FOR_REVIEW", False)


def test_a_missing_user_is_not_found_and_not_a_service_failure(
    peers: FakePeers, user_service: UserServiceClient, user_id: str
) -> None:
    # GIVEN no such user
    # WHEN the client asks for them
    with pytest.raises(UserNotFoundError) as raised:
        user_service.get_user(user_id)

    # THEN the error is the distinct not-found type, never retryable, asked exactly once
    assert not isinstance(raised.value, UserServiceError)
    assert (raised.value.user_id, raised.value.status, raised.value.retryable) == (user_id, 404, False)
    assert len(peers.user_service.requests) == 1


def test_user_ids_are_escaped_in_the_path(peers: FakePeers, user_service: UserServiceClient) -> None:
    # GIVEN a user id with characters that mean something in a URL
    odd_id = "auth0|abc/def?x=1"
    peers.user_service.add_user(odd_id)

    # WHEN the client asks for them
    user = user_service.get_user(odd_id)

    # THEN the fake saw one escaped path segment and found the user
    assert user.user_id == odd_id
    assert peers.user_service.requests[0].path == "/v1/users/auth0%7Cabc%2Fdef%3Fx%3D1"


def test_a_server_error_is_a_retryable_failure_without_an_inline_retry(
    peers: FakePeers, user_service: UserServiceClient, user_id: str
) -> None:
    # GIVEN an existing user and a User Service that fails the next call with 500
    peers.user_service.add_user(user_id)
    peers.user_service.fail_next(1, status=500)

    # WHEN the client asks for the user
    with pytest.raises(UserServiceError) as raised:
        user_service.get_user(user_id)

    # THEN it is a retryable UserServiceError (500 is not a gateway answer, so no inline retry)
    assert (raised.value.status, raised.value.retryable) == (500, True)
    assert len(peers.user_service.requests) == 1


def test_gateway_errors_are_retried_within_the_call(
    peers: FakePeers, user_service: UserServiceClient, user_id: str
) -> None:
    # GIVEN a User Service behind a gateway that answers 502 then 503 before recovering
    peers.user_service.add_user(user_id)
    peers.user_service.fail_next(1, status=502)
    peers.user_service.fail_next(1, status=503)

    # WHEN the client asks for the user
    user = user_service.get_user(user_id)

    # THEN the third attempt succeeds
    assert user.is_active
    assert len(peers.user_service.requests) == 3


def test_gateway_errors_stop_after_the_attempt_budget(
    peers: FakePeers, user_service: UserServiceClient, user_id: str
) -> None:
    # GIVEN a User Service that keeps answering 504
    peers.user_service.add_user(user_id)
    peers.user_service.fail_next(MAX_ATTEMPTS + 5, status=504)

    # WHEN the client asks for the user
    with pytest.raises(UserServiceError) as raised:
        user_service.get_user(user_id)

    # THEN it gives up after exactly the budget, with a retryable error
    assert (raised.value.status, raised.value.retryable) == (504, True)
    assert len(peers.user_service.requests) == MAX_ATTEMPTS


def test_a_read_timeout_is_retryable_and_not_retried_inline(
    peers: FakePeers, user_service: UserServiceClient, user_id: str
) -> None:
    # GIVEN a User Service that holds the next request past the client's read timeout
    peers.user_service.add_user(user_id)
    peers.user_service.stall_next(1, seconds=STALL_SECONDS)

    # WHEN the client asks for the user
    with pytest.raises(UserServiceError) as raised:
        user_service.get_user(user_id)

    # THEN it fails retryable with no status, after one attempt (a timeout spent its budget)
    assert (raised.value.status, raised.value.retryable) == (None, True)
    assert "timed out" in str(raised.value)
    assert len(peers.user_service.requests) == 1


def test_an_unreachable_service_is_retryable(peers: FakePeers, user_service: UserServiceClient, user_id: str) -> None:
    # GIVEN the User Service is down (nothing listens on its port any more)
    peers.user_service.stop()

    # WHEN the client asks for a user
    with pytest.raises(UserServiceError) as raised:
        user_service.get_user(user_id)

    # THEN the failure is retryable
    assert raised.value.retryable
    assert "could not connect" in str(raised.value)


def test_a_wrong_token_is_a_failure_that_retrying_will_not_fix(peers: FakePeers, user_id: str) -> None:
    # GIVEN a client configured with a token the User Service does not accept
    peers.user_service.add_user(user_id)
    client = UserServiceClient(peers.user_service.url, "not-the-token")

    # WHEN it asks for the user
    with pytest.raises(UserServiceError) as raised:
        client.get_user(user_id)

    # THEN it is a non-retryable 401 that names the error code, not the token
    assert (raised.value.status, raised.value.retryable) == (401, False)
    assert "UNAUTHORIZED" in str(raised.value)
    assert "not-the-token" not in str(raised.value)


@pytest.mark.parametrize(
    "reply",
    [
        Reply(200, raw=b"<html>gateway</html>"),
        Reply(200, {"user_id": "someone"}),
        Reply(200, ["not", "an", "object"]),
    ],
    ids=["not-json", "no-status", "not-an-object"],
)
def test_a_malformed_answer_is_a_non_retryable_failure(
    peers: FakePeers, user_service: UserServiceClient, user_id: str, reply: Reply
) -> None:
    # GIVEN a User Service that answers 200 with something outside the contract
    peers.user_service.reply_next(reply)

    # WHEN the client asks for a user
    with pytest.raises(UserServiceError) as raised:
        user_service.get_user(user_id)

    # THEN it is a UserServiceError that says so, not retryable
    assert "malformed" in str(raised.value)
    assert not raised.value.retryable


def test_an_answer_about_another_user_is_rejected(
    peers: FakePeers, user_service: UserServiceClient, user_id: str
) -> None:
    # GIVEN a User Service that answers with a different user's record
    peers.user_service.reply_next(Reply(200, {"user_id": "someone-else", "status": "ACTIVE"}))

    # WHEN the client asks for this user
    with pytest.raises(UserServiceError) as raised:
        user_service.get_user(user_id)

    # THEN the answer is refused rather than trusted
    assert "differs" in str(raised.value)


def test_a_404_that_is_not_the_services_not_found_is_a_failure(peers: FakePeers, user_id: str) -> None:
    # GIVEN a client whose base URL is wrong (the server answers 404 ROUTE_NOT_FOUND for every path)
    peers.user_service.add_user(user_id)
    client = UserServiceClient(peers.user_service.url + "/wrong-prefix", peers.user_service.token)

    # WHEN it asks for an existing user
    with pytest.raises(UserServiceError) as raised:
        client.get_user(user_id)

    # THEN it is a failure (so the message is retried and reaches the DLQ), never "user not found"
    assert (raised.value.status, raised.value.retryable) == (404, False)
    assert "ROUTE_NOT_FOUND" in str(raised.value)
