"""The measurement core: the real pipeline run locally, every AWS request it makes charged.

A signed webhook goes through the app's route (Chalice's local gateway, in process), the local
event runtime delivers the queues, the Kinesis stream and the table streams to the app's
handlers, and the API answers pages through the same gateway with a bearer token from the
development issuer. Plaid is the fake Plaid. The scenarios, each a *phase*:

* ``history`` — a HISTORICAL_UPDATE of an item holding ``history_transactions`` transactions:
  every row is new (pages, the throttle queue, first writes of every GSI copy);
* ``removal`` — on a second item of ordinary density, Plaid settles its pending transactions
  and sends TRANSACTIONS_REMOVED for them (tombstones, soft deletes);
* ``update`` — then a DEFAULT_UPDATE with ``new_per_update`` new transactions: the 14-day window
  is mined again, so most rows are rewritten unchanged;
* ``api`` — a transactions page and the accounts of the first user;
* ``forecast`` — the cash-flow forecast of a third user (``forecast_history_days`` of an ordinary
  item's density, mined beforehand, a low-balance threshold set), ``forecast_calls`` times: the
  requests and read units of one call, and its CPU in this process (the app's side: token,
  schemas, boto3, the model; moto runs in a process of its own).

The second item's first mine and an API call run first, unmeasured, so per-container caches (queue
URLs, Plaid's webhook key, the issuer's keys) are warm, as in a steady state.
"""

from __future__ import annotations

import gc
import json
import statistics
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import partial
from typing import TYPE_CHECKING, Any

from ops.capacity.meter import EntityWrites, Meter, TableSpec, Usage
from ops.capacity.sizes import IndexSpec

if TYPE_CHECKING:
    from chalicelib.infra.declaration import Infrastructure
    from ops.fakes.auth0 import FakeAuth0
    from ops.fakes.plaid import FakeItem, FakePlaid
    from ops.runtime import EventRuntime

#: Phases, in the order they run.
HISTORY, REMOVAL, UPDATE, API, FORECAST = "history", "removal", "update", "api", "forecast"
#: Functions charged by the harness itself (the other names are the app's handlers).
INTAKE, API_TRANSACTIONS, API_ACCOUNTS, API_CATEGORIES = "intake", "api.transactions", "api.accounts", "api.categories"
API_FORECAST = "api.forecast"
MINER, THROTTLE_MINER, REFINER = "mine_webhooks", "mine_throttled", "refine_transactions"
FEEDER = "feed_transactions_table"
#: The handlers a transactions mine reaches, and so the event sources the run delivers.
PIPELINE = (MINER, THROTTLE_MINER, REFINER, FEEDER)


class MeasurementError(RuntimeError):
    """The run did not do what a measurement needs (a failed request, hooks lost)."""


@dataclass(frozen=True)
class Inputs:
    """What the local run is made of; :data:`FULL` feeds the document, :data:`SMALL` the test."""

    history_transactions: int = 1000
    history_days: int = 170
    #: Density of the second item, transactions per day, over ``typical_history_days``.
    typical_per_day: int = 3
    typical_history_days: int = 90
    new_per_update: int = 3
    api_page_limit: int = 100
    #: The forecast user's history (at ``typical_per_day``) and how many calls are timed.
    forecast_history_days: int = 120
    forecast_calls: int = 9
    #: Seed of the fake items' data (None: random, for runs sharing a server with other runs).
    seed: int | None = 7
    drain_timeout: float = 180.0


FULL = Inputs()
SMALL = Inputs(
    history_transactions=30,
    history_days=20,
    typical_history_days=15,
    api_page_limit=20,
    forecast_history_days=15,
    forecast_calls=1,
)


@dataclass
class Measurements:
    """What one local run measured: usage per (phase, function), sizes per entity, facts."""

    inputs: Inputs
    usage: dict[tuple[str, str], Usage]
    sizes: dict[str, list[int]]
    index_copies: dict[str, int]
    index_key_bytes: dict[str, list[int]] = field(default_factory=dict)
    facts: dict[str, int] = field(default_factory=dict)

    def functions(self, phase: str) -> dict[str, Usage]:
        return {f: u for (p, f), u in sorted(self.usage.items()) if p == phase}

    def of(self, phase: str, function: str) -> Usage:
        return self.usage.get((phase, function), Usage())

    def total(self, phase: str) -> Usage:
        return merge(self.functions(phase).values())


def merge(usages: Any) -> Usage:
    """The sum of several usages."""
    total = Usage()
    for usage in usages:
        total.invocations += usage.invocations
        total.records += usage.records
        total.requests.update(usage.requests)
        total.items_written.update(usage.items_written)
        total.bytes_written.update(usage.bytes_written)
        total.plaid_calls.update(usage.plaid_calls)
        total.write_units.update(usage.write_units)
        for target, units in usage.read_units.items():
            total.read_units[target] += units
        total.read_bytes.update(usage.read_bytes)
        for name, writes in usage.entities.items():
            into = total.entity(name)
            for attribute in EntityWrites.__dataclass_fields__:
                setattr(into, attribute, getattr(into, attribute) + getattr(writes, attribute))
        for attribute in ("kinesis_records", "kinesis_bytes", "sqs_messages", "sqs_bytes", "events", "event_bytes"):
            setattr(total, attribute, getattr(total, attribute) + getattr(usage, attribute))
    return total


def table_specs(infra: Infrastructure) -> list[TableSpec]:
    """The declared tables, their keys and GSIs, as the meter needs them."""
    return [
        TableSpec(t.name, t.hash_key, t.range_key, tuple(IndexSpec(i.name, i.hash_key, i.range_key) for i in t.indexes))
        for t in infra.tables
    ]


def side_client() -> Any:
    """A DynamoDB client outside the factory: its reads are the meter's own, never charged."""
    import boto3

    from chalicelib.settings import get_settings

    settings = get_settings()
    return boto3.session.Session().client(
        "dynamodb", endpoint_url=settings.aws_endpoint_url, region_name=settings.region
    )


def factory_clients() -> list[Any]:
    """The shared clients the service's factory builds for the pipeline and the API (the meter
    hooks every thread's DynamoDB clients itself)."""
    from chalicelib.aws import clients

    return [
        clients.sqs(),
        clients.kinesis(),
        clients.events(),
    ]


class Harness:
    """The app, the event runtime, the fakes and the meter, driven one phase at a time."""

    def __init__(self, plaid: FakePlaid, issuer: FakeAuth0, inputs: Inputs, starting_position: str | None) -> None:
        from chalice.config import Config
        from chalice.local import LocalGateway

        import app as application
        from chalicelib.infra.declaration import declare
        from ops.runtime import EventRuntime

        self.app = application.app
        self.plaid, self.issuer, self.inputs = plaid, issuer, inputs
        self.meter = Meter(table_specs(declare()), side_client())
        config = Config.create(chalice_app=self.app, app_name="txn", chalice_stage="dev", lambda_timeout=60)
        self.gateway = LocalGateway(self.app, config)
        self.runtime: EventRuntime = EventRuntime(
            self.app,
            visibility_timeout=1,
            ttl_interval=None,
            starting_position=starting_position,
            functions=PIPELINE,  # what a mine reaches; fewer sources to poll per round
        )

    @contextmanager
    def metering(self) -> Iterator[Meter]:
        clients = factory_clients()
        self.meter.attach(clients)
        try:
            with self.meter.observing_handlers(self.app):
                yield self.meter
        finally:
            self.meter.detach()
        if any(a is not b for a, b in zip(clients, factory_clients(), strict=True)):
            raise MeasurementError("the client factory was reset during the run: requests went unobserved")

    @contextmanager
    def phase(self, name: str | None) -> Iterator[None]:
        previous, self.meter.phase = self.meter.phase, name
        try:
            yield
        finally:
            self.meter.phase = previous

    def warm_queue_urls(self) -> None:
        """Resolve every declared queue's URL once, as a warm container already has."""
        from chalicelib.aws.messaging import queue_url
        from chalicelib.infra.declaration import declare

        for queue in declare().queues:
            queue_url(queue.name)

    def load_categories(self) -> None:
        """The categories the fake Plaid uses, through the project's loader (local seeding)."""
        from chalicelib.data import categories
        from ops.fakes.plaid.catalog import MERCHANTS, SUBSCRIPTIONS

        found = {m.category_id: m.category for m in MERCHANTS}
        found.update({s[3]: s[2] for s in SUBSCRIPTIONS})
        categories.put_categories(categories.Category(i, tuple(h)) for i, h in sorted(found.items()))

    def insight_writes(self, user_id: str) -> None:
        """One of every insight write, each charged to its access pattern (sizes kept apart)."""
        from ops.capacity.insight import INSIGHT, WRITES

        now = datetime.now(UTC)
        self.meter.record_sizes = False
        try:
            with self.phase(INSIGHT):
                for write in WRITES:
                    with self.meter.acting_as(write.function):
                        write.write(user_id, now)
        finally:
            self.meter.record_sizes = True

    def link(self, user_id: str, count: int, days: int, seed: int | None) -> FakeItem:
        from ops.demo import link_fake_item

        return link_fake_item(self.plaid, user_id, transaction_count=count, history_days=days, loans=False, seed=seed)

    def webhook(self, payload: dict[str, Any]) -> None:
        """Plaid's signed POST through the app's route, then the pipeline until idle."""
        body, header = self.plaid.sign_webhook(payload)
        headers = {"Content-Type": "application/json", "Plaid-Verification": header}
        with self.meter.acting_as(INTAKE):
            response = self.gateway.handle_request("POST", "/v1/plaid", headers, body)
        if response["statusCode"] != 200:
            raise MeasurementError(f"the webhook was refused: {response['statusCode']} {response['body']}")
        result = self.runtime.drain(timeout=self.inputs.drain_timeout)
        failed = {name: s for name, s in result.functions.items() if s.failures or s.errors}
        if failed:
            raise MeasurementError(f"handlers failed during the run: {failed}")

    def forecast(self, user_id: str) -> dict[str, int]:
        """``forecast_calls`` forecasts of ``user_id`` (a $100 threshold set): the median CPU of a
        call, and the CPU yardstick of the same moment (how fast the machine runs Python now)."""
        from chalicelib.insight.data.balance_settings import balance_settings_item
        from chalicelib.insight.data.tables import user_balance_settings
        from ops.cpu import yardstick_ms

        user_balance_settings().put_item(Item=balance_settings_item(user_id, 100))
        path = f"/v1/users/{user_id}/forecast"
        for _ in range(self.inputs.forecast_calls):
            answer = self.get(API_FORECAST, path, user_id)
        # Timed apart from the charged calls: charging a projected Query reads it again unprojected.
        # Only the app's handling is timed: the caller's token and its reading of the answer are not.
        headers = self._headers(user_id)
        before = yardstick_ms()
        cpu_us, response = self._median_cpu_us(partial(self.gateway.handle_request, "GET", path, headers, None))
        after = yardstick_ms()
        answer = self._answer(path, response)
        return {
            "forecast_calls": self.inputs.forecast_calls,
            "forecast_cpu_us": cpu_us,
            # Before and after the timed calls: a machine whose speed moved shows it as a range.
            "cpu_yardstick_us": round(min(before, after) * 1000),
            "cpu_yardstick_high_us": round(max(before, after) * 1000),
            "forecast_answered": int(answer.get("confidence") != "none"),
            **self._forecast_parts(user_id),
        }

    def _forecast_parts(self, user_id: str) -> dict[str, int]:
        """The parts of a call, outside the meter, as the route runs them: reading the history (the
        items and one GSI1 Query, made the models' values), the payday model, our bill detector, and
        the forecast given both (median CPU of ``forecast_calls`` each)."""
        from chalicelib import clock
        from chalicelib.insight import history, recurring
        from chalicelib.insight.forecast import bill_of, forecast_txns
        from chalicelib.insight.payday import predict_visible
        from chalicelib.insight.transactions import visible_of

        as_of = clock.today()

        def read() -> list[Any]:
            return history.model_txns(user_id, as_of)

        rows = read()
        seen = visible_of(rows, as_of)
        accounts = [{"account_id": "x", "type": "depository", "subtype": "checking", "available": 0, "current": 0}]
        accounts = [{**accounts[0], "account_id": a} for a in sorted({t.account_id for t in rows})]
        chain = predict_visible(seen, as_of)
        # Our detector runs for the account the forecast projects, as in the route.
        projected = forecast_txns(rows, accounts, as_of, 14, 10_000, payday=chain).account_id
        bills = [bill_of(b, "ours") for b in recurring.detect_visible(seen, as_of, account_id=projected)]
        parts: dict[str, Callable[[], object]] = {
            "forecast_read_us": read,
            "forecast_predict_us": partial(predict_visible, seen, as_of),
            "forecast_detect_us": partial(recurring.detect_visible, seen, as_of, account_id=projected),
            "forecast_model_us": partial(forecast_txns, rows, accounts, as_of, 14, 10_000, bills=bills, payday=chain),
        }
        return {"forecast_transactions": len(rows)} | {name: self._median_cpu_us(run)[0] for name, run in parts.items()}

    def _median_cpu_us(self, run: Callable[[], Any]) -> tuple[int, Any]:
        """The median CPU (µs, on this thread) of ``forecast_calls`` runs of ``run``, each after a
        garbage collection (the harness's own garbage, its runtime's and its fakes', is not the
        run's to collect) and with the models' caches of a user's lines emptied
        (:func:`forget_users`), and the last run's result."""
        seconds = []
        result = None
        for _ in range(self.inputs.forecast_calls):
            gc.collect()
            forget_users()
            started = time.thread_time()
            result = run()
            seconds.append(time.thread_time() - started)
        return round(statistics.median(seconds) * 1_000_000), result

    def get(self, function: str, path: str, user_id: str, *, charged: bool = True) -> dict[str, Any]:
        """GET ``path`` as ``user_id``; its AWS requests charged to ``function`` (unless not ``charged``)."""
        with self.meter.acting_as(function) if charged else nullcontext():
            response = self.gateway.handle_request("GET", path, self._headers(user_id), None)
        return self._answer(path, response)

    def _headers(self, user_id: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.issuer.user_token(user_id)}"}

    @staticmethod
    def _answer(path: str, response: dict[str, Any]) -> dict[str, Any]:
        if response["statusCode"] != 200:
            raise MeasurementError(f"GET {path}: {response['statusCode']} {response['body']}")
        return json.loads(response["body"])  # type: ignore[no-any-return]


def measure(
    plaid: FakePlaid, issuer: FakeAuth0, inputs: Inputs = FULL, *, starting_position: str | None = None
) -> Measurements:
    """Run every phase against the configured local endpoint and fakes; return what was charged."""
    from ops.fakes.plaid import webhooks

    harness = Harness(plaid, issuer, inputs, starting_position)
    history_seed, typical_seed = (None, None) if inputs.seed is None else (inputs.seed, inputs.seed + 1)
    facts: dict[str, int] = {}
    with harness.metering() as meter:
        history_user, typical_user = (f"capacity-{uuid.uuid4().hex[:15]}" for _ in range(2))
        # The ordinary item's first mine, unmeasured, is also the warm-up: after it, per-container caches
        # (queue URLs, Plaid's webhook key, the issuer's keys) are warm, as in a steady state.
        harness.warm_queue_urls()
        typical_count = inputs.typical_per_day * inputs.typical_history_days
        typical = harness.link(typical_user, typical_count, inputs.typical_history_days, typical_seed)
        harness.webhook(webhooks.transactions_update(typical.item_id, "HISTORICAL_UPDATE"))
        harness.get(API_ACCOUNTS, f"/v1/users/{typical_user}/accounts", typical_user)
        forecast_user = f"capacity-{uuid.uuid4().hex[:15]}"
        forecast_count = inputs.typical_per_day * inputs.forecast_history_days
        forecast_seed = None if inputs.seed is None else inputs.seed + 2
        forecasted = harness.link(forecast_user, forecast_count, inputs.forecast_history_days, forecast_seed)
        harness.webhook(webhooks.transactions_update(forecasted.item_id, "HISTORICAL_UPDATE"))

        history = harness.link(history_user, inputs.history_transactions, inputs.history_days, history_seed)
        with harness.phase(HISTORY):
            harness.webhook(webhooks.transactions_update(history.item_id, "HISTORICAL_UPDATE"))

        gone, _posted = plaid.post_pending(typical.access_token)
        facts["settled"] = len(gone)
        if not gone:  # no pending row to settle: Plaid retracts two recent ones instead
            gone = plaid.remove_transactions(
                typical.access_token, [t["transaction_id"] for t in typical.transactions[:2]]
            )
        plaid.add_transactions(typical.access_token, inputs.new_per_update)
        with harness.phase(REMOVAL):
            harness.webhook(webhooks.transactions_removed(typical.item_id, gone))
        with harness.phase(UPDATE):
            harness.webhook(webhooks.transactions_update(typical.item_id, new_transactions=inputs.new_per_update))

        harness.load_categories()
        with harness.phase(API):
            page = harness.get(
                API_TRANSACTIONS, f"/v1/users/{history_user}/transactions?limit={inputs.api_page_limit}", history_user
            )
            listed = harness.get(API_ACCOUNTS, f"/v1/users/{history_user}/accounts", history_user)
            tree = harness.get(API_CATEGORIES, "/v1/categories", history_user)
        with harness.phase(FORECAST):
            facts.update(harness.forecast(forecast_user))
        harness.insight_writes(f"capacity-{uuid.uuid4().hex[:15]}")
        facts.update(
            removed=len(gone),
            page_rows=len(page["transactions"]),
            accounts=len(listed["accounts"]),
            category_rows=len(tree["categories"]),
        )
    meter.charge_plaid_calls([(c.at, c.endpoint) for c in plaid.calls()])
    return Measurements(
        inputs, dict(meter.usage), dict(meter.sizes), dict(meter.index_copies), dict(meter.index_key_bytes), facts
    )


#: Caches a warm container keeps whoever calls: the Fed calendar, the schedule engine's dates,
#: the income model's weights.
_CONTAINER_CACHES = ("chalicelib.insight.calendar", "chalicelib.insight.schedule", "chalicelib.insight.income.model")


def forget_users() -> None:
    """Empty the insight models' caches of what users' lines taught them (payee words and keys,
    line tests, dates read): a timed call then costs what a user's first call in a warm
    container costs, not what the same user's tenth does."""
    for name, module in list(sys.modules.items()):
        if not name.startswith("chalicelib.insight.") or name.startswith(_CONTAINER_CACHES):
            continue
        for value in vars(module).values():
            if getattr(value, "__module__", None) == name and callable(getattr(value, "cache_clear", None)):
                value.cache_clear()
