"""End to end: the feeder, fed by the tables' streams through the local event runtime.

TTL expiry is the runtime's emulation (``expire_ttl``): it deletes the expired rows and
delivers their REMOVE records as the DynamoDB service's, as Lambda would. Rows are written
already expired (a realistic epoch a minute in the past), so a sweep at "now" takes them.

One scenario per behaviour: each kind of expiry and of ACCOUNT change through the streams, the
stream filter, retries and duplicate deliveries. Every case of the rules (which expired items
are kept, which reason a removal stores, whom the User Service is asked about, when an account
is main, when a rewrite is news) is a unit test: tests/unit/test_feeder_decisions.py and
tests/unit/test_feeder_handlers.py.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import boto3
import pytest

from chalicelib.data import account_changes, accounts, items, layers
from chalicelib.data.ttl import LAYER_TTL_DAYS, epoch, utcnow
from chalicelib.events.publisher import NEW_ACCOUNT
from chalicelib.plaid.client import get_plaid
from chalicelib.settings import get_settings
from ops.fakes.peers import FakePeers
from ops.fakes.plaid import FakeItem, FakePlaid
from ops.runtime import EventRuntime
from tests.e2e.conftest import new_runtime
from tests.factories import uid

pytestmark = [pytest.mark.integration, pytest.mark.slow]

CAPTURE_QUEUE = "test-lifecycle-event-capture"
CAPTURE_RULE = "test-lifecycle-capture-all"


class EventCapture:
    """Everything published on the service's bus, copied to a queue by a rule."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.sqs = boto3.client("sqs")
        self.seen: list[dict[str, Any]] = []

    def events(self, predicate: Callable[[dict[str, Any]], bool]) -> list[dict[str, Any]]:
        while True:
            batch = self.sqs.receive_message(QueueUrl=self.url, MaxNumberOfMessages=10).get("Messages", [])
            if not batch:
                break
            for message in batch:
                self.seen.append(json.loads(message["Body"]))
                self.sqs.delete_message(QueueUrl=self.url, ReceiptHandle=message["ReceiptHandle"])
        return [e for e in self.seen if predicate(e)]

    def new_accounts(self, user_id: str) -> list[dict[str, Any]]:
        return [
            e["detail"]
            for e in self.events(lambda e: e.get("detail-type") == NEW_ACCOUNT)
            if e["detail"].get("user_id") == user_id
        ]


@pytest.fixture(scope="session")
def event_capture(stack_env: dict[str, Any]) -> EventCapture:
    sqs, events = boto3.client("sqs"), boto3.client("events")
    url = sqs.create_queue(QueueName=CAPTURE_QUEUE)["QueueUrl"]
    arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    bus = get_settings().event_bus
    events.put_rule(Name=CAPTURE_RULE, EventBusName=bus, EventPattern=json.dumps({"source": ["txn.service"]}))
    events.put_targets(Rule=CAPTURE_RULE, EventBusName=bus, Targets=[{"Id": "capture", "Arn": arn}])
    return EventCapture(url)


# --- factories ------------------------------------------------------------------------------


def expired() -> int:
    """A TTL that passed a minute ago."""
    return epoch(utcnow() - timedelta(minutes=1))


def save_item(
    fake: FakeItem,
    user_id: str,
    *,
    source: str | None = None,
    ttl: int | None = None,
) -> items.Item:
    item = items.Item(
        user_id=user_id,
        item_id=fake.item_id,
        access_token=fake.access_token,
        institution_id=fake.institution_id,
        institution_name=fake.institution_name,
        status=items.ItemStatus.ACTIVE,
        created_at=(utcnow() - timedelta(days=3)).isoformat(),
        main_account_id=fake.roles()["checking"],
        source=source,
        ttl=ttl,
    )
    assert items.create_item(item, utcnow())
    return item


def account(user_id: str, item_id: str, acct_id: str, *, current: int = 12_345) -> accounts.Account:
    return accounts.Account(
        user_id=user_id,
        item_id=item_id,
        acct_id=acct_id,
        name="Plaid Checking",
        type="depository",
        subtype="checking",
        mask="0000",
        balances=accounts.Balances(available=current - 1000, current=current, iso_currency_code="USD"),
    )


def assert_written_back_removed(user_id: str, item: items.Item, reason: str) -> None:
    """The row is the old image, REMOVED with ``reason`` and no ttl, its removal stamped as an expiry."""
    back = items.get_item(user_id, item.item_id)
    assert back is not None and back.removed_at is not None
    assert back.removed_cause == "EXPIRED"
    assert dataclasses.replace(back, removed_at=None, removed_cause=None) == items.as_removed(item, reason)


def revoked(plaid: FakePlaid, fake: FakeItem) -> bool:
    return plaid.item(fake.access_token).removed


def remove_calls(plaid: FakePlaid, fake: FakeItem) -> list[int]:
    """HTTP statuses of every /item/remove for this item's token."""
    return [c.status for c in plaid.calls("/item/remove") if c.body.get("access_token") == fake.access_token]


def expire(runtime: EventRuntime, *, drain_timeout: float = 60) -> None:
    report = runtime.expire_ttl()
    assert report.deleted, "the sweep deleted the expired rows"
    runtime.drain(timeout=drain_timeout)


def noisy_runtime() -> EventRuntime:
    """Every batch delivered twice, the first outcome discarded (a lost acknowledgement).

    It reads the streams from when it is made (as the ``runtime`` fixture does), never the
    session's history: replaying every earlier test's records twice made its drain outlast
    its timeout once the session wrote enough rows.
    """
    return new_runtime(duplicate_delivery=True)


# --- LAYER expiry ---------------------------------------------------------------------------


def test_an_expired_layer_stub_revokes_only_the_entries_that_never_became_items(
    fake_plaid: FakePlaid, runtime: EventRuntime, user_id: str
) -> None:
    # GIVEN a Layer stub of three items: one saved as an ITEM, one never saved, one already gone at Plaid
    saved, orphan, gone = (fake_plaid.create_item(transaction_count=1, loans=False) for _ in range(3))
    save_item(saved, user_id)
    get_plaid().item_remove(gone.access_token)
    stub = layers.LayerStub(
        uid("public-local"),
        user_id,
        tuple(layers.LayerStubEntry(f.item_id, f.access_token) for f in (saved, orphan, gone)),
    )
    layers.put_layer_stub(stub, utcnow() - timedelta(days=LAYER_TTL_DAYS, minutes=1))

    # WHEN its TTL fires and the feeder runs
    expire(runtime)

    # THEN the orphan is revoked at Plaid, the saved item is not, and the one already gone is tolerated
    assert revoked(fake_plaid, orphan)
    assert not revoked(fake_plaid, saved) and remove_calls(fake_plaid, saved) == []
    assert remove_calls(fake_plaid, gone)[-1] == 400  # ITEM_NOT_FOUND, not retried
    assert runtime.stats["feed_transactions_table"].failures == 0


def test_a_layer_stub_the_api_deletes_revokes_nothing(
    fake_plaid: FakePlaid, runtime: EventRuntime, user_id: str
) -> None:
    # GIVEN a stub whose only entry never became an item
    orphan = fake_plaid.create_item(transaction_count=1, loans=False)
    token = uid("public-local")
    layers.put_layer_stub(
        layers.LayerStub(token, user_id, (layers.LayerStubEntry(orphan.item_id, orphan.access_token),)), utcnow()
    )

    # WHEN the API deletes it (a user's DeleteItem, not TTL) and the stream is delivered
    layers.delete_layer_stub(token)
    result = runtime.drain(timeout=60)

    # THEN the REMOVE record never reaches the feeder and nothing is revoked
    assert result.of("feed_transactions_table").filtered >= 1
    assert remove_calls(fake_plaid, orphan) == []


def test_a_layer_expiry_delivered_twice_revokes_once_and_tolerates_the_second(
    fake_plaid: FakePlaid, user_id: str
) -> None:
    # GIVEN an expired stub with one orphan entry, and a runtime that delivers every batch twice
    orphan = fake_plaid.create_item(transaction_count=1, loans=False)
    stub = layers.LayerStub(uid("public-local"), user_id, (layers.LayerStubEntry(orphan.item_id, orphan.access_token),))
    layers.put_layer_stub(stub, utcnow() - timedelta(days=LAYER_TTL_DAYS, minutes=1))
    runtime = noisy_runtime()

    # WHEN the TTL fires
    expire(runtime)

    # THEN the token was revoked by the first delivery and the second met ITEM_NOT_FOUND without failing
    assert revoked(fake_plaid, orphan)
    assert remove_calls(fake_plaid, orphan) == [200, 400]
    assert runtime.stats["feed_transactions_table"].failures == 0


# --- ITEM expiry ----------------------------------------------------------------------------


def test_an_expired_prequal_item_of_an_active_user_is_written_back_without_ttl(
    fake_plaid: FakePlaid,
    fake_peers: FakePeers,
    runtime: EventRuntime,
    user_id: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # GIVEN an ACTIVE user's prequal item with a main account whose ttl has passed
    fake_peers.user_service.add_user(user_id, "ACTIVE")
    fake = fake_plaid.create_item(transaction_count=1, loans=False)
    item = save_item(fake, user_id, source=items.ITEM_SOURCE_PREQUAL, ttl=expired())

    # WHEN TTL deletes it and the feeder runs
    expire(runtime)

    # THEN the row is back, unchanged but without ttl, and the item stays connected at Plaid
    back = items.get_item(user_id, item.item_id)
    assert back is not None
    assert back == items.as_persisted(item)
    assert back.ttl is None and back.status is items.ItemStatus.ACTIVE
    assert remove_calls(fake_plaid, fake) == []
    # AND the outcome is counted as persisted
    assert _metric_lines(capsys, "txn.item.prequal.expiry", "persisted")


def test_an_expired_reactivation_item_is_removed_and_revoked(
    fake_plaid: FakePlaid, fake_peers: FakePeers, runtime: EventRuntime, user_id: str
) -> None:
    # GIVEN an ordinary (reactivation) item of an ACTIVE user whose ttl passed
    fake_peers.user_service.add_user(user_id, "ACTIVE")
    fake = fake_plaid.create_item(transaction_count=1, loans=False)
    item = save_item(fake, user_id, ttl=expired())

    # WHEN its TTL fires
    expire(runtime)

    # THEN it is REMOVED with the reactivation reason, without ttl, and revoked at Plaid
    assert_written_back_removed(user_id, item, items.REMOVED_REASON_REACTIVATION_EXPIRED)
    assert revoked(fake_plaid, fake)
    # AND being an item of an active user did not matter: only prequal items are kept
    assert fake_peers.user_service.requests_to("GET", f"/v1/users/{user_id}") == []


def test_an_expired_item_already_removed_at_plaid_is_still_marked_removed(
    fake_plaid: FakePlaid, runtime: EventRuntime, user_id: str
) -> None:
    # GIVEN an expired reactivation item that Plaid no longer knows
    fake = fake_plaid.create_item(transaction_count=1, loans=False)
    item = save_item(fake, user_id, ttl=expired())
    get_plaid().item_remove(fake.access_token)

    # WHEN its TTL fires
    expire(runtime)

    # THEN ITEM_NOT_FOUND is tolerated: the row is REMOVED and nothing failed
    back = items.get_item(user_id, item.item_id)
    assert back is not None and back.status is items.ItemStatus.REMOVED
    assert remove_calls(fake_plaid, fake) == [200, 400]
    assert runtime.stats["feed_plaid_table"].failures == 0


def test_a_failed_user_lookup_fails_the_record_and_the_retry_decides(
    fake_plaid: FakePlaid, fake_peers: FakePeers, runtime: EventRuntime, user_id: str
) -> None:
    # GIVEN an expired prequal item of an ACTIVE user, and a User Service that fails the next call with a 500
    fake_peers.user_service.add_user(user_id, "ACTIVE")
    fake = fake_plaid.create_item(transaction_count=1, loans=False)
    item = save_item(fake, user_id, source=items.ITEM_SOURCE_PREQUAL, ttl=expired())
    fake_peers.user_service.fail_next(1, status=500)

    # WHEN its TTL fires and the feeder runs until idle
    expire(runtime)

    # THEN the first attempt was reported failed, the record was retried, and the retry kept the item
    stats = runtime.stats["feed_plaid_table"]
    assert stats.failures == 1
    assert len(fake_peers.user_service.requests_to("GET", f"/v1/users/{user_id}")) == 2
    back = items.get_item(user_id, item.item_id)
    assert back is not None and back.status is items.ItemStatus.ACTIVE and back.ttl is None
    assert remove_calls(fake_plaid, fake) == []


def test_an_item_expiry_delivered_twice_leaves_one_removed_row_and_one_revocation(
    fake_plaid: FakePlaid, fake_peers: FakePeers, user_id: str
) -> None:
    # GIVEN an expired prequal item of a suspended user, and a runtime that delivers every batch twice
    fake_peers.user_service.add_user(user_id, "SUSPENDED")
    fake = fake_plaid.create_item(transaction_count=1, loans=False)
    item = save_item(fake, user_id, source=items.ITEM_SOURCE_PREQUAL, ttl=expired())
    runtime = noisy_runtime()

    # WHEN its TTL fires
    expire(runtime)

    # THEN the row is REMOVED once, the token revoked once (the repeat met ITEM_NOT_FOUND), nothing failed
    assert_written_back_removed(user_id, item, items.REMOVED_REASON_PREQUAL_EXPIRED)
    assert remove_calls(fake_plaid, fake) == [200, 400]
    [change] = account_changes.account_changes(user_id)
    assert (change.item_id, change.change_type, change.account_id) == (
        item.item_id,
        account_changes.ChangeType.ITEM_REMOVED,
        item.main_account_id,
    )
    assert runtime.stats["feed_plaid_table"].failures == 0


def test_an_item_created_again_after_its_expiry_is_not_clobbered_or_revoked(
    fake_plaid: FakePlaid, runtime: EventRuntime, user_id: str
) -> None:
    # GIVEN a reactivation item that TTL deleted
    fake = fake_plaid.create_item(transaction_count=1, loans=False)
    item = save_item(fake, user_id, ttl=expired())
    assert runtime.expire_ttl().deleted

    # WHEN the user reconnects it (the API saves it again, no ttl) before the feeder runs
    again = save_item(fake, user_id)
    runtime.drain(timeout=60)

    # THEN the new row stands and the token in use is not revoked
    assert items.get_item(user_id, item.item_id) == again
    assert remove_calls(fake_plaid, fake) == []


def _metric_lines(capsys: pytest.CaptureFixture[str], metric: str, outcome: str) -> list[dict[str, Any]]:
    """EMF lines for ``metric`` with ``outcome`` that the handlers printed."""
    found = []
    for line in capsys.readouterr().out.splitlines():
        if metric not in line:
            continue
        try:
            emf = json.loads(line)
        except ValueError:
            continue
        if emf.get("outcome") == outcome and metric in emf:
            found.append(emf)
    return found


# --- ACCOUNT rows -----------------------------------------------------------------------------


def test_new_accounts_are_published_with_is_main_set_from_the_active_item(
    fake_plaid: FakePlaid, runtime: EventRuntime, event_capture: EventCapture, user_id: str
) -> None:
    # GIVEN an ACTIVE item whose main account is the checking account
    fake = fake_plaid.create_item(transaction_count=1, loans=False)
    item = save_item(fake, user_id)
    main, other = fake.roles()["checking"], fake.roles()["savings"]

    # WHEN the refiner's writes add both accounts and the feeder runs
    now = utcnow()
    accounts.put_account_items(accounts.account_item(account(user_id, item.item_id, a), now) for a in (main, other))
    runtime.drain(timeout=60)

    # THEN one new_account per account was published, is_main only on the main account
    published = {e["account_id"]: e for e in event_capture.new_accounts(user_id)}
    assert set(published) == {main, other}
    assert published[main]["is_main"] is True and published[other]["is_main"] is False
    first = published[main]
    assert first["item_id"] == item.item_id and first["type"] == "depository" and first["mask"] == "0000"
    assert first["balances"] == {
        "available": 11_345,
        "current": 12_345,
        "limit": None,
        "available_reported": True,
        "current_reported": True,
    }
    assert first["event_id"].startswith("new_account:") and first["event_name"] == NEW_ACCOUNT

    # WHEN the next mine only refreshes the balances
    accounts.put_account_items([accounts.account_item(account(user_id, item.item_id, main, current=99), utcnow())])
    runtime.drain(timeout=60)

    # THEN nothing new is published: a balance change is not a new account
    assert len(event_capture.new_accounts(user_id)) == 2


def test_a_main_account_change_announces_the_new_and_the_previous_main_account(
    fake_plaid: FakePlaid, runtime: EventRuntime, event_capture: EventCapture, user_id: str
) -> None:
    # GIVEN an ACTIVE item whose two accounts were announced, checking as the main one
    fake = fake_plaid.create_item(transaction_count=1, loans=False)
    item = save_item(fake, user_id)
    checking, savings = fake.roles()["checking"], fake.roles()["savings"]
    accounts.put_account_items(
        accounts.account_item(account(user_id, item.item_id, a), utcnow()) for a in (checking, savings)
    )
    runtime.drain(timeout=60)
    first = {e["account_id"]: e for e in event_capture.new_accounts(user_id)}
    assert {a: e["is_main"] for a, e in first.items()} == {checking: True, savings: False}

    # WHEN the main account becomes the savings account (as the API changes it)
    items.set_main_account(user_id, item.item_id, savings, changed_at=utcnow())
    runtime.drain(timeout=60)

    # THEN both are announced again at once, with their new is_main and new event ids
    later = event_capture.new_accounts(user_id)[2:]
    assert {(e["account_id"], e["is_main"]) for e in later} == {(savings, True), (checking, False)}
    assert not {e["event_id"] for e in later} & {e["event_id"] for e in first.values()}

    # WHEN the main account goes back to checking
    items.set_main_account(user_id, item.item_id, checking, changed_at=utcnow())
    runtime.drain(timeout=60)

    # THEN checking is main again under an id never used before, so a deduplicating consumer keeps it
    again = [e for e in event_capture.new_accounts(user_id)[4:] if e["account_id"] == checking]
    assert [e["is_main"] for e in again] == [True]
    assert again[0]["event_id"] != first[checking]["event_id"]


def test_an_account_insert_delivered_twice_publishes_the_same_event_id(
    fake_plaid: FakePlaid, event_capture: EventCapture, user_id: str
) -> None:
    # GIVEN a runtime that delivers every batch twice, and an item with its main account
    fake = fake_plaid.create_item(transaction_count=1, loans=False)
    item = save_item(fake, user_id)
    runtime = noisy_runtime()

    # WHEN the account row is inserted
    main = fake.roles()["checking"]
    accounts.put_account_items([accounts.account_item(account(user_id, item.item_id, main), utcnow())])
    runtime.drain(timeout=60)

    # THEN every copy carries one event id, so consumers keep exactly one
    published = event_capture.new_accounts(user_id)
    assert len(published) >= 2
    assert len({e["event_id"] for e in published}) == 1


def test_accounts_mined_from_plaid_are_published_once_per_account(
    app_url: str,
    fake_plaid: FakePlaid,
    runtime: EventRuntime,
    event_capture: EventCapture,
    user_id: str,
) -> None:
    # GIVEN a linked item
    fake = fake_plaid.create_item(transaction_count=30, history_days=20, loans=False)
    save_item(fake, user_id)
    webhook = {"webhook_type": "TRANSACTIONS", "webhook_code": "DEFAULT_UPDATE", "item_id": fake.item_id}

    # WHEN Plaid sends two DEFAULT_UPDATE webhooks and the pipeline mines and refines both
    for _ in range(2):
        assert fake_plaid.send_webhook(f"{app_url}/v1/plaid", webhook).status == 200
        runtime.drain(timeout=60)

    # THEN each of the item's accounts was announced once, the checking account as the main one
    published = event_capture.new_accounts(user_id)
    assert sorted(e["account_id"] for e in published) == sorted(fake.roles().values())
    assert [e["account_id"] for e in published if e["is_main"]] == [fake.roles()["checking"]]
