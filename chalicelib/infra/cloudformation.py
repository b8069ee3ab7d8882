"""Rendering (a) of the declaration: the ``chalice package --merge-template`` document.

``chalice package`` emits the functions, their roles and their event sources. This module
adds what Chalice cannot say: the declared tables, queues, stream, buses and rules; the
event-source options it has no words for (partial batch responses, bisection, filters);
the wiring of every source to the declared resource instead of to a bare name; and one
least-privilege policy attached to every function's role. Chalice deep-merges this document
into its SAM template: dicts merge key by key, anything else replaces what was there.

Only deployment tooling imports this module (it needs Chalice's packaging helpers), never a
Lambda handler.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Protocol

from chalice import Chalice
from chalice.app import (
    BaseEventSourceConfig,
    DynamoDBEventConfig,
    KinesisEventConfig,
    ScheduledEventConfig,
    SQSEventConfig,
)
from chalice.utils import to_cfn_resource_name

from chalicelib.errors import ConfigurationError
from chalicelib.infra.declaration import (
    DLQ_RETENTION_SECONDS,
    QUEUE_RETENTION_SECONDS,
    Consumer,
    DynamoDBStreamSource,
    EventBus,
    Infrastructure,
    KinesisSource,
    Queue,
    Rule,
    Source,
    SqsSource,
    Stream,
    Table,
    TableAccess,
)
from chalicelib.infra.monitoring import Monitoring, declare_monitoring
from chalicelib.infra.monitoring_template import monitoring_template

#: Lambda's name for "the handler returns batchItemFailures".
PARTIAL_BATCH_RESPONSE = ["ReportBatchItemFailures"]
#: Parameter and condition that create tables shared by every stage (default: don't).
SHARED_TABLES_PARAMETER = "CreateSharedTables"
SHARED_TABLES_CONDITION = "SharedTablesRequested"
#: Parameter and condition that create tables other services own (default: don't).
EXTERNAL_TABLES_PARAMETER = "CreateExternalTables"
EXTERNAL_TABLES_CONDITION = "ExternalTablesRequested"
#: The one managed policy every function role gets instead of Chalice's inline policy.
SERVICE_POLICY = "ServicePolicy"
#: Suffix of the parameter naming an externally created bus (``Auth0EventBus`` -> ``Auth0EventBusName``).
BUS_PARAMETER_SUFFIX = "Name"

#: Chalice's API Gateway stage when its config names none (``api_gateway_stage``).
DEFAULT_API_STAGE = "api"

_PARTITION_REGION_ACCOUNT = "arn:${AWS::Partition}:%s:${AWS::Region}:${AWS::AccountId}:%s"


class UndeclaredEventSourceError(ConfigurationError):
    """The app registers an event source the declaration does not know about."""


class EventSourceMismatchError(ConfigurationError):
    """The app registers a consumer differently from how the declaration declares it."""


# --- ARNs: exact CloudFormation references, or names for a static policy file ----------


class Arns(Protocol):
    """How a policy names the service's resources."""

    def table(self, table: Table) -> Any: ...
    def table_indexes(self, table: Table) -> Any: ...
    def table_stream(self, table: Table) -> Any: ...
    def queue(self, queue: Queue) -> Any: ...
    def stream(self, stream: Stream) -> Any: ...
    def bus(self, bus: EventBus) -> Any: ...
    def function_log_groups(self, app_name: str, stage: str) -> list[Any]: ...
    def log_actions(self) -> list[str]: ...
    def parameter(self, name: str) -> Any: ...


def table_condition(table: Table) -> str | None:
    """The condition a table is created under (``None``: always created by the stack)."""
    if table.shared:
        return SHARED_TABLES_CONDITION
    if table.external:
        return EXTERNAL_TABLES_CONDITION
    return None


class CloudFormationArns:
    """The exact ARNs of the resources in this template (``GetAtt``/``Sub``)."""

    def table(self, table: Table) -> Any:
        if table_condition(table):  # conditionally created: GetAtt would fail when the condition is off
            return _sub("dynamodb", f"table/{table.name}", table.region)
        return {"Fn::GetAtt": [table.logical_id, "Arn"]}

    def table_indexes(self, table: Table) -> Any:
        if table_condition(table):
            return _sub("dynamodb", f"table/{table.name}/index/*", table.region)
        return _arn_sub(table.logical_id, "/index/*")

    def table_stream(self, table: Table) -> Any:
        if table_condition(table):
            return _sub("dynamodb", f"table/{table.name}/stream/*", table.region)
        return {"Fn::GetAtt": [table.logical_id, "StreamArn"]}

    def queue(self, queue: Queue) -> Any:
        return {"Fn::GetAtt": [queue.logical_id, "Arn"]}

    def stream(self, stream: Stream) -> Any:
        return {"Fn::GetAtt": [stream.logical_id, "Arn"]}

    def bus(self, bus: EventBus) -> Any:
        return {"Fn::GetAtt": [bus.logical_id, "Arn"]}

    def function_log_groups(self, app_name: str, stage: str) -> list[Any]:
        # SAM names each function <stack>-<LogicalId>-<suffix>, whatever the stack is called.
        group = "log-group:/aws/lambda/${AWS::StackName}-*"
        return [_sub("logs", group), _sub("logs", group + ":*")]

    def log_actions(self) -> list[str]:
        # The stack creates each function's log group with its retention (log_group_resources);
        # a function allowed to create its own could race the stack to it and fail the deploy.
        return _LOG_ACTIONS

    def parameter(self, name: str) -> Any:
        return _sub("ssm", "parameter/" + name.lstrip("/"))


class NamedArns:
    """ARNs by resource name for any region and account, for ``.chalice/policy-<stage>.json``.

    ``chalice deploy`` reads that file verbatim, so it cannot hold CloudFormation references;
    names are stage-prefixed, which keeps each grant to this stage's resources.
    """

    def __init__(self, partition: str = "aws", region: str = "*", account: str = "*") -> None:
        self._prefix = f"arn:{partition}:%s:{region}:{account}:%s"

    def _arn(self, service: str, resource: str) -> str:
        return self._prefix % (service, resource)

    def table(self, table: Table) -> Any:
        return self._arn("dynamodb", f"table/{table.name}")

    def table_indexes(self, table: Table) -> Any:
        return self._arn("dynamodb", f"table/{table.name}/index/*")

    def table_stream(self, table: Table) -> Any:
        return self._arn("dynamodb", f"table/{table.name}/stream/*")

    def queue(self, queue: Queue) -> Any:
        return self._arn("sqs", queue.name)

    def stream(self, stream: Stream) -> Any:
        return self._arn("kinesis", f"stream/{stream.name}")

    def bus(self, bus: EventBus) -> Any:
        return self._arn("events", f"event-bus/{bus.name}")

    def function_log_groups(self, app_name: str, stage: str) -> list[Any]:
        # chalice deploy names each function <app>-<stage>-<handler>.
        group = f"log-group:/aws/lambda/{app_name}-{stage}-*"
        return [self._arn("logs", group), self._arn("logs", group + ":*")]

    def log_actions(self) -> list[str]:
        return [_CREATE_LOG_GROUP, *_LOG_ACTIONS]  # chalice deploy creates no log groups

    def parameter(self, name: str) -> Any:
        return self._arn("ssm", "parameter/" + name.lstrip("/"))


def _sub(service: str, resource: str, region: str | None = None) -> dict[str, str]:
    """An ARN in this stack's account; in the stack's region unless ``region`` pins another."""
    arn = _PARTITION_REGION_ACCOUNT % (service, resource)
    return {"Fn::Sub": arn.replace("${AWS::Region}", region) if region else arn}


def _arn_sub(logical_id: str, suffix: str = "") -> dict[str, str]:
    return {"Fn::Sub": "${" + logical_id + ".Arn}" + suffix}


# --- the least-privilege policy -------------------------------------------------------

_TABLE_ACTIONS = [
    "dynamodb:BatchGetItem",
    "dynamodb:BatchWriteItem",
    "dynamodb:ConditionCheckItem",
    "dynamodb:DeleteItem",
    "dynamodb:DescribeTable",
    "dynamodb:GetItem",
    "dynamodb:PutItem",
    "dynamodb:Query",
    "dynamodb:UpdateItem",
]
#: The actions each declared kind of table access grants (never Scan).
TABLE_ACCESS_ACTIONS: dict[TableAccess, list[str]] = {
    "read_write": _TABLE_ACTIONS,
    "read": ["dynamodb:BatchGetItem", "dynamodb:GetItem", "dynamodb:Query"],
    "write": ["dynamodb:BatchWriteItem", "dynamodb:PutItem"],
    # Never DeleteItem: a released lock row keeps its fencing counter (docs/insight.md).
    "lease": ["dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem"],
}
#: The policy statement of each kind of table access.
TABLE_ACCESS_SIDS: dict[TableAccess, str] = {
    "read_write": "ReadWriteTables",
    "read": "ReadTables",
    "write": "WriteTables",
    "lease": "LeaseTables",
}
_TABLE_STREAM_ACTIONS = ["dynamodb:DescribeStream", "dynamodb:GetRecords", "dynamodb:GetShardIterator"]
#: The only actions granted on "*": IAM has no resource type for them, and Lambda's pollers need them.
LIST_STREAMS_ACTIONS = ["dynamodb:ListStreams", "kinesis:ListStreams"]
_SEND_ACTIONS = ["sqs:GetQueueAttributes", "sqs:GetQueueUrl", "sqs:SendMessage"]
_CONSUME_ACTIONS = ["sqs:ChangeMessageVisibility", "sqs:DeleteMessage", "sqs:GetQueueAttributes", "sqs:ReceiveMessage"]
_PUT_RECORD_ACTIONS = ["kinesis:DescribeStreamSummary", "kinesis:PutRecord", "kinesis:PutRecords"]
_READ_RECORD_ACTIONS = [
    "kinesis:DescribeStream",
    "kinesis:DescribeStreamSummary",
    "kinesis:GetRecords",
    "kinesis:GetShardIterator",
    "kinesis:ListShards",
]
_LOG_ACTIONS = ["logs:CreateLogStream", "logs:PutLogEvents"]
#: Only for ``chalice deploy``, which creates no log groups: there the functions create their own.
_CREATE_LOG_GROUP = "logs:CreateLogGroup"


def policy_document(
    infra: Infrastructure, arns: Arns, app_name: str, secret_parameters: Sequence[str] = ()
) -> dict[str, Any]:
    """Every permission the service's functions need, each on the resources it concerns.

    ``secret_parameters`` are the SSM parameters the stage reads its secrets from (the
    ``*_PARAMETER`` variables in its Chalice config); SecureStrings under the default
    ``aws/ssm`` key need no KMS grant of their own.
    """
    consumed = [consumer.source for consumer in infra.consumers]
    streamed_tables = [infra.table(s.table) for s in consumed if isinstance(s, DynamoDBStreamSource)]
    consumed_queues = [infra.queue(s.queue) for s in consumed if isinstance(s, SqsSource)]
    read_streams = [infra.stream(s.stream) for s in consumed if isinstance(s, KinesisSource)]
    own_buses = [bus for bus in infra.buses if not bus.external]
    statements = [
        _statement("WriteLogs", arns.log_actions(), arns.function_log_groups(app_name, infra.stage)),
        *(
            _statement(TABLE_ACCESS_SIDS[access], actions, _table_arns(arns, infra, access))
            for access, actions in TABLE_ACCESS_ACTIONS.items()
        ),
        _statement("ReadTableStreams", _TABLE_STREAM_ACTIONS, [arns.table_stream(t) for t in _unique(streamed_tables)]),
        _statement("SendToQueues", _SEND_ACTIONS, [arns.queue(q) for q in infra.queues]),
        _statement("ConsumeQueues", _CONSUME_ACTIONS, [arns.queue(q) for q in _unique(consumed_queues)]),
        _statement("PutRecords", _PUT_RECORD_ACTIONS, [arns.stream(s) for s in infra.streams]),
        _statement("ReadRecords", _READ_RECORD_ACTIONS, [arns.stream(s) for s in _unique(read_streams)]),
        _statement("PublishEvents", ["events:PutEvents"], [arns.bus(b) for b in own_buses]),
        _statement("ReadSecrets", ["ssm:GetParameter"], [arns.parameter(p) for p in secret_parameters]),
    ]
    if streamed_tables or read_streams:
        statements.append(_statement("ListStreams", LIST_STREAMS_ACTIONS, ["*"]))
    return {"Version": "2012-10-17", "Statement": [s for s in statements if s["Resource"]]}


def _table_arns(arns: Arns, infra: Infrastructure, access: TableAccess) -> list[Any]:
    """The tables (and their indexes) the service may use with ``access``."""
    tables = [t for t in infra.tables if t.access == access]
    return [arn for t in tables for arn in [arns.table(t)] + ([arns.table_indexes(t)] if t.indexes else [])]


def policy_file_document(infra: Infrastructure, app_name: str, secret_parameters: Sequence[str] = ()) -> dict[str, Any]:
    """The content of ``.chalice/policy-<stage>.json`` (the ``chalice deploy`` path)."""
    return policy_document(infra, NamedArns(), app_name, secret_parameters)


def _statement(sid: str, actions: list[str], resources: list[Any]) -> dict[str, Any]:
    return {"Sid": sid, "Effect": "Allow", "Action": actions, "Resource": resources}


def _unique(items: Iterable[Any]) -> list[Any]:
    seen: list[Any] = []
    for item in items:
        if item not in seen:
            seen.append(item)
    return seen


# --- declared resources ---------------------------------------------------------------


def bus_parameter(bus: EventBus) -> str:
    """The template parameter naming an external bus (created by someone else)."""
    return bus.logical_id + BUS_PARAMETER_SUFFIX


def _key_schema(hash_key: str, range_key: str | None) -> list[dict[str, str]]:
    schema = [{"AttributeName": hash_key, "KeyType": "HASH"}]
    if range_key:
        schema.append({"AttributeName": range_key, "KeyType": "RANGE"})
    return schema


def _table_resource(table: Table) -> dict[str, Any]:
    properties: dict[str, Any] = {
        "TableName": table.name,
        "BillingMode": "PAY_PER_REQUEST",
        "KeySchema": _key_schema(table.hash_key, table.range_key),
        "AttributeDefinitions": [{"AttributeName": a, "AttributeType": "S"} for a in _unique(table.key_attributes)],
        "PointInTimeRecoverySpecification": {"PointInTimeRecoveryEnabled": True},
        "SSESpecification": {"SSEEnabled": True},
    }
    if table.indexes:
        properties["GlobalSecondaryIndexes"] = [
            {
                "IndexName": index.name,
                "KeySchema": _key_schema(index.hash_key, index.range_key),
                "Projection": {"ProjectionType": "ALL"},
            }
            for index in table.indexes
        ]
    if table.stream_view:
        properties["StreamSpecification"] = {"StreamViewType": table.stream_view}
    if table.ttl_attribute:
        properties["TimeToLiveSpecification"] = {"AttributeName": table.ttl_attribute, "Enabled": True}
    # Data outlives stacks: deleting or replacing a stack never deletes a table.
    resource: dict[str, Any] = {
        "Type": "AWS::DynamoDB::Table",
        "DeletionPolicy": "Retain",
        "UpdateReplacePolicy": "Retain",
        "Properties": properties,
    }
    condition = table_condition(table)
    if condition:
        resource["Condition"] = condition
    return resource


def _queue_resources(queue: Queue) -> dict[str, Any]:
    return {
        queue.dlq_logical_id: {
            "Type": "AWS::SQS::Queue",
            "Properties": {
                "QueueName": queue.dlq_name,
                "MessageRetentionPeriod": DLQ_RETENTION_SECONDS,
                "SqsManagedSseEnabled": True,
            },
        },
        queue.logical_id: {
            "Type": "AWS::SQS::Queue",
            "Properties": {
                "QueueName": queue.name,
                "VisibilityTimeout": queue.visibility_timeout,
                "DelaySeconds": queue.delay_seconds,
                "MessageRetentionPeriod": QUEUE_RETENTION_SECONDS,
                # SSE-SQS, not SSE-KMS: EventBridge cannot send to a queue under the AWS-managed KMS key.
                "SqsManagedSseEnabled": True,
                "RedrivePolicy": {
                    "deadLetterTargetArn": {"Fn::GetAtt": [queue.dlq_logical_id, "Arn"]},
                    "maxReceiveCount": queue.max_receive_count,
                },
            },
        },
    }


def _stream_resource(stream: Stream) -> dict[str, Any]:
    return {
        "Type": "AWS::Kinesis::Stream",
        "Properties": {
            "Name": stream.name,
            "ShardCount": stream.shard_count,
            "RetentionPeriodHours": stream.retention_hours,
            "StreamModeDetails": {"StreamMode": "PROVISIONED"},
            "StreamEncryption": {"EncryptionType": "KMS", "KeyId": "alias/aws/kinesis"},
        },
    }


def _bus_name(bus: EventBus) -> dict[str, str]:
    return {"Ref": bus_parameter(bus)} if bus.external else {"Ref": bus.logical_id}


def _rule_resource(infra: Infrastructure, rule: Rule) -> dict[str, Any]:
    return {
        "Type": "AWS::Events::Rule",
        "Properties": {
            "Name": rule.name,
            "EventBusName": _bus_name(infra.bus(rule.bus)),
            "EventPattern": rule.pattern,
            "State": "ENABLED",
            "Targets": [{"Id": rule.target_queue, "Arn": {"Fn::GetAtt": [rule.target_queue, "Arn"]}}],
        },
    }


def _queue_policies(infra: Infrastructure) -> dict[str, Any]:
    """One policy per rule-fed queue, letting exactly its rules send (a queue has one policy)."""
    by_queue: dict[str, list[Rule]] = {}
    for rule in infra.rules:
        by_queue.setdefault(rule.target_queue, []).append(rule)
    return {
        f"{queue_id}Policy": {
            "Type": "AWS::SQS::QueuePolicy",
            "Properties": {
                "Queues": [{"Ref": queue_id}],
                "PolicyDocument": {
                    "Version": "2012-10-17",
                    "Statement": [
                        {
                            "Sid": rule.logical_id,
                            "Effect": "Allow",
                            "Principal": {"Service": "events.amazonaws.com"},
                            "Action": "sqs:SendMessage",
                            "Resource": {"Fn::GetAtt": [queue_id, "Arn"]},
                            "Condition": {"ArnEquals": {"aws:SourceArn": {"Fn::GetAtt": [rule.logical_id, "Arn"]}}},
                        }
                        for rule in rules
                    ],
                },
            },
        }
        for queue_id, rules in by_queue.items()
    }


def _parameters(infra: Infrastructure) -> dict[str, Any]:
    parameters: dict[str, Any] = {}
    if any(table.shared for table in infra.tables):
        names = ", ".join(table.name for table in infra.tables if table.shared)
        parameters[SHARED_TABLES_PARAMETER] = {
            "Type": "String",
            "AllowedValues": ["true", "false"],
            "Default": "false",
            "Description": f"Create the tables every stage shares ({names}); exactly one stack should.",
        }
    if any(table.external for table in infra.tables):
        names = ", ".join(table.name for table in infra.tables if table.external)
        parameters[EXTERNAL_TABLES_PARAMETER] = {
            "Type": "String",
            "AllowedValues": ["true", "false"],
            "Default": "false",
            "Description": f"Create the tables other services own ({names}); only where those services do not run.",
        }
    for bus in infra.buses:
        if bus.external:
            parameters[bus_parameter(bus)] = {
                "Type": "String",
                "Default": bus.name,
                "Description": f"Name of the existing event bus {bus.logical_id} (e.g. aws.partner/auth0.com/...).",
            }
    return parameters


def _outputs(infra: Infrastructure) -> dict[str, Any]:
    outputs: dict[str, Any] = {}
    for table in infra.tables:
        if table.stream_view:
            output: dict[str, Any] = {"Value": {"Fn::GetAtt": [table.logical_id, "StreamArn"]}}
            condition = table_condition(table)
            if condition:
                output["Condition"] = condition
            outputs[f"{table.logical_id}StreamArn"] = output
    for queue in infra.queues:
        outputs[f"{queue.logical_id}Url"] = {"Value": {"Ref": queue.logical_id}}
        outputs[f"{queue.dlq_logical_id}Url"] = {"Value": {"Ref": queue.dlq_logical_id}}
    return outputs


def resources_template(infra: Infrastructure) -> dict[str, Any]:
    """Parameters, conditions, resources and outputs for every declared resource."""
    resources: dict[str, Any] = {table.logical_id: _table_resource(table) for table in infra.tables}
    for queue in infra.queues:
        resources.update(_queue_resources(queue))
    resources.update({stream.logical_id: _stream_resource(stream) for stream in infra.streams})
    resources.update(
        {
            bus.logical_id: {"Type": "AWS::Events::EventBus", "Properties": {"Name": bus.name}}
            for bus in infra.buses
            if not bus.external  # an external bus is only named, by a parameter
        }
    )
    resources.update({rule.logical_id: _rule_resource(infra, rule) for rule in infra.rules})
    resources.update(_queue_policies(infra))
    template: dict[str, Any] = {"Parameters": _parameters(infra), "Resources": resources, "Outputs": _outputs(infra)}
    conditions = {
        condition: {"Fn::Equals": [{"Ref": parameter}, "true"]}
        for parameter, condition, wanted in (
            (SHARED_TABLES_PARAMETER, SHARED_TABLES_CONDITION, any(t.shared for t in infra.tables)),
            (EXTERNAL_TABLES_PARAMETER, EXTERNAL_TABLES_CONDITION, any(t.external for t in infra.tables)),
        )
        if wanted
    }
    if conditions:
        template["Conditions"] = conditions
    return template


def standalone_template(infra: Infrastructure) -> dict[str, Any]:
    """The declared resources as a stack of their own, for the ``chalice deploy`` path."""
    return {
        "AWSTemplateFormatVersion": "2010-09-09",
        "Description": f"txn {infra.stage}: tables, queues, stream, buses and rules (functions deploy separately)",
        **resources_template(infra),
    }


# --- event sources: what Chalice cannot say --------------------------------------------


def event_source_options(source: Source) -> dict[str, Any]:
    """The mapping options Chalice cannot set, named as Lambda's API and SAM both name them."""
    options: dict[str, Any] = {"FunctionResponseTypes": list(PARTIAL_BATCH_RESPONSE)}
    if isinstance(source, KinesisSource | DynamoDBStreamSource) and source.bisect_on_error:
        options["BisectBatchOnFunctionError"] = True
    if isinstance(source, DynamoDBStreamSource):
        options["FilterCriteria"] = {"Filters": [{"Pattern": pattern} for pattern in source.filter_patterns()]}
    return options


_KINDS: dict[type[BaseEventSourceConfig], tuple[str, type[Any]]] = {
    SQSEventConfig: ("sqs", SqsSource),
    KinesisEventConfig: ("kinesis", KinesisSource),
    DynamoDBEventConfig: ("dynamodb", DynamoDBStreamSource),
}
#: Event sources that need nothing from the declaration (no resource, no option Chalice lacks).
_SELF_CONTAINED = (ScheduledEventConfig,)


#: Chalice's name for the Lambda function serving the routes, and its logical id in the package.
API_HANDLER = "api_handler"
API_HANDLER_LOGICAL_ID = "APIHandler"


def function_logical_id(function: str) -> str:
    """Chalice's logical id for the Lambda function named ``function``."""
    return API_HANDLER_LOGICAL_ID if function == API_HANDLER else to_cfn_resource_name(function)


def event_source_logical_id(function: str, kind: str) -> str:
    """Chalice's logical id for a function's ``sqs``/``kinesis``/``dynamodb`` event source."""
    return to_cfn_resource_name(f"{function}-{kind}-event-source")


def declared_consumer(infra: Infrastructure, config: BaseEventSourceConfig) -> Consumer | None:
    """The declared consumer behind one of the app's event sources (``None``: needs none).

    Raises when the app registers a source the declaration does not hold, or holds differently,
    so nothing the app consumes can be deployed without its queue, options and permissions.
    """
    if isinstance(config, _SELF_CONTAINED):
        return None
    kind = _KINDS.get(type(config))
    if kind is None:
        raise UndeclaredEventSourceError(
            f"{config.name}: {type(config).__name__} is not a declared kind of event source;"
            " route events through a declared rule and queue instead"
        )
    try:
        consumer = infra.consumer(config.name)
    except KeyError as exc:
        raise UndeclaredEventSourceError(f"{config.name}: no consumer declared for this event source") from exc
    if not isinstance(consumer.source, kind[1]):
        raise EventSourceMismatchError(
            f"{config.name}: registered as a {kind[0]} source, declared as {type(consumer.source).__name__}"
        )
    mismatches = _mismatches(infra, consumer.source, config)
    if mismatches:
        raise EventSourceMismatchError(f"{config.name}: app and declaration disagree on " + "; ".join(mismatches))
    return consumer


def _mismatches(infra: Infrastructure, source: Source, config: BaseEventSourceConfig) -> list[str]:
    pairs: list[tuple[str, object, object]] = []
    if isinstance(source, SqsSource) and isinstance(config, SQSEventConfig):
        registered_queue = config.queue or (config.queue_arn or "").rsplit(":", 1)[-1]
        pairs += [
            ("queue", registered_queue, infra.queue(source.queue).name),
            ("maximum_concurrency", config.maximum_concurrency, source.maximum_concurrency),
        ]
    elif isinstance(source, KinesisSource) and isinstance(config, KinesisEventConfig):
        pairs += [
            ("stream", config.stream, infra.stream(source.stream).name),
            ("starting_position", config.starting_position, source.starting_position),
        ]
    elif isinstance(source, DynamoDBStreamSource) and isinstance(config, DynamoDBEventConfig):
        registered_table = config.stream_arn.split("/stream/")[0].rsplit("table/", 1)[-1]
        pairs += [
            ("table", registered_table, infra.table(source.table).name),
            ("starting_position", config.starting_position, source.starting_position),
        ]
    batching = config if isinstance(config, SQSEventConfig | KinesisEventConfig | DynamoDBEventConfig) else None
    if batching is not None:
        pairs += [
            ("batch_size", batching.batch_size, source.batch_size),
            ("batching_window", batching.maximum_batching_window_in_seconds, source.batching_window),
        ]
    return [f"{name} (app {app!r}, declared {declared!r})" for name, app, declared in pairs if app != declared]


def _source_reference(infra: Infrastructure, source: Source) -> tuple[str, Any]:
    # Chalice emits Fn::Sub for queue and stream names; merging GetAtt onto it would leave an
    # invalid two-key intrinsic, so those keep Fn::Sub. The DDB stream ARN is a plain string.
    if isinstance(source, SqsSource):
        return "Queue", _arn_sub(infra.queue(source.queue).logical_id)
    if isinstance(source, KinesisSource):
        return "Stream", _arn_sub(infra.stream(source.stream).logical_id)
    return "Stream", {"Fn::GetAtt": [infra.table(source.table).logical_id, "StreamArn"]}


def event_source_overrides(infra: Infrastructure, app: Chalice) -> dict[str, Any]:
    """``Resources`` fragments that complete each of the app's event sources."""
    resources: dict[str, Any] = {}
    for config in app.event_sources:
        consumer = declared_consumer(infra, config)
        if consumer is None:
            continue
        kind = _KINDS[type(config)][0]
        key, reference = _source_reference(infra, consumer.source)
        properties = {key: reference, **event_source_options(consumer.source)}
        event = {event_source_logical_id(config.name, kind): {"Properties": properties}}
        resources[function_logical_id(config.name)] = {"Properties": {"Events": event}}
    return resources


def unregistered_consumers(infra: Infrastructure, app: Chalice) -> list[str]:
    """Declared consumers the app does not register (their sources would go unread)."""
    registered = {config.name for config in app.event_sources}
    return [consumer.function for consumer in infra.consumers if consumer.function not in registered]


# --- roles ----------------------------------------------------------------------------


def lambda_function_names(app: Chalice) -> list[str]:
    """The names Chalice gives the app's Lambda functions (and, suffixed, their roles)."""
    names = ["api_handler"] if app.routes else []
    names += [auth.name for auth in app.builtin_auth_handlers]
    names += [function.name for function in app.pure_lambda_functions]
    names += [config.name for config in app.event_sources]
    routes = {handler.route_key_handled for handler in app.websocket_handlers.values()}
    names += [f"websocket_{route[1:]}" for route in ("$connect", "$disconnect") if route in routes]
    names += ["websocket_message"] if routes - {"$connect", "$disconnect"} else []
    return names


LOG_RETENTION_PARAMETER = "LogRetentionDays"
DEFAULT_LOG_RETENTION_DAYS = 30
#: The values CloudWatch Logs accepts for a log group's retention.
LOG_RETENTION_DAYS = [
    *(1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731),
    *(1096, 1827, 2192, 2557, 2922, 3288, 3653),
]


def log_retention_parameter() -> dict[str, Any]:
    return {
        "Type": "Number",
        "Default": DEFAULT_LOG_RETENTION_DAYS,
        "AllowedValues": LOG_RETENTION_DAYS,
        "Description": "Days each function's log group keeps its events.",
    }


def log_group_logical_id(function: str) -> str:
    return function_logical_id(function) + "LogGroup"


def log_group_resources(app: Chalice) -> dict[str, Any]:
    """One log group per function, named as Lambda names it, kept ``LogRetentionDays`` days."""
    return {
        log_group_logical_id(name): {
            "Type": "AWS::Logs::LogGroup",
            "Properties": {
                "LogGroupName": {"Fn::Sub": "/aws/lambda/${" + function_logical_id(name) + "}"},
                "RetentionInDays": {"Ref": LOG_RETENTION_PARAMETER},
            },
        }
        for name in lambda_function_names(app)
    }


def role_logical_id(function: str) -> str:
    """Chalice's role for ``function`` when ``autogen_policy`` is off (one role per function)."""
    return to_cfn_resource_name(f"{function}_role")


def role_overrides(app: Chalice) -> dict[str, Any]:
    """Swap each role's inline (name-scoped) policy for the exact managed service policy."""
    override = {"Properties": {"ManagedPolicyArns": [{"Ref": SERVICE_POLICY}], "Policies": []}}
    return {role_logical_id(name): override for name in lambda_function_names(app)}


# --- the whole document ---------------------------------------------------------------


def app_monitoring(infra: Infrastructure, app: Chalice, api_stage: str = DEFAULT_API_STAGE) -> Monitoring:
    """The alarms, dashboard and limits of ``app`` at ``infra``'s stage (every function of the app watched)."""
    functions = {name: function_logical_id(name) for name in lambda_function_names(app)}
    return declare_monitoring(infra, functions, api_name=f"{app.app_name}-{infra.stage}", api_stage=api_stage)


def merge_template(
    infra: Infrastructure,
    app: Chalice,
    secret_parameters: Sequence[str] = (),
    api_stage: str = DEFAULT_API_STAGE,
) -> dict[str, Any]:
    """The document for ``chalice package --merge-template`` for ``app`` at ``infra``'s stage.

    ``api_stage`` is the API Gateway stage Chalice deploys the routes to (its config's
    ``api_gateway_stage``), as the API's metrics name it.
    """
    template = resources_template(infra)
    monitoring = monitoring_template(app_monitoring(infra, app, api_stage), with_rest_api=bool(app.routes))
    template["Parameters"].update(monitoring["Parameters"])
    template["Parameters"][LOG_RETENTION_PARAMETER] = log_retention_parameter()
    if monitoring["Conditions"]:
        template.setdefault("Conditions", {}).update(monitoring["Conditions"])
    resources = template["Resources"]
    for logical_id, resource in monitoring["Resources"].items():
        if logical_id in resources:
            raise ConfigurationError(f"{logical_id} is both a declared resource and a monitoring resource")
        resources[logical_id] = resource
    resources[SERVICE_POLICY] = {
        "Type": "AWS::IAM::ManagedPolicy",
        "Properties": {
            "Description": f"{app.app_name} {infra.stage}: least privilege on the declared resources",
            "PolicyDocument": policy_document(infra, CloudFormationArns(), app.app_name, secret_parameters),
        },
    }
    chalice_fragments = [*role_overrides(app).items(), *event_source_overrides(infra, app).items()]
    for logical_id, fragment in [*chalice_fragments, *log_group_resources(app).items()]:
        if logical_id in resources:
            raise ConfigurationError(f"{logical_id} is both a declared resource and a Chalice resource")
        resources[logical_id] = fragment
    return template
