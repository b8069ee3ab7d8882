"""Every metric an alarm or the dashboard reads is emitted by the code, under that name and dimensions.

An alarm on a metric nobody emits never fires. So the handlers run here, through the app
(Chalice's test client, with the Lambda environment of ``.chalice/config.json``) and their own
entry points, on their ordinary paths and on their failure paths: failures are injected only
at the boundaries (the fake Plaid's and fake Pave's error injection, Pave's through the
Pave feeders and miner, a botocore hook on the one
client factory's clients, a lock held by another holder), never by patching the code under
test. Their EMF output is collected, and each metric the monitoring declaration reads must
appear in it with exactly the dimensions the alarm or widget names.
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager, redirect_stdout
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from chalice import Chalice
from chalice.test import Client

from chalicelib.aws import clients
from chalicelib.aws.messaging import queue_url
from chalicelib.data.ttl import iso_timestamp, utcnow
from chalicelib.infra import cloudformation as cfn
from chalicelib.infra.declaration import CONSUMER_TIMEOUTS, declare
from chalicelib.infra.monitoring import Metric, Monitoring, Ref, Search
from chalicelib.insight import balance_tracker
from chalicelib.insight.balance_updates import BalanceUpdate, BalanceUpdateSource
from chalicelib.insight.data import tables as insight_tables
from chalicelib.insight.data.keys import balance_alert_lock_key
from chalicelib.insight.locker import Locker
from chalicelib.insight.pave_messages import Poll, removals_bodies
from chalicelib.peers.pave import reset_pave
from chalicelib.pipeline.intake import MAX_BODY_BYTES
from chalicelib.pipeline.messages import WebhookMessage
from chalicelib.plaid.client import reset_plaid
from chalicelib.plaid.webhook_verification import reset_webhook_keys
from chalicelib.settings import get_settings
from ops.fakes.pave import FakePave
from ops.fakes.peers import FakePeers
from ops.fakes.peers.server import error_reply
from ops.fakes.plaid import FakePlaid
from ops.runtime.invoker import BatchOutcome, Invoker
from tests.conftest import Capture, empty_queue
from tests.e2e.conftest import link_item
from tests.e2e.test_intake import queued_bodies
from tests.e2e.test_listener import login_detail
from tests.factories import (
    kinesis_event,
    kinesis_inputs,
    page_record,
    plaid_account,
    plaid_transaction,
    sqs_event,
    transactions_response,
    uid,
)
from tests.faults import aws_fault
from tests.insight.balances import balances, seed_user, sqs_record
from tests.insight.pave.support import batch_completed, queue_arn, realistic, store_user
from tests.pipeline.sync_support import SyncHarness
from tests.plaid.factories import closed_port

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
EmfDocument = dict[str, Any]


def monitoring() -> Monitoring:
    import app as app_module

    return cfn.app_monitoring(declare(), app_module.app)


# --- running the handlers -------------------------------------------------------------------


class Handlers:
    """The app's handlers as Lambda runs them (Chalice's test client, the stage's environment)."""

    def __init__(self, client: Client, fake_plaid: FakePlaid, app: Chalice) -> None:
        self.client = client
        self.plaid = fake_plaid
        self.client_app = app

    def post_webhook(self, body: bytes, token: str | None = None) -> int:
        headers = {"Content-Type": "application/json"}
        if token is not None:
            headers["Plaid-Verification"] = token
        return int(self.client.http.post("/v1/plaid", headers=headers, body=body).status_code)

    def signed_webhook(self, payload: Mapping[str, Any]) -> int:
        body = json.dumps(payload).encode()
        return self.post_webhook(body, self.plaid.current_key.sign(body))

    def mine(self, payload: Mapping[str, Any]) -> Any:
        message = WebhookMessage(uid("msg"), "PLAID", iso_timestamp(utcnow()), dict(payload))
        return self.client.lambda_.invoke("mine_webhooks", sqs_event([message.to_json()])).payload

    def refine(self, *records: Any) -> Any:
        return self.client.lambda_.invoke("refine_transactions", kinesis_event(kinesis_inputs(*records))).payload

    def login(self, user_id: str) -> Any:
        envelope = {"id": uid("evt"), "time": utcnow().isoformat(), "detail": login_detail(f"auth0|{user_id}")}
        return self.client.lambda_.invoke("listen_auth0", sqs_event([json.dumps(envelope)])).payload

    def feed_pave(self, *user_ids: str) -> BatchOutcome:
        bodies = [batch_completed(u, mine_id=uid("mine")) for u in user_ids]
        return self._consume("feed_pave", get_settings().pave_feed_queue, bodies)

    def feed_pave_removals(self, user_id: str, removed: list[str]) -> BatchOutcome:
        return self._consume(
            "feed_pave_removals", get_settings().replay_feeder_queue, removals_bodies(user_id, removed)
        )

    def mine_pave(self, poll: Poll) -> BatchOutcome:
        return self._consume("mine_pave", get_settings().pave_poll_queue, [poll.to_json()])

    def _consume(self, function: str, queue: str, bodies: list[str]) -> BatchOutcome:
        # As the event runtime delivers a queue's batch: Lambda's context (the function's own
        # timeout, which the Pave consumers budget against; Chalice's test client gives 3 s)
        # and Lambda's reading of the partial batch response.
        records = sqs_event(bodies, queue_arn(queue))["Records"]
        invoker = Invoker(self.client_app, "dev", "us-east-1", CONSUMER_TIMEOUTS)
        return invoker.deliver_batch(function, queue, records, [r["messageId"] for r in records])


@contextmanager
def unnamed_failure(service: str, operation: str) -> Iterator[None]:
    """The factory's ``service`` client raises an error nothing in the service names (a dependency's bug)."""

    def fail(**_: Any) -> None:
        raise RuntimeError("injected: an error no handler names")

    events = clients.client(service).meta.events
    event_name = f"before-parameter-build.{service}.{operation}"
    events.register(event_name, fail)
    try:
        yield
    finally:
        events.unregister(event_name, fail)


def transactions_webhook(item_id: str) -> dict[str, Any]:
    return {"webhook_type": "TRANSACTIONS", "webhook_code": "DEFAULT_UPDATE", "item_id": item_id, "new_transactions": 1}


def run_intake(handlers: Handlers, plaid: FakePlaid) -> None:
    payload = {"webhook_type": "TRANSACTIONS", "webhook_code": "DEFAULT_UPDATE", "item_id": uid("item")}
    assert handlers.signed_webhook(payload) == 200
    body = json.dumps(payload).encode()
    assert handlers.post_webhook(body, plaid.current_key.sign(body + b" ")) == 401
    assert handlers.post_webhook(b"{" + b" " * MAX_BODY_BYTES + b"}", "token") == 413
    with aws_fault("sqs", "SendMessage", code="InternalError"):
        assert handlers.signed_webhook(payload) == 500
    with unnamed_failure("sqs", "SendMessage"):
        assert handlers.signed_webhook(payload) == 500
    # Plaid rotated to a key the app has not seen, and its key endpoint is down
    plaid.rotate_key()
    plaid.fail("/webhook_verification_key/get", "INTERNAL_SERVER_ERROR", times=None)
    try:
        assert handlers.signed_webhook(payload) == 500
    finally:
        plaid.clear_faults()
        # The process's key cache spent a lookup of its per-minute budget on that kid: give the
        # tests after this one the budget they would have had.
        reset_webhook_keys()
    queued_bodies()


def run_refiner(handlers: Handlers, user_id: str) -> None:
    account = plaid_account()
    page = page_record(
        user_id, uid("item"), transactions_response([account], [plaid_transaction(account["account_id"])])
    )
    assert handlers.refine(b"not a page record", page) == {"batchItemFailures": []}
    with aws_fault("dynamodb", "BatchWriteItem", code="InternalServerError", times=50):
        assert handlers.refine(page)["batchItemFailures"]


def run_listener(handlers: Handlers, plaid: FakePlaid, user_id: str, settings_tables: Mapping[str, str]) -> None:
    link_item(plaid, user_id, transaction_count=1, loans=False)
    with aws_fault("dynamodb", "Query", when=lambda p: p.get("TableName") == settings_tables["transactions"], times=9):
        assert handlers.login(user_id) == {"batchItemFailures": []}
    with aws_fault("dynamodb", "Query", when=lambda p: p.get("TableName") == settings_tables["plaid"], times=9):
        assert handlers.login(user_id) == {"batchItemFailures": []}


def run_removal(handlers: Handlers, plaid: FakePlaid, peers: FakePeers, user_id: str) -> None:
    peers.user_service.add_user(user_id)
    fake = link_item(plaid, user_id, transaction_count=1, loans=False)
    revoked = {"webhook_type": "ITEM", "webhook_code": "USER_PERMISSION_REVOKED", "item_id": fake.item_id}
    plaid.fail("/item/remove", "INTERNAL_SERVER_ERROR", access_token=fake.access_token)
    try:
        assert handlers.mine(revoked)["batchItemFailures"]
    finally:
        plaid.clear_faults()


def run_plaid_failures(
    handlers: Handlers, plaid: FakePlaid, user_id: str, override_settings: Callable[..., None]
) -> None:
    fake = link_item(plaid, user_id, transaction_count=1, loans=False)
    webhook = transactions_webhook(fake.item_id)
    for error in ("INVALID_API_KEYS", "RATE_LIMIT_EXCEEDED", "INVALID_FIELD", "PLANNED_MAINTENANCE"):
        plaid.fail("/item/get", error, access_token=fake.access_token)
        handlers.mine(webhook)
    plaid.respond("/item/get", "<html>not Plaid</html>", access_token=fake.access_token)
    handlers.mine(webhook)
    plaid.clear_faults()
    # Plaid answers too slowly, then cannot be reached at all
    override_settings(PLAID_TIMEOUT_SECONDS="0.2")
    reset_plaid()
    plaid.delay("/item/get", 1.0, access_token=fake.access_token)
    handlers.mine(webhook)
    override_settings(PLAID_BASE_URL=f"http://127.0.0.1:{closed_port()}")
    reset_plaid()
    handlers.mine(webhook)
    plaid.clear_faults()


def run_sync_troubles(plaid: FakePlaid, user_id: str, override_settings: Callable[..., None]) -> None:
    """A sync loop whose next page is lost is taken over; then Plaid refuses the committed cursor."""
    override_settings(SYNC_PAGE_SIZE="40")
    empty_queue(get_settings().throttle_queue)  # only this scenario's pages are drained
    harness = SyncHarness(plaid, user_id)
    fake = harness.link(transaction_count=100, history_days=60)
    assert not harness.mine(harness.webhook(fake, "INITIAL_UPDATE")).failed
    harness.advance(timedelta(seconds=get_settings().sync_loop_stale_seconds + 1))
    assert not harness.mine(harness.webhook(fake, "SYNC_UPDATES_AVAILABLE")).failed
    harness.drain()
    plaid.fail("/transactions/sync", "INVALID_FIELD", access_token=fake.access_token)
    try:
        harness.mine(harness.webhook(fake, "DEFAULT_UPDATE"))
        harness.drain()
    finally:
        plaid.clear_faults()


@dataclass(frozen=True)
class PaveUsers:
    """Users of the Pave scenarios: one never uploaded, and three with an upload request each."""

    unsent: str
    polled: Poll
    stalled: Poll
    forgotten: Poll


def prepare_pave(handlers: Handlers, pave: FakePave) -> PaveUsers:
    """Users stored as the refiner leaves them; three uploaded by the feeder (their polls taken off the queue)."""
    now = utcnow()
    unsent, polled, stalled, forgotten = (uid("user") for _ in range(4))
    for user_id in (unsent, polled, stalled, forgotten):
        store_user(user_id, realistic(user_id, now.date()), now=now)
    assert handlers.feed_pave(polled, stalled, forgotten).ok
    queued = {p["user_id"]: Poll(p["user_id"], p["request_id"], p["attempt"]) for p in Capture(poll_queue()).drain()}
    return PaveUsers(unsent, queued[polled], queued[stalled], queued[forgotten])


def poll_queue() -> str:
    return queue_url(get_settings().pave_poll_queue)


def run_pave_failures(handlers: Handlers, pave: FakePave, users: PaveUsers) -> None:
    """Pave fails the feeders' uploads and the miner's polls (one call each: no inline retry)."""
    for status in (500, 502, 503, 401):
        pave.fail_next(status=status)
        assert handlers.feed_pave(users.unsent).failed
    # Pave answers too slowly: no status
    pave.stall_next(seconds=1.0)
    assert handlers.feed_pave_removals(users.unsent, [f"{users.unsent}-gone"]).failed
    pave.wait_idle()
    for fail in (
        lambda: pave.fail_next(status=504),
        lambda: pave.rate_limit_next(retry_after=0),
        lambda: pave.fail_next(status=403),
    ):
        fail()
        assert handlers.mine_pave(users.polled).failed


def run_pave_given_up(handlers: Handlers, pave: FakePave, users: PaveUsers) -> None:
    """The miner gives up on three requests: FAILED at Pave, still pending at the last poll, unknown to Pave."""
    pave.fail_request(users.polled.request_id)
    assert handlers.mine_pave(users.polled).ok
    pave.set_processing(polls=1_000)
    try:
        last = Poll(users.stalled.user_id, users.stalled.request_id, get_settings().pave_poll_max_attempts)
        assert handlers.mine_pave(last).ok
    finally:
        pave.set_processing(polls=1, seconds=0)
    # Pave lost the request: its own 404 for an unknown request
    pave.reply_next(error_reply(404, "REQUEST_NOT_FOUND", f"no request {users.forgotten.request_id}"))
    assert handlers.mine_pave(users.forgotten).ok


def run_lock_contention() -> None:
    # GIVEN a user under their low-balance threshold whose alert lock another holder keeps
    user = seed_user(uid("user"), checking=balances(100), threshold_dollars=50)
    Locker(busy_wait=timedelta(0)).acquire(balance_alert_lock_key(user.user_id))
    body = BalanceUpdate(user.user_id, BalanceUpdateSource.REFINER, iso_timestamp(utcnow())).to_json()
    result = balance_tracker.handle_balance_updates([sqs_record(body)], locker=Locker(busy_wait=timedelta(0)))
    assert result["batchItemFailures"]


def run_unreadable_row() -> None:
    # GIVEN a user without alert settings whose alert row cannot be read
    user = seed_user(uid("user"), checking=balances(100), settings=False)
    pk, sk = f"USERS#{user.user_id}", f"ALERT#{user.user_id}"
    row = {"PK": pk, "SK": sk, "type": "ALERT", "user_id": user.user_id, "alert_sent": "yes"}
    insight_tables.pave().put_item(Item=row)
    # WHEN a balance update of theirs is handled THEN it succeeds (the row read as an alert sent)
    body = BalanceUpdate(user.user_id, BalanceUpdateSource.REFINER, iso_timestamp(utcnow())).to_json()
    assert balance_tracker.handle_balance_updates([sqs_record(body)]) == {"batchItemFailures": []}


def emf_documents(output: str) -> list[EmfDocument]:
    documents = []
    for line in output.splitlines():
        if line.startswith("{") and '"_aws"' in line:
            documents.append(json.loads(line))
    return documents


@contextmanager
def collected(into: dict[str, list[EmfDocument]], scenario: str) -> Iterator[None]:
    """Keep the EMF documents printed inside the block, under ``scenario``."""
    output = io.StringIO()
    try:
        with redirect_stdout(output):
            yield
    finally:
        into[scenario] = emf_documents(output.getvalue())


@pytest.fixture(scope="module")
def by_scenario(
    stack_env: dict[str, Any], fake_plaid: FakePlaid, fake_peers: FakePeers, fake_pave: FakePave
) -> dict[str, list[EmfDocument]]:
    """The EMF documents the handlers printed on each path above, by scenario."""
    import app as app_module
    from tests.conftest import _reset_process_state

    mp = pytest.MonkeyPatch()

    def override_settings(**env: str) -> None:
        for key, value in env.items():
            mp.setenv(key, value)
        _reset_process_state()

    settings = get_settings()
    tables = {"transactions": settings.transactions_table, "plaid": settings.plaid_table}
    found: dict[str, list[EmfDocument]] = {}
    try:
        with Client(app_module.app, stage_name="dev", project_dir=str(ROOT)) as client:
            handlers = Handlers(client, fake_plaid, app_module.app)
            with collected(found, "intake"):
                run_intake(handlers, fake_plaid)
            with collected(found, "refiner"):
                run_refiner(handlers, uid("user"))
            with collected(found, "listener"):
                run_listener(handlers, fake_plaid, uid("user"), tables)
            with collected(found, "removal"):
                run_removal(handlers, fake_plaid, fake_peers, uid("user"))
            # Pave: one attempt per call and no inline wait for a 429, so each failure is one call
            override_settings(PAVE_MAX_ATTEMPTS="1", PAVE_MAX_RETRY_AFTER_SECONDS="0", PAVE_READ_TIMEOUT_SECONDS="0.2")
            reset_pave()
            with collected(found, "pave_ready"):
                pave_users = prepare_pave(handlers, fake_pave)
            with collected(found, "pave"):
                run_pave_failures(handlers, fake_pave, pave_users)
            with collected(found, "pave_given_up"):
                run_pave_given_up(handlers, fake_pave, pave_users)
            with collected(found, "lock"):
                run_lock_contention()
            with collected(found, "unreadable"):
                run_unreadable_row()
            with collected(found, "sync"):
                run_sync_troubles(fake_plaid, uid("user"), override_settings)
            with collected(found, "plaid"):
                run_plaid_failures(handlers, fake_plaid, uid("user"), override_settings)
    finally:
        fake_plaid.clear_faults()
        mp.undo()
        _reset_process_state()
        reset_plaid()
        reset_pave()
    return found


@pytest.fixture(scope="module")
def emitted(by_scenario: dict[str, list[EmfDocument]]) -> list[EmfDocument]:
    """Every EMF document of every scenario."""
    return [document for documents in by_scenario.values() for document in documents]


# --- what must be there ---------------------------------------------------------------------


def dimension_sets(document: EmfDocument, name: str) -> list[dict[str, str]]:
    """Each series ``document`` publishes for metric ``name``: its dimensions and their values."""
    found = []
    for directive in document["_aws"]["CloudWatchMetrics"]:
        if name in {m["Name"] for m in directive["Metrics"]}:
            found += [{key: document[key] for key in keys} for keys in directive["Dimensions"]]
    return found


def published(documents: list[EmfDocument], name: str) -> list[dict[str, str]]:
    return [series for document in documents for series in dimension_sets(document, name)]


def metric_id(metric: Metric) -> str:
    return metric.name + "{" + ",".join(f"{k}={v}" for k, v in metric.dimensions) + "}"


WATCHED = monitoring().service_metrics()
SEARCHED = monitoring().searches()


@pytest.mark.parametrize("metric", WATCHED, ids=metric_id)
def test_every_watched_metric_is_emitted_with_exactly_its_dimensions(
    emitted: list[EmfDocument], metric: Metric
) -> None:
    # GIVEN a service metric an alarm or a dashboard widget reads
    wanted = dict(metric.dimensions)
    assert not any(isinstance(v, Ref) for v in wanted.values())
    # THEN the handlers published a series of that name with exactly those dimensions and values
    series = published(emitted, metric.name)
    assert series, f"{metric.name} was never emitted"
    assert wanted in series, f"{metric.name}: emitted only as {series[:5]}"


@pytest.mark.parametrize("search", SEARCHED, ids=lambda s: f"{s.name}{{{','.join(s.dimensions)}}}")
def test_every_dashboard_breakdown_finds_series(emitted: list[EmfDocument], search: Search) -> None:
    # GIVEN a widget that breaks a metric down by dimensions THEN some series has exactly that schema
    schemas = {frozenset(series) for series in published(emitted, search.name)}
    assert search.dimension_names in schemas, f"{search.name}: emitted with {sorted(map(sorted, schemas))}"


def test_every_emitted_document_is_in_the_service_namespace(emitted: list[EmfDocument]) -> None:
    assert emitted
    for document in emitted:
        for directive in document["_aws"]["CloudWatchMetrics"]:
            assert directive["Namespace"] == "txn"
            assert all("service" in keys for keys in directive["Dimensions"])


def test_calls_and_failures_count_logical_calls_so_their_ratio_is_a_rate(
    by_scenario: dict[str, list[EmfDocument]],
) -> None:
    # GIVEN eight Pave calls of the feeders and the miner that each failed (one attempt each), and
    # Plaid calls in the Plaid scenario
    pave = by_scenario["pave"]
    sent = [s for s in published(pave, "peer.request.sent") if s.get("peer") == "pave"]
    failed = [s for s in published(pave, "peer.request.failed") if s.get("peer") == "pave" and "status" not in s]
    # THEN each was counted once as sent and once as failed
    assert len(sent) == len(failed) == 8
    # AND each Plaid failure injected there is counted once, by its type, and was a call sent
    plaid = by_scenario["plaid"]
    failures = [s for s in published(plaid, "plaid.request.failed") if "error_code" not in s]
    assert sorted(s["error_type"] for s in failures) == sorted(
        [
            "INVALID_INPUT",
            "RATE_LIMIT_EXCEEDED",
            "INVALID_REQUEST",
            "API_ERROR",
            "BAD_RESPONSE",
            "TIMEOUT",
            "CONNECTION",
        ]
    )
    assert len(failures) <= len(published(plaid, "plaid.request.sent"))
