"""Alarms, the dashboard and the API's limits in the merge template, checked as data (no AWS).

Each alarm is checked twice: against the declaration it renders (parametrised over every
alarm: metric, dimensions, threshold, action, runbook), and for the alarms an operator relies
on most, against the values written out here, so a change to the declaration that weakens an
alarm has to change this file too.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from chalice import Chalice, Cron

from chalicelib.infra import cloudformation as cfn
from chalicelib.infra import monitoring as mon
from chalicelib.infra.declaration import Infrastructure, declare
from chalicelib.infra.monitoring_template import (
    DASHBOARD,
    MAX_DESCRIPTION,
    REST_API,
    dashboard_body,
    description,
    monitoring_template,
)
from tests.infra import sample_app
from tests.infra.support import settings_for_stage

ROOT = Path(__file__).resolve().parents[2]
OPERATIONS = (ROOT / "docs" / "operations.md").read_text()
CAPACITY = (ROOT / "docs" / "capacity.md").read_text()
TOPIC = [{"Ref": mon.ALARM_TOPIC_PARAMETER}]

INFRA = declare()
MONITORING = cfn.app_monitoring(INFRA, sample_app.app)
TEMPLATE = cfn.merge_template(INFRA, sample_app.app)
RESOURCES = TEMPLATE["Resources"]
FUNCTIONS = {name: cfn.function_logical_id(name) for name in cfn.lambda_function_names(sample_app.app)}


def anchors(markdown: str) -> set[str]:
    """GitHub's anchors for the headings of a Markdown document."""
    found = set()
    for line in markdown.splitlines():
        if line.startswith("#"):
            title = line.lstrip("#").strip().lower()
            found.add(re.sub(r"\s", "-", re.sub(r"[^\w\s-]", "", title)))
    return found


def dimensions(metric: mon.Metric) -> list[dict[str, Any]]:
    def value(v: mon.DimensionValue) -> Any:
        if isinstance(v, mon.Ref):
            return {"Ref": v.logical_id}
        if isinstance(v, mon.Attr):
            return {"Fn::GetAtt": [v.logical_id, v.attribute]}
        return v

    return [{"Name": n, "Value": value(v)} for n, v in metric.dimensions]


# --- every alarm, as declared ---------------------------------------------------------------


@pytest.mark.parametrize("alarm", MONITORING.alarms, ids=lambda a: a.logical_id)
def test_each_alarm_watches_its_metric_with_its_threshold_and_notifies_the_topic(alarm: mon.Alarm) -> None:
    resource = RESOURCES[alarm.logical_id]
    props = resource["Properties"]
    assert resource["Type"] == "AWS::CloudWatch::Alarm"
    # THEN it notifies the topic of the parameter when it fires and when it clears
    assert props["AlarmActions"] == props["OKActions"] == TOPIC
    assert props["ActionsEnabled"] is True
    assert (props["Threshold"], props["ComparisonOperator"]) == (alarm.threshold, alarm.comparison)
    assert props["EvaluationPeriods"] == alarm.evaluation_periods
    assert props["DatapointsToAlarm"] == alarm.datapoints_to_alarm
    assert props["TreatMissingData"] == alarm.missing_data
    # AND it reads exactly the declared metric(s), with their dimensions
    single = alarm.single_metric
    if single is not None:
        assert (props["Namespace"], props["MetricName"]) == (single.namespace, single.name)
        assert props["Dimensions"] == dimensions(single)
        assert props.get("Statistic", props.get("ExtendedStatistic")) == single.stat
        assert props["Period"] == alarm.period
    else:
        queries = {q["Id"]: q for q in props["Metrics"]}
        assert [q["Id"] for q in props["Metrics"] if q["ReturnData"]] == ["result"]
        assert queries["result"]["Expression"] == alarm.expression
        assert len(alarm.metrics) <= 10, "CloudWatch allows at most 10 metrics in an alarm's math"
        for metric_id, metric in alarm.metrics:
            stat = queries[metric_id]["MetricStat"]
            assert stat["Metric"] == {
                "Namespace": metric.namespace,
                "MetricName": metric.name,
                "Dimensions": dimensions(metric),
            }
            assert (stat["Stat"], stat["Period"]) == (metric.stat, alarm.period)
            assert re.search(rf"\b{metric_id}\b", alarm.expression or "")
    # AND its description says what it means and where the runbook is
    assert props["AlarmDescription"] == description(alarm)
    assert len(props["AlarmDescription"]) <= MAX_DESCRIPTION
    assert alarm.runbook in anchors(OPERATIONS), f"docs/operations.md has no section #{alarm.runbook}"


def test_every_alarm_has_a_section_in_operations_md_naming_it() -> None:
    for alarm in MONITORING.alarms:
        generated = alarm.logical_id.endswith(("ErrorsAlarm", "ThrottlesAlarm", "ThrottleAlarm", "IteratorAgeAlarm"))
        generated = generated or alarm.logical_id.endswith("DlqMessagesAlarm")
        if not generated:
            assert f"`{alarm.logical_id}`" in OPERATIONS, f"{alarm.logical_id} is not described in operations.md"


# --- the alarms generated from the declaration ----------------------------------------------


def test_every_dlq_has_an_alarm_on_any_visible_message() -> None:
    for queue in INFRA.queues:
        props = RESOURCES[f"{queue.dlq_logical_id}MessagesAlarm"]["Properties"]
        assert (props["Namespace"], props["MetricName"], props["Statistic"]) == (
            "AWS/SQS",
            "ApproximateNumberOfMessagesVisible",
            "Maximum",
        )
        assert props["Dimensions"] == [
            {"Name": "QueueName", "Value": {"Fn::GetAtt": [queue.dlq_logical_id, "QueueName"]}}
        ]
        assert (props["Threshold"], props["ComparisonOperator"]) == (1, "GreaterThanOrEqualToThreshold")


def test_stream_consumers_alarm_on_iterator_age_long_before_records_expire() -> None:
    consumers = mon.stream_consumers(INFRA, FUNCTIONS)
    assert {f for f, _ in consumers} >= {"refine_transactions", "feed_transactions_table", "feed_plaid_table"}
    for function, _ in consumers:
        props = RESOURCES[f"{FUNCTIONS[function]}IteratorAgeAlarm"]["Properties"]
        assert (props["MetricName"], props["Statistic"]) == ("IteratorAge", "Maximum")
        assert props["Dimensions"] == [{"Name": "FunctionName", "Value": {"Ref": FUNCTIONS[function]}}]
        assert props["Threshold"] == 3_600_000
        # it fires within 1 h 15 min of falling behind: under a tenth of the 24 h the records live
        fires_after_ms = props["Threshold"] + props["EvaluationPeriods"] * props["Period"] * 1000
        assert fires_after_ms <= INFRA.streams[0].retention_hours * 3_600_000 / 10


def test_every_function_of_the_app_gets_errors_and_throttles_alarms_even_one_added_later() -> None:
    # GIVEN an app with a route, a schedule and a function nobody declared alarms for
    app = Chalice(app_name="txn")

    @app.route("/health")
    def health() -> dict[str, str]:
        return {}

    @app.schedule(Cron(0, 0, "*", "*", "?", "*"), name="nightly_job")
    def nightly(event: Any) -> None:
        return None

    @app.lambda_function(name="new_insight_consumer")
    def new(event: Any, context: Any) -> None:
        return None

    # WHEN its monitoring is declared
    alarms = {a.logical_id: a for a in cfn.app_monitoring(INFRA, app).alarms}
    # THEN each of its functions has both alarms, on the function the package names
    for function, logical_id in (
        ("api_handler", "APIHandler"),
        ("nightly_job", "NightlyJob"),
        ("new_insight_consumer", "NewInsightConsumer"),
    ):
        for kind in ("Errors", "Throttles"):
            metric = alarms[f"{logical_id}{kind}Alarm"].single_metric
            assert metric is not None and (metric.name, metric.dimension_map()) == (
                kind,
                {"FunctionName": mon.Ref(logical_id)},
            ), function


def test_the_sample_apps_functions_are_all_watched() -> None:
    # every declared consumer, the routes' function and the weekly sync
    assert set(FUNCTIONS) == {c.function for c in INFRA.consumers} | {"api_handler", "sync_institutions"}
    for logical_id in FUNCTIONS.values():
        assert RESOURCES[f"{logical_id}ErrorsAlarm"]["Properties"]["Threshold"] == 1
        throttles = RESOURCES[f"{logical_id}ThrottlesAlarm"]["Properties"]
        assert (throttles["EvaluationPeriods"], throttles["DatapointsToAlarm"]) == (3, 2)


def test_every_table_alarms_on_throttled_reads_and_writes_of_the_table_and_each_index() -> None:
    for table in INFRA.tables:
        alarm = MONITORING.alarm(f"{table.logical_id}ThrottleAlarm")
        watched = {(m.name, m.dimension_map().get("GlobalSecondaryIndexName")) for _, m in alarm.metrics}
        indexes = [None, *(index.name for index in table.indexes)]
        assert watched == {(e, i) for e in ("ReadThrottleEvents", "WriteThrottleEvents") for i in indexes}
        names = {m.dimension_map()["TableName"] for _, m in alarm.metrics}
        assert names == {table.name if table.shared or table.external else mon.Ref(table.logical_id)}
        assert (alarm.threshold, alarm.evaluation_periods, alarm.datapoints_to_alarm) == (1, 3, 3)


def test_table_alarms_name_the_hot_keys_of_the_capacity_model() -> None:
    hot = description(MONITORING.alarm("TransactionsTableThrottleAlarm"))
    for key in ("CATEGORIES", "REMOVE (GSI1", "ACCOUNTS#<user> (GSI1", "ACCOUNTS#<user>#ACCOUNT#<acct>"):
        assert key in hot
    # every key named is one docs/capacity.md's hot partitions name
    partitions = CAPACITY[CAPACITY.index("## Hot partitions") : CAPACITY.index("## What changes first")]
    for keys in mon.HOT_KEYS.values():
        for key in keys:
            first = key.split(" ")[0]
            assert first in partitions or first.split(":")[0] in OPERATIONS, key


def test_a_table_pinned_to_another_region_is_watched_only_by_the_stack_in_that_region() -> None:
    prod = declare(settings_for_stage("prod"))
    alarms = cfn.app_monitoring(prod, Chalice(app_name="txn")).alarms
    rendered = monitoring_template(
        mon.Monitoring(alarms, (), mon.DEFAULT_THROTTLING, "txn-prod", "api"), with_rest_api=False
    )
    alarm = rendered["Resources"]["AccountChangesTableThrottleAlarm"]
    assert alarm["Condition"] == "StackInUsEast1"
    assert rendered["Conditions"]["StackInUsEast1"] == {"Fn::Equals": [{"Ref": "AWS::Region"}, "us-east-1"]}
    assert "Condition" not in rendered["Resources"]["TransactionsTableThrottleAlarm"]


# --- the service's own metrics, as an operator relies on them -----------------------------


SERVICE_ALARMS: dict[str, tuple[str, dict[str, str], float, str]] = {
    # alarm: (metric, dimensions, threshold, comparison)
    "RefinerSkippedRecordsAlarm": (
        "txn.refiner.record.failed",
        {"result": "skipped"},
        1,
        "GreaterThanOrEqualToThreshold",
    ),
    "ItemRemovalStepFailuresAlarm": ("txn.item.removal.failed", {}, 5, "GreaterThanOrEqualToThreshold"),
    "WebhookUnauthorizedBurstAlarm": ("txn.webhook.unauthorized", {}, 10, "GreaterThanOrEqualToThreshold"),
    "IntakeVerificationUnavailableAlarm": (
        "txn.intake.failed",
        {"reason": "verification_unavailable"},
        3,
        "GreaterThanOrEqualToThreshold",
    ),
    "IntakeWebhookNotQueuedAlarm": (
        "txn.intake.failed",
        {"reason": "webhook_not_queued"},
        1,
        "GreaterThanOrEqualToThreshold",
    ),
    "IntakeInternalErrorAlarm": ("txn.intake.failed", {"reason": "internal_error"}, 1, "GreaterThanOrEqualToThreshold"),
    "PlaidInvalidApiKeysAlarm": (
        "plaid.request.failed",
        {"error_type": "INVALID_INPUT", "error_code": "INVALID_API_KEYS"},
        1,
        "GreaterThanOrEqualToThreshold",
    ),
    "BalanceAlertLockContentionAlarm": ("insight.lock", {"outcome": "busy"}, 3, "GreaterThanOrEqualToThreshold"),
    "UnreadableRowsAlarm": ("data.row.unreadable", {}, 1, "GreaterThanOrEqualToThreshold"),
    "WebhookSilenceAlarm": ("txn.webhook.received", {}, 1, "LessThanThreshold"),
}


@pytest.mark.parametrize("logical_id", sorted(SERVICE_ALARMS))
def test_service_metric_alarms_watch_what_the_code_emits(logical_id: str) -> None:
    name, dims, threshold, comparison = SERVICE_ALARMS[logical_id]
    props = RESOURCES[logical_id]["Properties"]
    assert (props["Namespace"], props["MetricName"], props["Statistic"]) == ("txn", name, "Sum")
    assert {d["Name"]: d["Value"] for d in props["Dimensions"]} == {"service": "txn", **dims}
    assert (props["Threshold"], props["ComparisonOperator"], props["AlarmActions"]) == (threshold, comparison, TOPIC)


def test_silence_is_judged_over_the_hours_the_parameter_allows_and_no_data_counts_as_silence() -> None:
    props = RESOURCES["WebhookSilenceAlarm"]["Properties"]
    assert props["Period"] == 3600
    assert props["EvaluationPeriods"] == props["DatapointsToAlarm"] == {"Ref": mon.SILENCE_PARAMETER}
    assert props["TreatMissingData"] == "breaching"
    parameter = TEMPLATE["Parameters"][mon.SILENCE_PARAMETER]
    assert (parameter["Type"], parameter["Default"], parameter["MinValue"], parameter["MaxValue"]) == (
        "Number",
        1,
        1,
        24,
    )


def test_listener_failures_sum_both_stages() -> None:
    props = RESOURCES["ListenerFailuresAlarm"]["Properties"]
    stages = {
        next(d["Value"] for d in q["MetricStat"]["Metric"]["Dimensions"] if d["Name"] == "stage")
        for q in props["Metrics"]
        if "MetricStat" in q
    }
    assert stages == {"message", "item"}
    assert (props["Threshold"], props["Metrics"][-1]["Expression"]) == (5, "SUM([FILL(m1, 0), FILL(m2, 0)])")


@pytest.mark.parametrize(
    ("logical_id", "types", "percent"),
    [
        ("PlaidApiErrorRateAlarm", {"API_ERROR"}, 5),
        ("PlaidRateLimitRateAlarm", {"RATE_LIMIT_EXCEEDED"}, 2),
        ("PlaidTransportErrorRateAlarm", {"TIMEOUT", "CONNECTION"}, 5),
        ("PlaidInvalidRequestRateAlarm", {"INVALID_REQUEST", "BAD_RESPONSE"}, 1),
    ],
)
def test_plaid_error_rates_divide_failures_of_each_type_by_calls(
    logical_id: str, types: set[str], percent: float
) -> None:
    props = RESOURCES[logical_id]["Properties"]
    metrics = {q["Id"]: q["MetricStat"]["Metric"] for q in props["Metrics"] if "MetricStat" in q}
    failed = {
        d["Value"]
        for m in metrics.values()
        if m["MetricName"] == "plaid.request.failed"
        for d in m["Dimensions"]
        if d["Name"] == "error_type"
    }
    assert failed == types
    assert metrics["sent"]["MetricName"] == "plaid.request.sent"
    assert (props["Threshold"], props["ComparisonOperator"]) == (percent, "GreaterThanThreshold")
    assert props["Metrics"][-1]["Expression"].startswith(f"IF(sent >= {mon.MIN_CALLS_FOR_A_RATE}, 100 * (")


def test_pave_alarms_watch_its_statuses() -> None:
    def statuses(logical_id: str) -> set[str]:
        props = RESOURCES[logical_id]["Properties"]
        return {
            d["Value"]
            for q in props["Metrics"]
            if "MetricStat" in q and q["MetricStat"]["Metric"]["MetricName"] == "peer.request.failed"
            for d in q["MetricStat"]["Metric"]["Dimensions"]
            if d["Name"] == "status"
        }

    assert statuses("PaveServerErrorRateAlarm") == {"500", "502", "503", "504", "none"}
    assert statuses("PaveRateLimitedRateAlarm") == {"429"}
    assert statuses("PaveAuthFailuresAlarm") == {"401", "403"}


def test_pave_requests_given_up_sum_the_miners_outcomes_that_end_a_request_unmined() -> None:
    from chalicelib.insight.pave_miner import Outcome

    props = RESOURCES["PaveRequestsGivenUpAlarm"]["Properties"]
    outcomes = {
        d["Value"]
        for q in props["Metrics"]
        if "MetricStat" in q and q["MetricStat"]["Metric"]["MetricName"] == "insight.pave.poll"
        for d in q["MetricStat"]["Metric"]["Dimensions"]
        if d["Name"] == "outcome"
    }
    assert outcomes == {Outcome.FAILED.value, Outcome.TIMED_OUT.value, Outcome.UNKNOWN_REQUEST.value}
    assert (props["Threshold"], props["Metrics"][-1]["Expression"]) == (
        3,
        "SUM([FILL(m1, 0), FILL(m2, 0), FILL(m3, 0)])",
    )
    assert all(q["MetricStat"]["Period"] == 900 for q in props["Metrics"] if "MetricStat" in q)


def test_the_api_alarms_watch_this_stages_api_by_name() -> None:
    errors = RESOURCES["ApiServerErrorRateAlarm"]["Properties"]
    for query in errors["Metrics"][:-1]:
        assert query["MetricStat"]["Metric"]["Dimensions"] == [
            {"Name": "ApiName", "Value": f"txn-{INFRA.stage}"},
            {"Name": "Stage", "Value": "api"},
        ]
    assert {q["MetricStat"]["Metric"]["MetricName"] for q in errors["Metrics"][:-1]} == {"5XXError", "Count"}
    assert errors["Threshold"] == 1
    latency = RESOURCES["ApiLatencyP99Alarm"]["Properties"]
    assert (latency["MetricName"], latency["ExtendedStatistic"], latency["Threshold"]) == ("Latency", "p99", 3000)
    assert latency["EvaluateLowSampleCountPercentile"] == "ignore"


# --- parameters ---------------------------------------------------------------------------


def test_the_alarm_topic_is_a_required_parameter() -> None:
    parameter = TEMPLATE["Parameters"][mon.ALARM_TOPIC_PARAMETER]
    assert "Default" not in parameter
    pattern = re.compile(parameter["AllowedPattern"])
    assert pattern.fullmatch("arn:aws:sns:us-east-1:123456789012:txn-prod-alarms")
    assert not pattern.fullmatch("txn-prod-alarms")


# --- the dashboard ------------------------------------------------------------------------


def dashboard() -> tuple[str, dict[str, Any]]:
    body = RESOURCES[DASHBOARD]["Properties"]["DashboardBody"]["Fn::Sub"]
    return body, json.loads(body)


def test_the_dashboard_names_only_resources_of_the_template() -> None:
    body, _ = dashboard()
    known = set(RESOURCES) | set(FUNCTIONS.values())
    for reference in re.findall(r"\$\{([^}]+)\}", body):
        if reference.startswith("AWS::"):
            assert reference == "AWS::Region"
            continue
        logical_id, _, attribute = reference.partition(".")
        assert logical_id in known, reference
        assert attribute in ("", "Arn", "QueueName"), reference


def test_the_dashboard_reads_only_metrics_the_monitoring_knows_the_code_emits() -> None:
    _, document = dashboard()
    watched = {
        (m.name, tuple(sorted((k, v) for k, v in m.dimensions if isinstance(v, str))))
        for m in MONITORING.service_metrics()
    }
    searched = {s.expression(mon.FIVE_MINUTES) for s in MONITORING.searches()}
    drawn = 0
    for widget in document["widgets"]:
        if widget["type"] != "metric":
            continue
        for row in widget["properties"]["metrics"]:
            if isinstance(row[0], dict):
                expression = row[0]["expression"]
                assert expression in searched or not expression.startswith("SEARCH"), expression
                continue
            drawn += 1
            if row[0] == "txn":
                name, pairs = row[1], row[2:-1]
                dims = tuple(sorted(zip(pairs[::2], pairs[1::2], strict=True)))
                assert (name, dims) in watched, (name, dims)
    assert drawn > 20


def test_the_dashboard_has_every_view_an_operator_asked_for() -> None:
    titles = [w.title for w in MONITORING.dashboard]
    for wanted in (
        "Webhooks in, by type and code",
        "Queue depth (visible messages)",
        "Oldest message age (seconds)",
        "Stream consumers' iterator age (ms)",
        "Refined transactions per second",
        "Refiner: skipped and retried records",
        "Plaid errors by type and code",
        "API: requests, 4xx, 5xx",
        "API latency (ms)",
    ):
        assert wanted in titles
    depth = next(w for w in MONITORING.dashboard if w.title == "Queue depth (visible messages)")
    assert len(depth.metrics) == 2 * len(INFRA.queues)


def test_the_alarm_widget_lists_every_alarm_the_stack_always_creates() -> None:
    _, document = dashboard()
    [widget] = [w for w in document["widgets"] if w["type"] == "alarm"]
    listed = {a.removeprefix("${").removesuffix(".Arn}") for a in widget["properties"]["alarms"]}
    assert listed == {a.logical_id for a in MONITORING.alarms if not a.region}
    assert len(listed) <= 100


def test_the_dashboard_body_is_the_rendering_of_the_declaration() -> None:
    _, document = dashboard()
    ids = [a.logical_id for a in MONITORING.alarms if not a.region]
    assert document == dashboard_body(MONITORING, ids)


# --- limits -------------------------------------------------------------------------------


@pytest.mark.parametrize(("stage", "rate", "burst"), [("dev", 50.0, 100), ("prod", 500.0, 1000)])
def test_the_stage_is_throttled_per_chalice_stage(stage: str, rate: float, burst: int) -> None:
    infra: Infrastructure = declare(settings_for_stage(stage))
    app = Chalice(app_name="txn")

    @app.route("/health")
    def health() -> dict[str, str]:
        return {}

    override = monitoring_template(cfn.app_monitoring(infra, app), with_rest_api=True)["Resources"][REST_API]
    assert override["Properties"]["MethodSettings"] == [
        {"ResourcePath": "/*", "HttpMethod": "*", "ThrottlingRateLimit": rate, "ThrottlingBurstLimit": burst}
    ]
    assert override["Properties"]["Name"] == f"txn-{stage}"
    assert override["Properties"]["DefinitionBody"] == {"info": {"title": f"txn-{stage}"}}


def test_an_app_without_routes_gets_no_api_override() -> None:
    app = Chalice(app_name="txn")
    assert (
        REST_API not in monitoring_template(cfn.app_monitoring(INFRA, app), with_rest_api=bool(app.routes))["Resources"]
    )
