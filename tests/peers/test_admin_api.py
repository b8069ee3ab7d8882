"""Admin API client against the fake: notes added once per Idempotency-Key."""

from __future__ import annotations

import pytest

from chalicelib.peers import NOTE_SOURCE, AdminApiClient, AdminApiError, derive_key
from ops.fakes.peers import FakePeers
from tests.peers.conftest import STALL_SECONDS, new_id

REVOKED_TEXT = "Bank connection revoked by the user at Plaid (USER_PERMISSION_REVOKED)."


def note_key(user_id: str, item_id: str | None = None) -> str:
    return derive_key("admin_note.user_permission_revoked", user_id, item_id or new_id("item"))


def test_a_note_is_added_with_its_key(peers: FakePeers, admin_api: AdminApiClient, user_id: str) -> None:
    # GIVEN a key for "this item's permission was revoked"
    key = note_key(user_id)

    # WHEN the client adds the note
    note = admin_api.add_note(user_id, REVOKED_TEXT, idempotency_key=key)

    # THEN the Admin API stored it as sent, and the request carried the key and the token
    assert (note.user_id, note.text, note.source, note.replayed) == (user_id, REVOKED_TEXT, NOTE_SOURCE, False)
    assert note.note_id and note.created_at
    assert peers.admin_api.notes_for(user_id) == [
        {
            "note_id": note.note_id,
            "user_id": user_id,
            "text": REVOKED_TEXT,
            "source": NOTE_SOURCE,
            "created_at": note.created_at,
        }
    ]
    [request] = peers.admin_api.requests_to("POST", f"/v1/users/{user_id}/notes")
    assert request.header("Idempotency-Key") == key
    assert request.header("Authorization") == f"Bearer {peers.admin_api.token}"
    assert request.json == {"text": REVOKED_TEXT, "source": NOTE_SOURCE}


def test_the_same_key_adds_the_note_once(peers: FakePeers, admin_api: AdminApiClient, user_id: str) -> None:
    # GIVEN a note already added for a webhook
    key = note_key(user_id)
    first = admin_api.add_note(user_id, REVOKED_TEXT, idempotency_key=key)

    # WHEN the redelivered webhook adds it again with the same key
    second = admin_api.add_note(user_id, REVOKED_TEXT, idempotency_key=key)

    # THEN the Admin API answers the same note and holds only one
    assert second.replayed
    assert second.note_id == first.note_id
    assert len(peers.admin_api.notes_for(user_id)) == 1


def test_different_keys_add_different_notes(peers: FakePeers, admin_api: AdminApiClient, user_id: str) -> None:
    # GIVEN two items of the same user, each revoked
    # WHEN a note is added for each
    admin_api.add_note(user_id, REVOKED_TEXT, idempotency_key=note_key(user_id, "item-a"))
    admin_api.add_note(user_id, REVOKED_TEXT, idempotency_key=note_key(user_id, "item-b"))

    # THEN both are kept
    assert len(peers.admin_api.notes_for(user_id)) == 2


def test_reusing_a_key_for_another_note_is_refused(peers: FakePeers, admin_api: AdminApiClient, user_id: str) -> None:
    # GIVEN a key already used for one note
    key = note_key(user_id)
    admin_api.add_note(user_id, REVOKED_TEXT, idempotency_key=key)

    # WHEN a different text is sent with the same key
    with pytest.raises(AdminApiError) as raised:
        admin_api.add_note(user_id, "something else", idempotency_key=key)

    # THEN it is a non-retryable conflict and the first note stands alone
    assert (raised.value.status, raised.value.retryable) == (409, False)
    assert "IDEMPOTENCY_KEY_REUSED" in str(raised.value)
    assert [n["text"] for n in peers.admin_api.notes_for(user_id)] == [REVOKED_TEXT]


def test_an_unknown_user_is_a_non_retryable_failure(peers: FakePeers, admin_api: AdminApiClient, user_id: str) -> None:
    # GIVEN the Admin API does not know the user
    peers.admin_api.forget_user(user_id)

    # WHEN a note is added
    with pytest.raises(AdminApiError) as raised:
        admin_api.add_note(user_id, REVOKED_TEXT, idempotency_key=note_key(user_id))

    # THEN the 404 is a failure retrying will not fix
    assert (raised.value.status, raised.value.retryable) == (404, False)


def test_a_gateway_error_is_retried_with_the_same_key(
    peers: FakePeers, admin_api: AdminApiClient, user_id: str
) -> None:
    # GIVEN an Admin API that answers 502 once
    peers.admin_api.fail_next(1, status=502)
    key = note_key(user_id)

    # WHEN the note is added
    note = admin_api.add_note(user_id, REVOKED_TEXT, idempotency_key=key)

    # THEN the retry (safe: it carries the same key) added it, once
    requests = peers.admin_api.requests
    assert [r.header("Idempotency-Key") for r in requests] == [key, key]
    assert not note.replayed
    assert len(peers.admin_api.notes_for(user_id)) == 1


def test_a_server_error_is_retryable(peers: FakePeers, admin_api: AdminApiClient, user_id: str) -> None:
    # GIVEN an Admin API that fails with 500
    peers.admin_api.fail_next(1, status=500)

    # WHEN a note is added
    with pytest.raises(AdminApiError) as raised:
        admin_api.add_note(user_id, REVOKED_TEXT, idempotency_key=note_key(user_id))

    # THEN the failure is retryable and nothing was stored
    assert (raised.value.status, raised.value.retryable) == (500, True)
    assert peers.admin_api.notes_for(user_id) == []


def test_a_timed_out_note_is_not_duplicated_by_the_redelivery(
    peers: FakePeers, admin_api: AdminApiClient, user_id: str
) -> None:
    # GIVEN an Admin API that stores the note only after the client stopped waiting
    peers.admin_api.stall_next(1, seconds=STALL_SECONDS)
    key = note_key(user_id)

    # WHEN the call times out and the redelivered message adds the note again
    with pytest.raises(AdminApiError) as raised:
        admin_api.add_note(user_id, REVOKED_TEXT, idempotency_key=key)
    peers.admin_api.wait_idle()
    again = admin_api.add_note(user_id, REVOKED_TEXT, idempotency_key=key)

    # THEN the timeout was retryable and the user has exactly one note
    assert raised.value.retryable
    assert again.replayed
    assert len(peers.admin_api.notes_for(user_id)) == 1


@pytest.mark.parametrize(("text", "key"), [("", "k"), ("x" * 2001, "k"), ("ok", ""), ("ok", "k" * 256)])
def test_invalid_input_is_refused_before_any_call(
    peers: FakePeers, admin_api: AdminApiClient, user_id: str, text: str, key: str
) -> None:
    # GIVEN an empty or oversized text or key
    # WHEN a note is added
    with pytest.raises(ValueError, match="must be"):
        admin_api.add_note(user_id, text, idempotency_key=key)

    # THEN nothing reached the Admin API
    assert peers.admin_api.requests == []
