"""Item removal under at-least-once delivery: every path, a failure after each step, then redelivery.

Each of the four removal paths (the API, ``USER_PERMISSION_REVOKED``, TTL expiry, the
re-link rule) is driven through its own entry point, once cleanly and once with a failure
injected at one step boundary (the fakes' error injection, or a botocore hook on the one
client factory), then delivered again. The final state must be the clean run's: the same
rows, and the same peer calls and events once duplicates are dropped by their idempotency
key or event id.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import pytest
from boto3.dynamodb.types import TypeSerializer

from chalicelib.api import item_changes
from chalicelib.data import account_changes, items, keys, tables, webhook_info
from chalicelib.data.ttl import epoch, iso_timestamp, utcnow
from chalicelib.errors import ServiceError
from chalicelib.pipeline import feeder, miner, relink
from chalicelib.pipeline.messages import WebhookMessage
from chalicelib.settings import get_settings
from ops.fakes.peers import FakePeers
from ops.fakes.plaid import FakeItem, FakePlaid, webhooks
from tests.conftest import Capture
from tests.factories import uid
from tests.faults import aws_fault, item_type_is, table_is
from tests.stack import link_item

pytestmark = pytest.mark.integration

TTL_IDENTITY = {"type": "Service", "principalId": "dynamodb.amazonaws.com"}


@dataclass
class Case:
    """One removal to run: the item it removes and how to deliver it."""

    user_id: str
    fake: FakeItem
    now: datetime
    deliver: Callable[[], None]
    #: Ids the final state names by role rather than by value.
    roles: dict[str, str] = field(default_factory=dict)
    #: The row is gone (TTL) and is written back rather than updated.
    written_back: bool = False


class DeliveryFailedError(Exception):
    """The handler reported the delivery failed (a stream consumer's batch item failure)."""


# --- the four paths ---------------------------------------------------------------------


def linked_item(plaid: FakePlaid, peers: FakePeers, user_id: str, **options: Any) -> FakeItem:
    peers.user_service.add_user(user_id)
    return link_item(plaid, user_id, transaction_count=1, loans=False, **options)


def api_case(plaid: FakePlaid, peers: FakePeers, user_id: str) -> Case:
    fake = linked_item(plaid, peers, user_id)
    now = utcnow()

    def deliver() -> None:  # a forced removal by support, retried by the client
        item_changes.remove_item(user_id, fake.item_id, "MX", is_override=True, now=now)

    return Case(user_id, fake, now, deliver)


def revoke_webhook_case(plaid: FakePlaid, peers: FakePeers, user_id: str) -> Case:
    fake = linked_item(plaid, peers, user_id)
    now = utcnow()
    message = WebhookMessage(
        uid("msg"), "PLAID", iso_timestamp(now), webhooks.item_event(fake.item_id, "USER_PERMISSION_REVOKED")
    )

    def deliver() -> None:  # the same queue message, redelivered by SQS
        miner.route_webhook(message, now)

    return Case(user_id, fake, now, deliver)


def expiry_case(plaid: FakePlaid, peers: FakePeers, user_id: str) -> Case:
    # A reactivation item whose ttl passed: TTL deletes the row, the stream delivers the old image.
    fake = plaid.create_item(transaction_count=1, loans=False)
    now = utcnow()
    item = items.Item(
        user_id,
        fake.item_id,
        fake.access_token,
        institution_id=fake.institution_id,
        main_account_id=fake.roles()["checking"],
        ttl=epoch(now) - 60,
    )
    assert items.create_item(item, now)
    key = keys.item_key(user_id, fake.item_id)
    old = tables.plaid().delete_item(Key=key, ReturnValues="ALL_OLD")["Attributes"]
    serializer = TypeSerializer()
    record = {
        "eventName": "REMOVE",
        "userIdentity": TTL_IDENTITY,
        "dynamodb": {
            "SequenceNumber": "1",
            "Keys": {},
            "OldImage": {k: serializer.serialize(v) for k, v in old.items()},
        },
    }

    def deliver() -> None:  # the same stream record, retried by Lambda
        if feeder.handle_plaid_stream({"Records": [record]}, now=now)["batchItemFailures"]:
            raise DeliveryFailedError("the feeder reported the record failed")

    return Case(user_id, fake, now, deliver, written_back=True)


def relink_case(plaid: FakePlaid, peers: FakePeers, user_id: str) -> Case:
    # The older item of a login the user just linked again; the rule runs until it succeeds.
    old = linked_item(plaid, peers, user_id)
    new = plaid.link_again(old, transaction_count=1)
    link_item_row(new, user_id)
    new_item = items.get_item(user_id, new.item_id)
    assert new_item is not None
    now = utcnow()

    def deliver() -> None:
        relink.retire_older_logins(new_item, is_override=False, now=now)

    return Case(user_id, old, now, deliver, roles={new.item_id: "<new item>"})


def link_item_row(fake: FakeItem, user_id: str) -> None:
    accounts = items.link_accounts_from(list(fake.accounts.values()))
    item = items.Item(
        user_id, fake.item_id, fake.access_token, institution_id=fake.institution_id, link_accounts=accounts
    )
    assert items.create_item(item, utcnow())


PATHS: dict[str, Callable[[FakePlaid, FakePeers, str], Case]] = {
    "api": api_case,
    "user_permission_revoked": revoke_webhook_case,
    "ttl_expiry": expiry_case,
    "relink": relink_case,
}

# --- failures at each step boundary ---------------------------------------------------------

Fault = Callable[[Case, FakePlaid, FakePeers], AbstractContextManager[Any]]


@contextmanager
def _hit(fault: AbstractContextManager[Any]) -> Iterator[None]:
    with fault as injected:
        yield
    assert injected.hits == 1, "the failure was never reached"


def fail_mark(case: Case, plaid: FakePlaid, peers: FakePeers) -> AbstractContextManager[Any]:
    table = get_settings().plaid_table
    if case.written_back:
        return _hit(aws_fault("dynamodb", "PutItem", when=item_type_is(table, "ITEM")))
    return _hit(aws_fault("dynamodb", "UpdateItem", when=table_is(table)))


def fail_record(case: Case, plaid: FakePlaid, peers: FakePeers) -> AbstractContextManager[Any]:
    settings = get_settings()
    fault = aws_fault(
        "dynamodb", "PutItem", when=table_is(settings.account_changes_table), region=settings.account_changes_region
    )
    return _hit(fault)


@contextmanager
def fail_revoke(case: Case, plaid: FakePlaid, peers: FakePeers) -> Iterator[None]:
    injected = plaid.fail("/item/remove", "INTERNAL_SERVER_ERROR", access_token=case.fake.access_token)
    yield
    assert injected.hits == 1, "the failure was never reached"


@contextmanager
def fail_note(case: Case, plaid: FakePlaid, peers: FakePeers) -> Iterator[None]:
    before = len(peers.admin_api.requests)
    peers.admin_api.fail_next(1, status=500)
    yield
    assert len(peers.admin_api.requests) > before, "the failure was never reached"


def fail_event(case: Case, plaid: FakePlaid, peers: FakePeers) -> AbstractContextManager[Any]:
    return _hit(aws_fault("events", "PutEvents"))


def fail_webhook_info(case: Case, plaid: FakePlaid, peers: FakePeers) -> AbstractContextManager[Any]:
    return _hit(aws_fault("dynamodb", "PutItem", when=item_type_is(get_settings().transactions_table, "WEBHOOK_INFO")))


GENERIC_STEPS: dict[str, Fault] = {"mark": fail_mark, "record": fail_record, "revoke": fail_revoke}
#: USER_PERMISSION_REVOKED adds the Admin API note, the event and the miner's WEBHOOK_INFO row.
REVOKE_STEPS: dict[str, Fault] = {
    **GENERIC_STEPS,
    "note": fail_note,
    "event": fail_event,
    "webhook_info": fail_webhook_info,
}
CASES = [
    (path, step) for path in PATHS for step in (REVOKE_STEPS if path == "user_permission_revoked" else GENERIC_STEPS)
]

# --- the final state ------------------------------------------------------------------------


def final_state(case: Case, plaid: FakePlaid, peers: FakePeers, capture: Capture) -> dict[str, Any]:
    """Everything a removal leaves, with ids replaced by their roles."""

    def named(value: str | None) -> str | None:
        return case.roles.get(value, value) if value else value

    item = items.get_item(case.user_id, case.fake.item_id)
    assert item is not None and item.removed_at is not None
    changes = [c for c in account_changes.account_changes(case.user_id) if c.item_id == case.fake.item_id]
    revokes = [c.status for c in plaid.calls("/item/remove") if c.body.get("access_token") == case.fake.access_token]
    events = {
        e["detail"]["event_id"]: e for e in capture.matching(lambda e: e["detail"].get("item_id") == case.fake.item_id)
    }
    return {
        "item": (item.status, item.removed_reason, item.removed_cause, named(item.replaced_by), item.ttl),
        "changes": [
            (
                c.change_type,
                c.change_date == account_changes.parse_change_date(item.removed_at),
                "main" if c.account_id == case.fake.roles()["checking"] else c.account_id,
                c.is_override,
            )
            for c in changes
        ],
        "revoked_at_plaid": (case.fake.removed, revokes.count(200)),
        "admin_notes": [
            n["text"].replace(case.fake.item_id, "<item>") for n in peers.admin_api.notes_for(case.user_id)
        ],
        "events": sorted((e["detail-type"], e["detail"].get("reason")) for e in events.values()),
        "webhook_info": [(w.webhook_type, w.webhook_code) for w in webhook_info.item_webhooks(case.fake.item_id)],
    }


@pytest.fixture(scope="module")
def clean_states(fake_plaid: FakePlaid, fake_peers: FakePeers, event_capture: Capture) -> dict[str, dict[str, Any]]:
    """Each path's final state after one clean delivery."""
    states = {}
    for path, make in PATHS.items():
        case = make(fake_plaid, fake_peers, uid("user"))
        case.deliver()
        states[path] = final_state(case, fake_plaid, fake_peers, event_capture)
    return states


def test_a_clean_removal_leaves_what_each_path_promises(clean_states: dict[str, dict[str, Any]]) -> None:
    one_row = [(account_changes.ChangeType.ITEM_REMOVED, True, "main", False)]
    removed = items.ItemStatus.REMOVED
    assert clean_states["api"]["item"] == (removed, "MX", "API", None, None)
    assert clean_states["api"]["changes"] == [(account_changes.ChangeType.ITEM_REMOVED, True, "main", True)]
    assert clean_states["user_permission_revoked"]["item"] == (removed, None, "USER_PERMISSION_REVOKED", None, None)
    assert clean_states["user_permission_revoked"]["changes"] == one_row
    assert clean_states["user_permission_revoked"]["admin_notes"] == [
        "Plaid item <item> removed: the user revoked permission at their bank"
    ]
    assert clean_states["user_permission_revoked"]["events"] == [
        ("plaid_item_connection_revoked", "USER_PERMISSION_REVOKED")
    ]
    assert clean_states["user_permission_revoked"]["webhook_info"] == [("ITEM", "USER_PERMISSION_REVOKED")]
    assert clean_states["ttl_expiry"]["item"] == (
        removed,
        items.REMOVED_REASON_REACTIVATION_EXPIRED,
        "EXPIRED",
        None,
        None,
    )
    assert clean_states["ttl_expiry"]["changes"] == one_row
    assert clean_states["relink"]["item"] == (removed, items.REMOVED_REASON_RELINKED, "RELINKED", "<new item>", None)
    assert clean_states["relink"]["changes"] == one_row
    for state in clean_states.values():
        assert state["revoked_at_plaid"] == (True, 1)


@pytest.mark.parametrize(("path", "step"), CASES)
def test_a_removal_that_failed_at_a_step_finishes_on_redelivery_like_a_clean_one(
    fake_plaid: FakePlaid,
    fake_peers: FakePeers,
    event_capture: Capture,
    clean_states: dict[str, dict[str, Any]],
    user_id: str,
    path: str,
    step: str,
) -> None:
    # GIVEN a removal whose first delivery fails at one step
    case = PATHS[path](fake_plaid, fake_peers, user_id)
    with REVOKE_STEPS[step](case, fake_plaid, fake_peers), pytest.raises((ServiceError, DeliveryFailedError)):
        case.deliver()
    # WHEN it is delivered again, twice (at-least-once)
    case.deliver()
    case.deliver()
    # THEN the final state is exactly a clean run's
    assert final_state(case, fake_plaid, fake_peers, event_capture) == clean_states[path]
