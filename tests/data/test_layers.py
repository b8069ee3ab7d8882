"""LAYER stubs: 7-day ttl, owner-bound writes, consumption that never loses an entry."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from chalicelib.data.layers import (
    LayerStub,
    LayerStubEntry,
    LayerStubOwnerError,
    consume_layer_stub,
    delete_layer_stub,
    get_layer_stub,
    layer_item,
    put_layer_stub,
)
from chalicelib.data.ttl import epoch
from tests.conftest import new_id


def a_stub(user_id: str, *item_ids: str, token: str | None = None) -> LayerStub:
    ids = item_ids or ("item-a", "item-b")
    entries = tuple(LayerStubEntry(i, f"access-sandbox-{i}") for i in ids)
    return LayerStub(public_token=token or new_id("public-sandbox"), user_id=user_id, items=entries)


def test_row_shape_and_ttl() -> None:
    # GIVEN a stub with two items
    now = datetime(2025, 1, 1, tzinfo=UTC)
    stub = a_stub("u1", token="public-sandbox-1")

    # WHEN its row is built
    row = layer_item(stub, now)

    # THEN it is keyed on the public token and lives 7 days
    assert row["PK"] == "LAYER#public-sandbox-1"
    assert row["SK"] == "TOKEN"
    assert row["type"] == "LAYER"
    assert row["items"] == [
        {"item_id": "item-a", "access_token": "access-sandbox-item-a"},
        {"item_id": "item-b", "access_token": "access-sandbox-item-b"},
    ]
    assert row["ttl"] == epoch(now + timedelta(days=7))


def test_tokens_stay_out_of_repr() -> None:
    assert "access-sandbox" not in repr(a_stub("u1", token="public-sandbox-x"))
    assert "public-sandbox-x" not in repr(a_stub("u1", token="public-sandbox-x"))


@pytest.mark.integration
def test_put_get_delete(ddb: str, user_id: str) -> None:
    # GIVEN a stored stub
    stub = a_stub(user_id)
    put_layer_stub(stub, datetime.now(UTC))

    # WHEN it is read, and read again after deletion
    found = get_layer_stub(stub.public_token)
    delete_layer_stub(stub.public_token)

    # THEN it came back whole, and is gone after
    assert found is not None
    assert (found.user_id, found.items) == (user_id, stub.items)
    assert get_layer_stub(stub.public_token) is None


@pytest.mark.integration
def test_expired_stub_reads_as_absent(ddb: str, user_id: str) -> None:
    # GIVEN a stub written 8 days ago (the reaper has not run)
    stub = a_stub(user_id)
    put_layer_stub(stub, datetime.now(UTC) - timedelta(days=8))

    # THEN it is not offered for item creation
    assert get_layer_stub(stub.public_token) is None


@pytest.mark.integration
def test_another_user_cannot_overwrite_or_consume(ddb: str, user_id: str) -> None:
    # GIVEN a stub of one user
    stub = a_stub(user_id)
    put_layer_stub(stub, datetime.now(UTC))

    # WHEN another user writes or consumes the same public token
    # THEN both are refused and the stub is unchanged
    with pytest.raises(LayerStubOwnerError):
        put_layer_stub(LayerStub(stub.public_token, "someone-else", stub.items), datetime.now(UTC))
    with pytest.raises(LayerStubOwnerError):
        consume_layer_stub(stub.public_token, "someone-else", ["item-a"])
    found = get_layer_stub(stub.public_token)
    assert found is not None
    assert found.items == stub.items
    # and the owner may rewrite it (an API retry)
    put_layer_stub(stub, datetime.now(UTC))


@pytest.mark.integration
def test_consume_keeps_uncreated_entries_then_deletes(ddb: str, user_id: str) -> None:
    # GIVEN a stub of two items
    stub = a_stub(user_id, "item-a", "item-b")
    put_layer_stub(stub, datetime.now(UTC))

    # WHEN only item-a became an ITEM row
    left = consume_layer_stub(stub.public_token, user_id, ["item-a"])

    # THEN item-b stays on the stub for the feeder to revoke at expiry
    assert [e.item_id for e in left] == ["item-b"]
    found = get_layer_stub(stub.public_token)
    assert found is not None
    assert [e.item_id for e in found.items] == ["item-b"]

    # WHEN item-b is created too, and the consume is redelivered
    assert consume_layer_stub(stub.public_token, user_id, ["item-a", "item-b"]) == ()
    assert consume_layer_stub(stub.public_token, user_id, ["item-a", "item-b"]) == ()

    # THEN the stub is gone
    assert get_layer_stub(stub.public_token) is None
