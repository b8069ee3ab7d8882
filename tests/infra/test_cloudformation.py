"""Rendering (a): the merge template, checked as data (no AWS, no packaging)."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest
from chalice import Chalice

from chalicelib.infra import cloudformation as cfn
from chalicelib.infra.consumers import sqs_consumer
from chalicelib.infra.declaration import (
    ACCOUNT_CHANGES_TABLE,
    AUTH0_BUS,
    AUTH0_LOGIN_RULE,
    LISTENER_QUEUE,
    THROTTLE_QUEUE,
    DynamoDBStreamSource,
    Infrastructure,
    KinesisSource,
    SqsSource,
    declare,
)
from chalicelib.settings import get_settings
from tests.infra import sample_app


@pytest.fixture(scope="module")
def infra() -> Infrastructure:
    return declare()


@pytest.fixture(scope="module")
def template(infra: Infrastructure) -> dict[str, Any]:
    return cfn.merge_template(infra, sample_app.app)


def resource(template: dict[str, Any], logical_id: str) -> dict[str, Any]:
    return template["Resources"][logical_id]  # type: ignore[no-any-return]


def event_properties(template: dict[str, Any], function: str, kind: str) -> dict[str, Any]:
    events = resource(template, cfn.function_logical_id(function))["Properties"]["Events"]
    return events[cfn.event_source_logical_id(function, kind)]["Properties"]  # type: ignore[no-any-return]


def app_with_sqs_consumer(function: str, **overrides: Any) -> Chalice:
    """A one-consumer app registered with Chalice's own decorator (so it can disagree)."""
    app = Chalice(app_name="txn")
    infra = declare()
    kwargs = {"queue": infra.queue(LISTENER_QUEUE).name, "batch_size": 10, "name": function, **overrides}

    @app.on_sqs_message(**kwargs)
    def handler(event: Any) -> None:
        return None

    return app


# --- declared resources ---------------------------------------------------------------


def test_every_table_is_on_demand_with_string_keys_gsis_ttl_pitr_and_sse(
    template: dict[str, Any], infra: Infrastructure
) -> None:
    for table in infra.tables:
        # GIVEN a declared table WHEN rendered
        props = resource(template, table.logical_id)["Properties"]
        # THEN it is named and keyed as declared, with every key attribute a string
        assert props["TableName"] == table.name
        assert props["KeySchema"][0] == {"AttributeName": table.hash_key, "KeyType": "HASH"}
        assert {a["AttributeType"] for a in props["AttributeDefinitions"]} == {"S"}
        assert {a["AttributeName"] for a in props["AttributeDefinitions"]} == set(table.key_attributes)
        assert props["BillingMode"] == "PAY_PER_REQUEST"
        assert props["PointInTimeRecoverySpecification"] == {"PointInTimeRecoveryEnabled": True}
        assert props["SSESpecification"] == {"SSEEnabled": True}
        gsis = props.get("GlobalSecondaryIndexes", [])
        assert [g["IndexName"] for g in gsis] == [i.name for i in table.indexes]
        assert all(g["Projection"] == {"ProjectionType": "ALL"} for g in gsis)
        if table.stream_view:
            assert props["StreamSpecification"] == {"StreamViewType": "NEW_AND_OLD_IMAGES"}
        if table.ttl_attribute:
            assert props["TimeToLiveSpecification"] == {"AttributeName": "ttl", "Enabled": True}


def test_transactions_table_has_four_gsis_and_plaid_table_two(template: dict[str, Any]) -> None:
    names = {
        logical_id: [g["IndexName"] for g in resource(template, logical_id)["Properties"]["GlobalSecondaryIndexes"]]
        for logical_id in ("TransactionsTable", "PlaidTable")
    }
    assert names == {"TransactionsTable": ["GSI1", "GSI2", "GSI3", "GSI4"], "PlaidTable": ["GSI1", "GSI2"]}


def test_shared_table_is_created_only_on_request_and_never_deleted(template: dict[str, Any]) -> None:
    # GIVEN the table every stage shares
    shared = resource(template, ACCOUNT_CHANGES_TABLE)
    # THEN only the stack that asks creates it, and no stack operation deletes it
    assert shared["Condition"] == cfn.SHARED_TABLES_CONDITION
    assert shared["DeletionPolicy"] == shared["UpdateReplacePolicy"] == "Retain"
    assert template["Parameters"][cfn.SHARED_TABLES_PARAMETER]["Default"] == "false"
    assert template["Conditions"][cfn.SHARED_TABLES_CONDITION] == {
        "Fn::Equals": [{"Ref": cfn.SHARED_TABLES_PARAMETER}, "true"]
    }
    assert shared["Properties"]["KeySchema"] == [
        {"AttributeName": "user_id", "KeyType": "HASH"},
        {"AttributeName": "change_date", "KeyType": "RANGE"},
    ]


def test_every_queue_has_its_own_dlq_redrive_visibility_delay_and_sse(
    template: dict[str, Any], infra: Infrastructure
) -> None:
    for queue in infra.queues:
        props = resource(template, queue.logical_id)["Properties"]
        dlq = resource(template, queue.dlq_logical_id)["Properties"]
        assert props["QueueName"] == queue.name
        assert dlq["QueueName"] == queue.dlq_name
        assert props["RedrivePolicy"] == {
            "deadLetterTargetArn": {"Fn::GetAtt": [queue.dlq_logical_id, "Arn"]},
            "maxReceiveCount": 5,
        }
        assert props["VisibilityTimeout"] == queue.visibility_timeout
        assert props["DelaySeconds"] == queue.delay_seconds
        assert props["SqsManagedSseEnabled"] is True
        assert dlq["SqsManagedSseEnabled"] is True
    assert resource(template, THROTTLE_QUEUE)["Properties"]["DelaySeconds"] == 30


def test_kinesis_stream_is_encrypted(template: dict[str, Any], infra: Infrastructure) -> None:
    for stream in infra.streams:
        props = resource(template, stream.logical_id)["Properties"]
        assert props["Name"] == stream.name
        assert props["StreamEncryption"] == {"EncryptionType": "KMS", "KeyId": "alias/aws/kinesis"}


def test_own_bus_is_created_and_auth0_bus_is_only_named_by_a_parameter(
    template: dict[str, Any], infra: Infrastructure
) -> None:
    auth0 = infra.bus(AUTH0_BUS)
    assert AUTH0_BUS not in template["Resources"]
    assert template["Parameters"][cfn.bus_parameter(auth0)]["Default"] == auth0.name
    own = [bus for bus in infra.buses if not bus.external]
    for bus in own:
        assert resource(template, bus.logical_id) == {"Type": "AWS::Events::EventBus", "Properties": {"Name": bus.name}}


def test_auth0_rule_routes_login_events_to_the_listener_queue(template: dict[str, Any], infra: Infrastructure) -> None:
    props = resource(template, AUTH0_LOGIN_RULE)["Properties"]
    assert props["EventBusName"] == {"Ref": cfn.bus_parameter(infra.bus(AUTH0_BUS))}
    assert props["Targets"] == [{"Id": LISTENER_QUEUE, "Arn": {"Fn::GetAtt": [LISTENER_QUEUE, "Arn"]}}]
    types = props["EventPattern"]["detail"]["data"]["type"]
    assert types == [{"equals-ignore-case": t} for t in ("gd_auth_succeed", "sepft", "sertft")]


def test_listener_queue_policy_lets_only_the_rule_send(template: dict[str, Any]) -> None:
    props = resource(template, f"{LISTENER_QUEUE}Policy")["Properties"]
    assert props["Queues"] == [{"Ref": LISTENER_QUEUE}]
    (statement,) = props["PolicyDocument"]["Statement"]
    assert statement["Principal"] == {"Service": "events.amazonaws.com"}
    assert statement["Action"] == "sqs:SendMessage"
    assert statement["Resource"] == {"Fn::GetAtt": [LISTENER_QUEUE, "Arn"]}
    assert statement["Condition"] == {"ArnEquals": {"aws:SourceArn": {"Fn::GetAtt": [AUTH0_LOGIN_RULE, "Arn"]}}}


# --- event source overrides -----------------------------------------------------------


def test_sqs_consumers_report_partial_failures_from_their_declared_queue(
    template: dict[str, Any], infra: Infrastructure
) -> None:
    for consumer in infra.consumers:
        if not isinstance(consumer.source, SqsSource):
            continue
        props = event_properties(template, consumer.function, "sqs")
        assert props == {
            "Queue": {"Fn::Sub": f"${{{consumer.source.queue}.Arn}}"},
            "FunctionResponseTypes": ["ReportBatchItemFailures"],
        }


def test_kinesis_consumer_bisects_and_reports_partial_failures(template: dict[str, Any], infra: Infrastructure) -> None:
    (consumer,) = [c for c in infra.consumers if isinstance(c.source, KinesisSource)]
    assert isinstance(consumer.source, KinesisSource)
    props = event_properties(template, consumer.function, "kinesis")
    assert props == {
        "Stream": {"Fn::Sub": f"${{{consumer.source.stream}.Arn}}"},
        "FunctionResponseTypes": ["ReportBatchItemFailures"],
        "BisectBatchOnFunctionError": True,
    }


def test_stream_consumers_get_their_table_stream_filters_and_partial_failures(
    template: dict[str, Any], infra: Infrastructure
) -> None:
    consumers = [c for c in infra.consumers if isinstance(c.source, DynamoDBStreamSource)]
    assert len(consumers) == 2
    for consumer in consumers:
        assert isinstance(consumer.source, DynamoDBStreamSource)
        props = event_properties(template, consumer.function, "dynamodb")
        assert props["Stream"] == {"Fn::GetAtt": [consumer.source.table, "StreamArn"]}
        assert props["FunctionResponseTypes"] == ["ReportBatchItemFailures"]
        assert props["BisectBatchOnFunctionError"] is True
        patterns = [json.loads(f["Pattern"]) for f in props["FilterCriteria"]["Filters"]]
        assert patterns == [json.loads(p) for p in consumer.source.filter_patterns()]


def test_plaid_table_filters_admit_ttl_removals_and_item_updates_with_a_main_account(
    template: dict[str, Any],
) -> None:
    props = event_properties(template, "feed_plaid_table", "dynamodb")
    ttl, modify = [json.loads(f["Pattern"]) for f in props["FilterCriteria"]["Filters"]]
    # TTL removals only by the DynamoDB service itself
    assert ttl["eventName"] == ["REMOVE"]
    assert ttl["userIdentity"] == {"type": ["Service"], "principalId": ["dynamodb.amazonaws.com"]}
    assert ttl["dynamodb"]["OldImage"]["type"] == {"S": ["ITEM"]}
    # item updates that may have changed the main account (the handler compares old and new)
    assert modify == {
        "eventName": ["MODIFY"],
        "dynamodb": {"NewImage": {"type": {"S": ["ITEM"]}, "main_account_id": {"S": [{"exists": True}]}}},
    }


def test_schedules_need_no_declaration_but_still_get_the_service_policy(template: dict[str, Any]) -> None:
    assert "SyncInstitutions" not in template["Resources"]
    assert resource(template, "SyncInstitutionsRole")["Properties"]["ManagedPolicyArns"] == [
        {"Ref": cfn.SERVICE_POLICY}
    ]


def test_every_function_role_swaps_the_inline_policy_for_the_service_policy(template: dict[str, Any]) -> None:
    expected = {cfn.role_logical_id(name) for name in cfn.lambda_function_names(sample_app.app)}
    assert "ApiHandlerRole" in expected and "MineWebhooksRole" in expected
    for logical_id in expected:
        assert resource(template, logical_id) == {
            "Properties": {"ManagedPolicyArns": [{"Ref": cfn.SERVICE_POLICY}], "Policies": []}
        }


def test_a_source_without_a_declared_consumer_is_refused(infra: Infrastructure) -> None:
    # GIVEN an app consuming a queue under a name the declaration does not know
    app = app_with_sqs_consumer("consume_somewhere_else")
    # WHEN rendered THEN it fails instead of deploying a consumer without options or permissions
    with pytest.raises(cfn.UndeclaredEventSourceError, match="consume_somewhere_else"):
        cfn.merge_template(infra, app)


def test_a_consumer_registered_unlike_its_declaration_is_refused(infra: Infrastructure) -> None:
    app = app_with_sqs_consumer("listen_auth0", batch_size=3)
    with pytest.raises(cfn.EventSourceMismatchError, match="batch_size"):
        cfn.merge_template(infra, app)


def test_a_consumer_of_the_wrong_kind_is_refused(infra: Infrastructure) -> None:
    app = Chalice(app_name="txn")

    @app.on_kinesis_record(stream=infra.queue(LISTENER_QUEUE).name, name="listen_auth0")
    def handler(event: Any) -> None:
        return None

    with pytest.raises(cfn.EventSourceMismatchError, match="kinesis"):
        cfn.merge_template(infra, app)


def test_default_bus_rules_are_refused(infra: Infrastructure) -> None:
    # on_cw_event can only use the default bus; the declaration routes events through queues.
    app = Chalice(app_name="txn")

    @app.on_cw_event({"source": ["auth0"]}, name="listen_auth0")
    def handler(event: Any) -> None:
        return None

    with pytest.raises(cfn.UndeclaredEventSourceError, match="CloudWatchEventConfig"):
        cfn.merge_template(infra, app)


def test_declared_consumers_missing_from_the_app_are_reported(infra: Infrastructure) -> None:
    app = Chalice(app_name="txn")
    sqs_consumer(app, "listen_auth0")(lambda event: None)
    missing = cfn.unregistered_consumers(infra, app)
    assert "listen_auth0" not in missing
    assert set(missing) == {c.function for c in infra.consumers} - {"listen_auth0"}


# --- least privilege ------------------------------------------------------------------


def _resources(statement: dict[str, Any]) -> list[Any]:
    return statement["Resource"] if isinstance(statement["Resource"], list) else [statement["Resource"]]


def test_only_list_streams_is_granted_on_every_resource(template: dict[str, Any]) -> None:
    document = resource(template, cfn.SERVICE_POLICY)["Properties"]["PolicyDocument"]
    wildcard = [s for s in document["Statement"] if "*" in _resources(s)]
    assert [(s["Action"], _resources(s)) for s in wildcard] == [(cfn.LIST_STREAMS_ACTIONS, ["*"])]
    assert all(not a.endswith("*") for s in document["Statement"] for a in s["Action"])


def test_policy_grants_each_kind_of_access_on_exactly_the_declared_resources(
    template: dict[str, Any], infra: Infrastructure
) -> None:
    document = resource(template, cfn.SERVICE_POLICY)["Properties"]["PolicyDocument"]
    by_sid = {s["Sid"]: _resources(s) for s in document["Statement"]}
    assert by_sid["SendToQueues"] == [{"Fn::GetAtt": [q.logical_id, "Arn"]} for q in infra.queues]
    consumed = [c.source.queue for c in infra.consumers if isinstance(c.source, SqsSource)]
    assert by_sid["ConsumeQueues"] == [{"Fn::GetAtt": [q, "Arn"]} for q in dict.fromkeys(consumed)]
    assert by_sid["PublishEvents"] == [{"Fn::GetAtt": ["EventBus", "Arn"]}]
    assert by_sid["ReadTableStreams"] == [
        {"Fn::GetAtt": ["TransactionsTable", "StreamArn"]},
        {"Fn::GetAtt": ["PlaidTable", "StreamArn"]},
    ]
    assert {"Fn::Sub": "${TransactionsTable.Arn}/index/*"} in by_sid["ReadWriteTables"]
    # the shared table may not exist in this stack, so it is named rather than referenced
    assert {
        "Fn::Sub": "arn:${AWS::Partition}:dynamodb:${AWS::Region}:${AWS::AccountId}:table/plaid-account-changes"
    } in by_sid["ReadWriteTables"]
    # SAM names functions after the stack, whatever the stack is called
    log_groups = "arn:${AWS::Partition}:logs:${AWS::Region}:${AWS::AccountId}:log-group:/aws/lambda/${AWS::StackName}-*"
    assert by_sid["WriteLogs"][0] == {"Fn::Sub": log_groups}


def test_every_function_gets_a_log_group_with_the_retention_parameter_and_cannot_create_its_own(
    template: dict[str, Any],
) -> None:
    # GIVEN the functions Chalice renders for the sample app
    functions = cfn.lambda_function_names(sample_app.app)
    assert functions
    # THEN each has a log group named as Lambda names it, kept LogRetentionDays days
    for name in functions:
        group = resource(template, cfn.log_group_logical_id(name))
        assert group["Type"] == "AWS::Logs::LogGroup"
        assert group["Properties"] == {
            "LogGroupName": {"Fn::Sub": "/aws/lambda/${" + cfn.function_logical_id(name) + "}"},
            "RetentionInDays": {"Ref": cfn.LOG_RETENTION_PARAMETER},
        }
    parameter = template["Parameters"][cfn.LOG_RETENTION_PARAMETER]
    assert parameter["Default"] in parameter["AllowedValues"]
    # AND no function may create a log group (it would race the stack to it)
    document = resource(template, cfn.SERVICE_POLICY)["Properties"]["PolicyDocument"]
    assert all("logs:CreateLogGroup" not in s["Action"] for s in document["Statement"])


def test_policy_names_the_shared_table_in_its_own_region() -> None:
    # GIVEN the shared table pinned to us-east-1 (prod), whatever region the stack deploys to
    settings = dataclasses.replace(get_settings(), account_changes_region="us-east-1")
    template = cfn.merge_template(declare(settings), sample_app.app)
    document = resource(template, cfn.SERVICE_POLICY)["Properties"]["PolicyDocument"]
    granted = {json.dumps(r) for s in document["Statement"] for r in _resources(s)}
    # THEN the grant names us-east-1, not the stack's region
    arn = "arn:${AWS::Partition}:dynamodb:us-east-1:${AWS::AccountId}:table/plaid-account-changes"
    assert json.dumps({"Fn::Sub": arn}) in granted
    assert not any("${AWS::Region}:${AWS::AccountId}:table/plaid-account-changes" in g for g in granted)
    # AND creating it stays behind the template parameter
    assert resource(template, ACCOUNT_CHANGES_TABLE)["Condition"] == cfn.SHARED_TABLES_CONDITION


def test_policy_files_for_chalice_deploy_match_the_declaration() -> None:
    from ops.package import policy_path, render_policy_file, stages

    # GIVEN the committed .chalice/policy-<stage>.json files THEN each is the current rendering
    for stage in stages():
        assert policy_path(stage).read_text() == render_policy_file(stage), (
            f"run `python -m ops.package --write-policies` ({stage})"
        )
        document = json.loads(policy_path(stage).read_text())
        names = json.dumps(document)
        assert f"table/{stage}-txn-transactions" in names
        wildcard = [s["Sid"] for s in document["Statement"] if "*" in _resources(s)]
        assert wildcard == ["ListStreams"]


def test_prod_roles_may_read_exactly_the_secret_parameters_its_config_names() -> None:
    from ops.package import policy_path, secret_parameters

    # GIVEN prod's secrets named as SSM parameters in .chalice/config.json
    parameters = secret_parameters("prod")
    assert set(parameters) >= {"PLAID_CLIENT_ID", "PLAID_SECRET"}
    # THEN prod's policy grants GetParameter on those parameters and nothing else of SSM
    (statement,) = [s for s in json.loads(policy_path("prod").read_text())["Statement"] if s["Sid"] == "ReadSecrets"]
    assert statement["Action"] == ["ssm:GetParameter"]
    assert statement["Resource"] == [f"arn:aws:ssm:*:*:parameter{name}" for name in parameters.values()]
    # AND dev, whose secrets default to what the local fakes accept, reads none
    assert "ReadSecrets" not in policy_path("dev").read_text()


def test_tooling_needs_no_secret_for_prod_names_and_restores_the_process() -> None:
    import os

    from chalicelib.errors import ConfigurationError
    from chalicelib.settings import get_settings
    from ops.package import stage_environment

    before = dict(os.environ)
    # WHEN prod's names are needed without prod's secrets
    with stage_environment("prod"):
        settings = get_settings()
        # THEN settings load with prod's names, and only using a secret fails, loudly
        assert settings.transactions_table == "prod-txn-transactions"
        with pytest.raises(ConfigurationError, match="PLAID_SECRET"):
            _ = settings.plaid_secret
    # AND afterwards nothing of it is left in this process
    assert dict(os.environ) == before
    assert get_settings().stage == before.get("STAGE", "dev")
