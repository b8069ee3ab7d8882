"""Segment tracker against the fake Tracking API: events, messageId dedupe, secrets, failures."""

from __future__ import annotations

import base64
import dataclasses
from datetime import UTC, datetime

import pytest

from chalicelib.errors import ValidationError
from chalicelib.peers import (
    PLAID_ITEM_ERRORED,
    PLAID_ITEM_REPAIRED,
    PeerConfig,
    SegmentError,
    SegmentTracker,
    derive_key,
    segment_from,
)
from ops.fakes.peers import FakePeers
from tests.peers.conftest import STALL_SECONDS, new_id


def message_id_for(event: str, item_id: str) -> str:
    return derive_key(event, item_id, new_id("webhook"))


def test_item_repaired_arrives_with_its_name_properties_and_message_id(
    peers: FakePeers, segment: SegmentTracker, user_id: str
) -> None:
    # GIVEN a LOGIN_REPAIRED webhook for an item
    item_id = new_id("item")
    message_id = message_id_for(PLAID_ITEM_REPAIRED, item_id)
    at = datetime(2024, 5, 1, 12, 30, tzinfo=UTC)

    # WHEN the tracker sends plaid_item_repaired
    sent = segment.item_repaired(user_id, item_id, message_id=message_id, institution_id="ins_3", timestamp=at)

    # THEN Segment received exactly that track call, authenticated with the write key
    assert sent == message_id
    [track] = peers.segment.tracks()
    assert track["type"] == "track"
    assert (track["event"], track["userId"], track["messageId"]) == (PLAID_ITEM_REPAIRED, user_id, message_id)
    assert track["properties"] == {"item_id": item_id, "institution_id": "ins_3"}
    assert track["timestamp"].startswith("2024-05-01T12:30:00")
    [request] = peers.segment.requests_to("POST", "/v1/batch")
    expected_auth = base64.b64encode(f"{peers.segment.write_key}:".encode()).decode()
    assert request.header("Authorization") == f"Basic {expected_auth}"
    assert request.header("Content-Encoding") == "gzip"


def test_item_errored_carries_the_error_code(peers: FakePeers, segment: SegmentTracker, user_id: str) -> None:
    # GIVEN an ERROR webhook whose item now has ITEM_LOGIN_REQUIRED
    item_id = new_id("item")

    # WHEN the tracker sends plaid_item_errored
    segment.item_errored(
        user_id, item_id, "ITEM_LOGIN_REQUIRED", message_id=message_id_for(PLAID_ITEM_ERRORED, item_id)
    )

    # THEN the event names the item and its error code, and nothing else
    [track] = peers.segment.tracks(PLAID_ITEM_ERRORED)
    assert track["properties"] == {"item_id": item_id, "error_code": "ITEM_LOGIN_REQUIRED"}
    assert peers.segment.tracks(PLAID_ITEM_REPAIRED) == []


def test_a_redelivered_event_is_deduplicated_by_message_id(
    peers: FakePeers, segment: SegmentTracker, user_id: str
) -> None:
    # GIVEN an event already sent for a webhook
    item_id = new_id("item")
    message_id = message_id_for(PLAID_ITEM_REPAIRED, item_id)
    segment.item_repaired(user_id, item_id, message_id=message_id)

    # WHEN the redelivered webhook sends it again with the same derived id
    segment.item_repaired(user_id, item_id, message_id=message_id)

    # THEN Segment received two messages but counts one event
    assert [m["messageId"] for m in peers.segment.messages] == [message_id, message_id]
    assert len(peers.segment.tracks()) == 1


@pytest.mark.parametrize(
    "properties",
    [
        {"item_id": "item-1", "access_token": "anything"},
        {"item_id": "item-1", "note": "token access-sandbox-1234abcd leaked"},
        {"item_id": "item-1", "nested": {"client_secret": "s"}},
    ],
    ids=["secret-named-key", "token-shaped-text", "nested-secret"],
)
def test_tokens_never_leave(
    peers: FakePeers, segment: SegmentTracker, user_id: str, properties: dict[str, object]
) -> None:
    # GIVEN properties that carry a token or a secret
    # WHEN the tracker is asked to send them
    with pytest.raises(ValidationError):
        segment.track(user_id, PLAID_ITEM_ERRORED, properties, message_id=new_id("m"))

    # THEN nothing reached Segment
    assert peers.segment.requests == []


def test_a_wrong_write_key_is_a_non_retryable_failure(peers: FakePeers, peer_config: PeerConfig, user_id: str) -> None:
    # GIVEN a tracker with a write key Segment does not accept
    tracker = segment_from(dataclasses.replace(peer_config, segment_write_key="wrong-key"))

    # WHEN it sends an event
    with pytest.raises(SegmentError) as raised:
        tracker.item_repaired(user_id, new_id("item"), message_id=new_id("m"))

    # THEN the 401 is not retryable and nothing was counted
    assert (raised.value.status, raised.value.retryable) == (401, False)
    assert peers.segment.tracks() == []


def test_a_gateway_error_is_retried_with_the_same_message(
    peers: FakePeers, segment: SegmentTracker, user_id: str
) -> None:
    # GIVEN Segment answers 503 once
    peers.segment.fail_next(1, status=503)
    item_id = new_id("item")
    message_id = message_id_for(PLAID_ITEM_REPAIRED, item_id)

    # WHEN the tracker sends an event
    segment.item_repaired(user_id, item_id, message_id=message_id)

    # THEN the second attempt delivered it, and both attempts carried the same id and timestamp
    attempts = [r.json["batch"][0] for r in peers.segment.requests]
    assert len(attempts) == 2
    assert {(a["messageId"], a["timestamp"]) for a in attempts} == {(message_id, attempts[0]["timestamp"])}
    assert len(peers.segment.tracks()) == 1


def test_a_server_error_is_retryable(peers: FakePeers, segment: SegmentTracker, user_id: str) -> None:
    # GIVEN Segment fails with 500
    peers.segment.fail_next(1, status=500)

    # WHEN the tracker sends an event
    with pytest.raises(SegmentError) as raised:
        segment.item_repaired(user_id, new_id("item"), message_id=new_id("m"))

    # THEN the failure is retryable (after one attempt: 500 is not a gateway answer)
    assert (raised.value.status, raised.value.retryable) == (500, True)
    assert len(peers.segment.requests) == 1


def test_a_timeout_is_retryable(peers: FakePeers, segment: SegmentTracker, user_id: str) -> None:
    # GIVEN Segment holds the request past the read timeout
    peers.segment.stall_next(1, seconds=STALL_SECONDS)

    # WHEN the tracker sends an event
    with pytest.raises(SegmentError) as raised:
        segment.item_repaired(user_id, new_id("item"), message_id=new_id("m"))

    # THEN it fails retryable, without a status
    assert (raised.value.status, raised.value.retryable) == (None, True)


def test_an_uncompressed_batch_is_accepted_too(peers: FakePeers, peer_config: PeerConfig, user_id: str) -> None:
    # GIVEN a tracker configured without gzip
    tracker = segment_from(dataclasses.replace(peer_config, segment_gzip=False))

    # WHEN it sends an event
    tracker.item_repaired(user_id, new_id("item"), message_id=new_id("m"))

    # THEN the plain JSON batch arrived
    [request] = peers.segment.requests
    assert request.header("Content-Encoding") is None
    assert len(peers.segment.tracks(PLAID_ITEM_REPAIRED)) == 1
