"""Payments Service client against the fake: deleting the stored bank account, idempotently."""

from __future__ import annotations

import pytest

from chalicelib.peers import PaymentsServiceClient, PaymentsServiceError
from ops.fakes.peers import FakePeers
from tests.peers.conftest import STALL_SECONDS


def test_a_stored_bank_account_is_deleted(peers: FakePeers, payments: PaymentsServiceClient, user_id: str) -> None:
    # GIVEN the Payments Service holds the user's bank account
    peers.payments.add_bank_account(user_id)

    # WHEN the client deletes it
    deleted = payments.delete_bank_account(user_id)

    # THEN it was deleted now, by an authenticated DELETE on the user's bank-account resource
    assert deleted is True
    assert not peers.payments.has_bank_account(user_id)
    [request] = peers.payments.requests
    assert (request.method, request.path) == ("DELETE", f"/v1/users/{user_id}/bank-account")
    assert request.header("Authorization") == f"Bearer {peers.payments.token}"


def test_deleting_twice_is_the_same_outcome(peers: FakePeers, payments: PaymentsServiceClient, user_id: str) -> None:
    # GIVEN a stored bank account that a first (redelivered) webhook already deleted
    peers.payments.add_bank_account(user_id)
    payments.delete_bank_account(user_id)

    # WHEN the same deletion is asked again
    deleted_again = payments.delete_bank_account(user_id)

    # THEN it succeeds without deleting anything more (404 = already gone)
    assert deleted_again is False
    assert peers.payments.deletions == [user_id]


def test_nothing_stored_is_success(peers: FakePeers, payments: PaymentsServiceClient, user_id: str) -> None:
    # GIVEN no stored bank account
    # WHEN the client deletes it
    # THEN it reports that nothing was deleted, without an error
    assert payments.delete_bank_account(user_id) is False
    assert peers.payments.deletions == []


def test_a_gateway_error_is_retried_because_delete_is_idempotent(
    peers: FakePeers, payments: PaymentsServiceClient, user_id: str
) -> None:
    # GIVEN a stored account and a Payments Service that answers 503 once
    peers.payments.add_bank_account(user_id)
    peers.payments.fail_next(1, status=503)

    # WHEN the client deletes the account
    deleted = payments.delete_bank_account(user_id)

    # THEN the second attempt deleted it
    assert deleted is True
    assert len(peers.payments.requests) == 2
    assert peers.payments.deletions == [user_id]


@pytest.mark.parametrize(("status", "retryable"), [(500, True), (429, True), (403, False), (400, False)])
def test_other_answers_are_typed_failures(
    peers: FakePeers, payments: PaymentsServiceClient, user_id: str, status: int, retryable: bool
) -> None:
    # GIVEN a Payments Service that answers ``status``
    peers.payments.add_bank_account(user_id)
    peers.payments.fail_next(1, status=status)

    # WHEN the client deletes the account
    with pytest.raises(PaymentsServiceError) as raised:
        payments.delete_bank_account(user_id)

    # THEN the error carries the status and whether a later retry may work; nothing was deleted
    assert (raised.value.status, raised.value.retryable) == (status, retryable)
    assert peers.payments.has_bank_account(user_id)


def test_a_timeout_is_retryable_and_the_retry_is_safe(
    peers: FakePeers, payments: PaymentsServiceClient, user_id: str
) -> None:
    # GIVEN a Payments Service that deletes the account only after the client stopped waiting
    peers.payments.add_bank_account(user_id)
    peers.payments.stall_next(1, seconds=STALL_SECONDS)

    # WHEN the client deletes the account, times out, and the message is redelivered
    with pytest.raises(PaymentsServiceError) as raised:
        payments.delete_bank_account(user_id)
    peers.payments.wait_idle()
    second = payments.delete_bank_account(user_id)

    # THEN the timeout was retryable and the redelivery found the work already done
    assert raised.value.retryable
    assert second is False
    assert peers.payments.deletions == [user_id]


def test_a_404_that_is_not_the_services_not_found_is_a_failure(peers: FakePeers, user_id: str) -> None:
    # GIVEN a stored account and a client whose base URL is wrong (404 ROUTE_NOT_FOUND)
    peers.payments.add_bank_account(user_id)
    client = PaymentsServiceClient(peers.payments.url + "/wrong-prefix", peers.payments.token)

    # WHEN it deletes the account
    with pytest.raises(PaymentsServiceError) as raised:
        client.delete_bank_account(user_id)

    # THEN it fails instead of reporting "already gone", and the account is still stored
    assert raised.value.status == 404
    assert peers.payments.has_bank_account(user_id)
