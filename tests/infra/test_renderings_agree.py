"""The two renderings agree: what the bootstrap creates on moto is what CloudFormation declares.

Each side is reduced to the same plain facts (names, keys, indexes, streams, TTL, queue
attributes, redrive, rules and their targets), the CloudFormation side by resolving its own
references, the live side by describing every resource through the real AWS APIs.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from chalicelib.aws.clients import client
from chalicelib.infra import cloudformation as cfn
from chalicelib.infra.bootstrap import bootstrap
from chalicelib.infra.declaration import Infrastructure, declare
from tests.infra.support import settings_for_stage

pytestmark = pytest.mark.integration

Facts = dict[str, Any]


# --- the CloudFormation side ----------------------------------------------------------


class TemplateResolver:
    """Turns a template's Ref/GetAtt into the physical names they stand for."""

    def __init__(self, template: dict[str, Any]) -> None:
        self.resources: dict[str, Any] = template["Resources"]
        self.parameters: dict[str, Any] = template.get("Parameters", {})

    def name(self, reference: dict[str, Any]) -> str:
        logical_id = reference["Fn::GetAtt"][0] if "Fn::GetAtt" in reference else reference["Ref"]
        if logical_id in self.parameters:
            return str(self.parameters[logical_id]["Default"])
        props = self.resources[logical_id]["Properties"]
        return str(props.get("TableName") or props.get("QueueName") or props["Name"])


def table_fact(
    key_schema: list[dict[str, str]],
    attributes: list[dict[str, str]],
    indexes: list[dict[str, Any]],
    stream_view: str | None,
    ttl_attribute: str | None,
) -> Facts:
    return {
        "keys": [(k["AttributeName"], k["KeyType"]) for k in key_schema],
        "attributes": sorted((a["AttributeName"], a["AttributeType"]) for a in attributes),
        "indexes": sorted(
            (
                i["IndexName"],
                tuple((k["AttributeName"], k["KeyType"]) for k in i["KeySchema"]),
                i["Projection"]["ProjectionType"],
            )
            for i in indexes
        ),
        "stream": stream_view,
        "ttl": ttl_attribute,
    }


def queue_fact(delay: Any, visibility: Any, retention: Any, redrive: tuple[str, int] | None) -> Facts:
    return {"delay": int(delay), "visibility": int(visibility), "retention": int(retention), "redrive": redrive}


def template_facts(template: dict[str, Any]) -> Facts:
    resolve = TemplateResolver(template)
    facts: Facts = {"tables": {}, "queues": {}, "streams": {}, "buses": set(), "rules": {}, "queue_policies": {}}
    for resource in template["Resources"].values():
        kind, props = resource["Type"], resource["Properties"]
        if kind == "AWS::DynamoDB::Table":
            ttl = props.get("TimeToLiveSpecification", {})
            facts["tables"][props["TableName"]] = table_fact(
                props["KeySchema"],
                props["AttributeDefinitions"],
                props.get("GlobalSecondaryIndexes", []),
                props.get("StreamSpecification", {}).get("StreamViewType"),
                ttl.get("AttributeName") if ttl.get("Enabled") else None,
            )
        elif kind == "AWS::SQS::Queue":
            redrive = props.get("RedrivePolicy")
            facts["queues"][props["QueueName"]] = queue_fact(
                props.get("DelaySeconds", 0),
                props.get("VisibilityTimeout", 30),
                props.get("MessageRetentionPeriod", 345600),
                (resolve.name(redrive["deadLetterTargetArn"]), redrive["maxReceiveCount"]) if redrive else None,
            )
        elif kind == "AWS::Kinesis::Stream":
            facts["streams"][props["Name"]] = {
                "shards": props["ShardCount"],
                "retention": props["RetentionPeriodHours"],
            }
        elif kind == "AWS::Events::EventBus":
            facts["buses"].add(props["Name"])
        elif kind == "AWS::Events::Rule":
            bus = resolve.name(props["EventBusName"])
            facts["buses"].add(bus)  # an external bus exists locally as a custom bus of that name
            facts["rules"][props["Name"]] = {
                "bus": bus,
                "pattern": props["EventPattern"],
                "state": props["State"],
                "targets": [resolve.name(t["Arn"]) for t in props["Targets"]],
            }
        elif kind == "AWS::SQS::QueuePolicy":
            statements = [
                (s["Principal"], s["Action"], resolve.name(s["Condition"]["ArnEquals"]["aws:SourceArn"]))
                for s in props["PolicyDocument"]["Statement"]
            ]
            for queue in props["Queues"]:
                facts["queue_policies"][resolve.name(queue)] = statements
    return facts


# --- the live side --------------------------------------------------------------------


def live_facts(infra: Infrastructure) -> Facts:
    return {
        "tables": {t.name: _live_table(t.name) for t in infra.tables},
        "queues": {n: _live_queue(n) for q in infra.queues for n in (q.name, q.dlq_name)},
        "streams": {s.name: _live_stream(s.name) for s in infra.streams},
        "buses": {client("events").describe_event_bus(Name=b.name)["Name"] for b in infra.buses},
        "rules": {r.name: _live_rule(r.name, infra.bus(r.bus).name) for r in infra.rules},
        "queue_policies": {n: p for q in infra.queues if (p := _live_queue_policy(n := q.name)) is not None},
    }


def _live_table(name: str) -> Facts:
    ddb = client("dynamodb")
    table = ddb.describe_table(TableName=name)["Table"]
    ttl = ddb.describe_time_to_live(TableName=name)["TimeToLiveDescription"]
    stream = table.get("StreamSpecification", {})
    return table_fact(
        table["KeySchema"],
        table["AttributeDefinitions"],
        table.get("GlobalSecondaryIndexes", []),
        stream.get("StreamViewType") if stream.get("StreamEnabled") else None,
        ttl.get("AttributeName") if ttl.get("TimeToLiveStatus") == "ENABLED" else None,
    )


def _queue_attributes(name: str) -> dict[str, str]:
    sqs = client("sqs")
    url = sqs.get_queue_url(QueueName=name)["QueueUrl"]
    return sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["All"])["Attributes"]  # type: ignore[no-any-return]


def _live_queue(name: str) -> Facts:
    attributes = _queue_attributes(name)
    redrive = json.loads(attributes["RedrivePolicy"]) if "RedrivePolicy" in attributes else None
    return queue_fact(
        attributes["DelaySeconds"],
        attributes["VisibilityTimeout"],
        attributes["MessageRetentionPeriod"],
        (redrive["deadLetterTargetArn"].rsplit(":", 1)[-1], int(redrive["maxReceiveCount"])) if redrive else None,
    )


def _live_stream(name: str) -> Facts:
    summary = client("kinesis").describe_stream_summary(StreamName=name)["StreamDescriptionSummary"]
    return {"shards": summary["OpenShardCount"], "retention": summary["RetentionPeriodHours"]}


def _live_rule(name: str, bus: str) -> Facts:
    events = client("events")
    rule = events.describe_rule(Name=name, EventBusName=bus)
    targets = events.list_targets_by_rule(Rule=name, EventBusName=bus)["Targets"]
    return {
        "bus": rule["EventBusName"],
        "pattern": json.loads(rule["EventPattern"]),
        "state": rule["State"],
        "targets": [t["Arn"].rsplit(":", 1)[-1] for t in targets],
    }


def _live_queue_policy(name: str) -> list[Any] | None:
    policy = _queue_attributes(name).get("Policy")
    if policy is None:
        return None
    return [
        (s["Principal"], s["Action"], s["Condition"]["ArnEquals"]["aws:SourceArn"].rsplit("/", 1)[-1])
        for s in json.loads(policy)["Statement"]
    ]


# --- the comparison -------------------------------------------------------------------


@pytest.fixture(scope="module")
def both_renderings(aws_endpoint: str) -> tuple[Facts, Facts]:
    # GIVEN a stage nobody else uses, bootstrapped on moto and rendered to CloudFormation
    infra = declare(settings_for_stage("agree"))
    bootstrap(infra)
    return live_facts(infra), template_facts(cfn.resources_template(infra))


@pytest.mark.parametrize("kind", ["tables", "queues", "streams", "buses", "rules", "queue_policies"])
def test_bootstrap_and_cloudformation_create_the_same(both_renderings: tuple[Facts, Facts], kind: str) -> None:
    live, rendered = both_renderings
    # THEN names, keys, indexes, streams, TTL, queue attributes, redrive, rules and policies agree
    assert live[kind] == rendered[kind]
    assert live[kind], f"nothing of kind {kind} declared"


def test_facts_cover_what_the_declaration_holds(both_renderings: tuple[Facts, Facts]) -> None:
    _, rendered = both_renderings
    infra = declare(settings_for_stage("agree"))
    assert set(rendered["tables"]) == {t.name for t in infra.tables}
    assert set(rendered["queues"]) == {n for q in infra.queues for n in (q.name, q.dlq_name)}
    assert rendered["tables"]["agree-txn-transactions"]["ttl"] == "ttl"
    assert rendered["queues"]["agree-txn-plaid-throttle"]["delay"] == 30
    assert rendered["queues"]["agree-txn-plaid-webhooks"]["redrive"] == ("agree-txn-plaid-webhooks-dlq", 5)
