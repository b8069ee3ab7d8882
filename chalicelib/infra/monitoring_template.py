"""The monitoring declaration rendered for the merge template: alarms, the dashboard, API limits.

* every :class:`~chalicelib.infra.monitoring.Alarm` becomes an ``AWS::CloudWatch::Alarm`` that
  notifies the SNS topic of the ``AlarmTopicArn`` parameter when it fires and when it clears;
* the dashboard is one ``AWS::CloudWatch::Dashboard`` whose body names the stack's own
  resources through ``Fn::Sub``;
* the stage's throttling goes onto the REST API Chalice generates (``RestAPI``, an
  ``AWS::Serverless::Api``): Chalice's config has no setting for it, but SAM's ``MethodSettings``
  (``/*`` ``*``: every method of the stage) reaches the stage it creates. The API is named
  ``<app>-<stage>`` (``Name`` and the definition's title) so its metrics (dimension
  ``ApiName``) are this stage's alone.
"""

from __future__ import annotations

import json
import re
from typing import Any

from chalicelib.infra.monitoring import (
    ALARM_TOPIC_PARAMETER,
    DEFAULT_SILENCE_HOURS,
    SILENCE_PARAMETER,
    Alarm,
    Attr,
    DimensionValue,
    Metric,
    Monitoring,
    Ref,
    Widget,
)

#: Chalice's logical id for the REST API of an app with routes.
REST_API = "RestAPI"
DASHBOARD = "OperationsDashboard"
#: Where an alarm's description sends the reader.
RUNBOOK = "docs/operations.md#"
#: CloudWatch's limit on an alarm description.
MAX_DESCRIPTION = 1024
#: Dashboard widgets per row (24 columns, 12 each).
_WIDGET_WIDTH, _WIDGET_HEIGHT = 12, 6


def region_condition(region: str) -> str:
    """The condition true in stacks deployed to ``region`` (for alarms on a region-pinned table)."""
    return "StackIn" + re.sub(r"[^A-Za-z0-9]", "", region.title())


def alarm_actions() -> list[dict[str, str]]:
    return [{"Ref": ALARM_TOPIC_PARAMETER}]


def _dimension_value(value: DimensionValue) -> Any:
    if isinstance(value, Ref):
        return {"Ref": value.logical_id}
    if isinstance(value, Attr):
        return {"Fn::GetAtt": [value.logical_id, value.attribute]}
    return value


def _dimensions(metric: Metric) -> list[dict[str, Any]]:
    return [{"Name": name, "Value": _dimension_value(value)} for name, value in metric.dimensions]


def description(alarm: Alarm) -> str:
    return f"{alarm.meaning} Runbook: {RUNBOOK}{alarm.runbook}"


def alarm_resource(alarm: Alarm) -> dict[str, Any]:
    properties: dict[str, Any] = {
        "AlarmName": {"Fn::Sub": "${AWS::StackName}-" + alarm.logical_id.removesuffix("Alarm")},
        "AlarmDescription": description(alarm),
        "ActionsEnabled": True,
        "AlarmActions": alarm_actions(),
        "OKActions": alarm_actions(),
        "ComparisonOperator": alarm.comparison,
        "Threshold": alarm.threshold,
        "EvaluationPeriods": alarm.evaluation_periods,
        "DatapointsToAlarm": alarm.datapoints_to_alarm,
        "TreatMissingData": alarm.missing_data,
    }
    metric = alarm.single_metric
    if metric is not None:
        properties.update({"Namespace": metric.namespace, "MetricName": metric.name, "Dimensions": _dimensions(metric)})
        properties["Period"] = alarm.period
        if re.fullmatch(r"p\d+(\.\d+)?", metric.stat):
            properties["ExtendedStatistic"] = metric.stat
        else:
            properties["Statistic"] = metric.stat
    else:
        queries: list[dict[str, Any]] = [
            {
                "Id": metric_id,
                "ReturnData": False,
                "MetricStat": {
                    "Metric": {"Namespace": m.namespace, "MetricName": m.name, "Dimensions": _dimensions(m)},
                    "Period": alarm.period,
                    "Stat": m.stat,
                },
            }
            for metric_id, m in alarm.metrics
        ]
        queries.append({"Id": "result", "Expression": alarm.expression, "ReturnData": True, "Label": alarm.logical_id})
        properties["Metrics"] = queries
    if alarm.low_sample_percentile:
        properties["EvaluateLowSampleCountPercentile"] = alarm.low_sample_percentile
    resource: dict[str, Any] = {"Type": "AWS::CloudWatch::Alarm", "Properties": properties}
    if alarm.region:
        resource["Condition"] = region_condition(alarm.region)
    return resource


# --- the dashboard ----------------------------------------------------------------------


def _sub_value(value: DimensionValue) -> str:
    """A dimension value as ``Fn::Sub`` text (``${Logical}``, ``${Logical.Attribute}``)."""
    if isinstance(value, Ref):
        return "${" + value.logical_id + "}"
    if isinstance(value, Attr):
        return "${" + value.logical_id + "." + value.attribute + "}"
    if "${" in value:
        raise ValueError(f"a dimension value cannot hold '${{': {value!r}")
    return value


def _widget_metrics(widget: Widget) -> list[list[Any]]:
    rows: list[list[Any]] = []
    hidden = bool(widget.expressions)
    for index, (label, metric) in enumerate(widget.metrics):
        options: dict[str, Any] = {"stat": metric.stat, "id": f"m{index}"}
        if label:
            options["label"] = label
        if hidden:
            options["visible"] = False
        row: list[Any] = [metric.namespace, metric.name]
        for name, value in metric.dimensions:
            row += [name, _sub_value(value)]
        rows.append([*row, options])
    for index, search in enumerate(widget.searches):
        rows.append([{"expression": search.expression(widget.period), "id": f"s{index}"}])
    for index, (label, expression) in enumerate(widget.expressions):
        rows.append([{"expression": expression, "label": label, "id": f"e{index}"}])
    return rows


def dashboard_body(monitoring: Monitoring, alarm_ids: list[str]) -> dict[str, Any]:
    """The dashboard as a document; names are ``Fn::Sub`` placeholders until deployed."""
    widgets: list[dict[str, Any]] = []
    if alarm_ids:
        widgets.append(
            {
                "type": "alarm",
                "x": 0,
                "y": 0,
                "width": 2 * _WIDGET_WIDTH,
                "height": _WIDGET_HEIGHT,
                "properties": {
                    "title": "Alarms",
                    "alarms": ["${" + alarm_id + ".Arn}" for alarm_id in alarm_ids],
                    "sortBy": "stateUpdatedTimestamp",
                },
            }
        )
    top = _WIDGET_HEIGHT if alarm_ids else 0
    for index, widget in enumerate(monitoring.dashboard):
        widgets.append(
            {
                "type": "metric",
                "x": (index % 2) * _WIDGET_WIDTH,
                "y": top + (index // 2) * _WIDGET_HEIGHT,
                "width": _WIDGET_WIDTH,
                "height": _WIDGET_HEIGHT,
                "properties": {
                    "title": widget.title,
                    "region": "${AWS::Region}",
                    "view": "timeSeries",
                    "stacked": False,
                    "period": widget.period,
                    "metrics": _widget_metrics(widget),
                },
            }
        )
    return {"widgets": widgets}


def dashboard_resource(monitoring: Monitoring, alarm_ids: list[str]) -> dict[str, Any]:
    body = json.dumps(dashboard_body(monitoring, alarm_ids), separators=(",", ":"))
    return {
        "Type": "AWS::CloudWatch::Dashboard",
        "Properties": {
            # Dashboards are global to the account: the region keeps two regions' stacks apart.
            "DashboardName": {"Fn::Sub": "${AWS::StackName}-${AWS::Region}"},
            "DashboardBody": {"Fn::Sub": body},
        },
    }


# --- limits -----------------------------------------------------------------------------


def rest_api_override(monitoring: Monitoring) -> dict[str, Any]:
    """What the merge adds to Chalice's ``RestAPI``: its name, and the stage's throttling."""
    throttling = monitoring.throttling
    return {
        "Properties": {
            "Name": monitoring.api_name,
            "DefinitionBody": {"info": {"title": monitoring.api_name}},
            "MethodSettings": [
                {
                    "ResourcePath": "/*",
                    "HttpMethod": "*",
                    "ThrottlingRateLimit": throttling.rate_limit,
                    "ThrottlingBurstLimit": throttling.burst_limit,
                }
            ],
        }
    }


# --- the whole fragment -----------------------------------------------------------------


def parameters() -> dict[str, Any]:
    return {
        ALARM_TOPIC_PARAMETER: {
            "Type": "String",
            "AllowedPattern": r"^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[A-Za-z0-9_-]{1,256}$",
            "Description": "ARN of the SNS topic every alarm notifies (when it fires and when it clears).",
        },
        SILENCE_PARAMETER: {
            "Type": "Number",
            "Default": DEFAULT_SILENCE_HOURS,
            "MinValue": 1,
            "MaxValue": 24,
            "Description": "Hours without a single webhook before WebhookSilenceAlarm fires"
            " (1 suits a stage with production traffic; raise it where webhooks are rare).",
        },
    }


def monitoring_template(monitoring: Monitoring, *, with_rest_api: bool) -> dict[str, Any]:
    """``Parameters``, ``Conditions`` and ``Resources`` the monitoring adds to the merge template."""
    resources: dict[str, Any] = {alarm.logical_id: alarm_resource(alarm) for alarm in monitoring.alarms}
    unconditional = [alarm.logical_id for alarm in monitoring.alarms if not alarm.region]
    resources[DASHBOARD] = dashboard_resource(monitoring, unconditional)
    if with_rest_api:
        resources[REST_API] = rest_api_override(monitoring)
    conditions = {
        region_condition(region): {"Fn::Equals": [{"Ref": "AWS::Region"}, region]}
        for region in sorted({alarm.region for alarm in monitoring.alarms if alarm.region})
    }
    return {"Parameters": parameters(), "Conditions": conditions, "Resources": resources}
