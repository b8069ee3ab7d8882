"""Invoking handlers as Lambda does: context, response rules, timeouts, progress (no AWS)."""

from __future__ import annotations

import time
from typing import Any

import pytest
from chalice import Chalice

from ops.runtime import Invocation, LambdaContext, UnknownFunctionError
from ops.runtime.invoker import Invoker, judge_response

IDS = ["m-1", "m-2", "m-3"]


@pytest.mark.parametrize("response", [None, {}, {"batchItemFailures": []}, {"batchItemFailures": None}])
def test_these_responses_mean_the_whole_batch_succeeded(response: Any) -> None:
    assert judge_response(response, IDS).ok


def test_named_failures_fail_only_those_records() -> None:
    outcome = judge_response({"batchItemFailures": [{"itemIdentifier": "m-2"}]}, IDS)
    assert outcome.failed == {"m-2"}
    assert outcome.succeeded("m-1") and not outcome.succeeded("m-2")


@pytest.mark.parametrize(
    "response",
    [
        {"batchItemFailures": [{"itemIdentifier": "m-9"}]},  # not in the batch
        {"batchItemFailures": [{"itemIdentifier": ""}]},
        {"batchItemFailures": [{"itemIdentifier": None}]},
        {"batchItemFailures": [{"messageId": "m-1"}]},  # wrong key
        {"batchItemFailures": "m-1"},
        ["m-1"],
        {"batchItemFailures": [{"itemIdentifier": "m-1"}], "when": object()},  # not serialisable
    ],
)
def test_invalid_responses_fail_the_whole_batch(response: Any) -> None:
    outcome = judge_response(response, IDS)
    assert outcome.error is not None
    assert not any(outcome.succeeded(i) for i in IDS)


def recording_app(seen: list[tuple[dict[str, Any], Any]], sleep: float = 0.0) -> Chalice:
    app = Chalice(app_name="rt-invoke", configure_logs=False)

    @app.lambda_function(name="work")
    def work(event: dict[str, Any], context: Any) -> None:
        seen.append((event, context))
        event["Records"].clear()  # a handler mutating its event must not affect a redelivery
        time.sleep(sleep)

    return app


def test_the_handler_gets_a_lambda_context_and_a_private_copy_of_the_event() -> None:
    # GIVEN an invoker with the duplicate knob
    seen: list[tuple[dict[str, Any], Any]] = []
    reports: list[Invocation] = []
    invoker = Invoker(
        recording_app(seen), "dev", "us-east-1", {"work": 30}, duplicate_delivery=True, on_invocation=reports.append
    )
    # WHEN a batch is delivered
    outcome = invoker.deliver_batch("work", "sqs:q", [{"messageId": "m-1"}], ["m-1"])
    # THEN both deliveries got the full event, and a context named and timed like Lambda's
    assert outcome.ok
    assert [event["Records"] for event, _ in seen] == [[], []]  # each copy was mutated, not shared
    context = seen[0][1]
    assert isinstance(context, LambdaContext)
    assert context.function_name == "rt-invoke-dev-work"
    assert context.invoked_function_arn == "arn:aws:lambda:us-east-1:123456789012:function:rt-invoke-dev-work"
    assert 29_000 < context.get_remaining_time_in_millis() <= 30_000
    assert seen[0][1].aws_request_id != seen[1][1].aws_request_id
    # AND the progress callback heard of both, the first marked as discarded
    assert [(r.function, r.records, r.discarded) for r in reports] == [("work", 1, True), ("work", 1, False)]


def test_a_run_longer_than_the_timeout_fails_the_batch_even_if_it_returned() -> None:
    invoker = Invoker(recording_app([], sleep=1.05), "dev", "us-east-1", {"work": 1})
    outcome = invoker.deliver_batch("work", "kinesis:s", [{"n": 1}], ["1"])
    assert outcome.error is not None and "timed out" in outcome.error
    assert invoker.stats["work"].errors == 1


def test_unknown_functions_are_reported_by_name() -> None:
    invoker = Invoker(recording_app([]), "dev", "us-east-1", {})
    with pytest.raises(UnknownFunctionError, match="nope"):
        invoker.deliver_batch("nope", "sqs:q", [], [])
