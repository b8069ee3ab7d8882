"""Reading the app's event sources and the declaration's options."""

from __future__ import annotations

import subprocess
import sys
import uuid
from typing import Any

import pytest
from chalice import Chalice

from chalicelib.infra.consumers import dynamodb_stream_consumer, kinesis_consumer, sqs_consumer
from chalicelib.infra.declaration import Infrastructure, declare
from ops.runtime import EventRuntime, RuntimeConfigError, SourceNotFoundError
from ops.runtime.discovery import discover
from tests.conftest import ROOT
from tests.runtime.factories import Recorder, build_app, declaration_for, ok


def declared_app() -> Chalice:
    """Handlers registered the way app.py does, through the declaration's decorators."""
    app = Chalice(app_name="txn", configure_logs=False)

    def handler(event: Any) -> None:
        return None

    sqs_consumer(app, "mine_webhooks")(handler)
    kinesis_consumer(app, "refine_transactions")(handler)
    dynamodb_stream_consumer(app, "feed_transactions_table")(handler)
    dynamodb_stream_consumer(app, "feed_plaid_table")(handler)
    return app


def test_options_come_from_the_app_and_the_declaration() -> None:
    # GIVEN the real declaration and an app registered through its decorators
    infra = declare()
    sources = discover(declared_app(), infra)
    # THEN queue, stream and batch sizes come from the app, filters/bisect/timeouts from the declaration
    (webhooks,) = sources.sqs
    assert (webhooks.queue_name, webhooks.batch_size) == (infra.queue("WebhooksQueue").name, 10)
    assert webhooks.options.timeout == 120
    (refiner,) = sources.kinesis
    assert refiner.stream_name == infra.stream("TransactionsStream").name
    assert (refiner.batch_size, refiner.starting_position, refiner.options.bisect_on_error) == (
        10,
        "TRIM_HORIZON",
        True,
    )
    feeders = {s.function: s for s in sources.dynamodb}
    # the registered stream ARN is a placeholder; the declared table is what gets read
    assert feeders["feed_transactions_table"].table_name == infra.table("TransactionsTable").name
    assert feeders["feed_plaid_table"].table_name == infra.table("PlaidTable").name
    assert len(feeders["feed_transactions_table"].options.filters.patterns) == 2
    assert len(feeders["feed_plaid_table"].options.filters.patterns) == 2
    # AND every declared table with a ttl attribute is swept
    assert {t.name for t in sources.ttl_tables} == {t.name for t in infra.tables if t.ttl_attribute}
    assert {t.name for t in sources.ttl_tables} >= {
        infra.table("TransactionsTable").name,
        infra.table("PlaidTable").name,
        infra.table("PaveTable").name,
    }


def test_undeclared_functions_get_lambda_defaults() -> None:
    app = Chalice(app_name="x", configure_logs=False)
    app.on_dynamodb_record(stream_arn="arn:aws:dynamodb:us-east-1:1:table/other/stream/2026", name="elsewhere")(ok)
    (spec,) = discover(app, declaration_for("x")).dynamodb
    assert (spec.table_name, spec.options.bisect_on_error, spec.options.filters.patterns) == ("other", False, ())
    assert spec.options.timeout == 60


def test_a_registration_contradicting_the_declaration_is_refused() -> None:
    app = Chalice(app_name="x", configure_logs=False)
    app.on_sqs_message(queue="q", name="on_stream")(ok)  # declared as a Kinesis consumer
    with pytest.raises(RuntimeConfigError, match="on_stream"):
        discover(app, declaration_for("x"))


def test_functions_limits_the_runtime_and_unknown_names_are_refused(infra: Infrastructure) -> None:
    app = build_app(infra, Recorder(), on_queue=ok, on_stream=ok)
    assert [s.function for s in discover(app, infra, functions=["on_stream"]).kinesis] == ["on_stream"]
    assert discover(app, infra, functions=["on_stream"]).sqs == ()
    with pytest.raises(RuntimeConfigError, match="typo"):
        discover(app, infra, functions=["typo"])


@pytest.mark.integration
def test_the_declared_consumers_resolve_against_the_bootstrapped_endpoint(aws_endpoint: str) -> None:
    # GIVEN the bootstrapped local endpoint WHEN a runtime starts for the declared consumers
    runtime = EventRuntime(declared_app())
    # THEN every source resolved (queues, stream, both tables' streams) without consuming anything,
    # and every table with a ttl is swept
    ttl_tables = [t for t in declare().tables if t.ttl_attribute]
    assert len(runtime.describe()) == 4 + len(ttl_tables)
    assert runtime.stats == {}


@pytest.mark.integration
def test_a_missing_queue_fails_at_start(aws_endpoint: str) -> None:
    infra = declaration_for(uuid.uuid4().hex[:10])  # never bootstrapped
    with pytest.raises(SourceNotFoundError, match=infra.queues[0].name):
        EventRuntime(build_app(infra, Recorder(), on_queue=ok), infra)


def test_the_runtime_refuses_to_run_without_a_local_endpoint(monkeypatch: pytest.MonkeyPatch) -> None:
    from chalicelib.settings import reset_settings

    monkeypatch.delenv("AWS_ENDPOINT_URL")
    reset_settings()
    try:
        with pytest.raises(RuntimeConfigError, match="AWS_ENDPOINT_URL"):
            EventRuntime(Chalice(app_name="x"), declaration_for("x"))
    finally:
        monkeypatch.undo()
        reset_settings()


def test_the_command_line_entry_point_starts() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "ops.runtime", "--help"], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0
    assert "--visibility-timeout" in done.stdout and "--duplicate" in done.stdout


@pytest.mark.integration
def test_the_real_app_starts_with_every_event_source_deliverable(aws_endpoint: str) -> None:
    import app

    runtime = EventRuntime(app.app)
    assert runtime.sources.unsupported == ()
    registered = {c.name for c in app.app.event_sources}
    described = {line.split("-> ")[1].split(" ")[0] for line in runtime.describe() if "-> " in line}
    assert described == registered
