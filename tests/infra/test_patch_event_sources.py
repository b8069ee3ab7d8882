"""The ``chalice deploy`` path: mappings patched with what Chalice cannot set, on moto server.

moto cannot run a Lambda (no Docker), but it creates functions and event source mappings and
answers Get/UpdateEventSourceMapping like AWS, which is all the patch touches.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from chalicelib.aws.clients import client
from chalicelib.infra.bootstrap import BootstrapReport, bootstrap
from chalicelib.infra.declaration import (
    PLAID_TABLE,
    THROTTLE_QUEUE,
    TRANSACTIONS_STREAM,
    TRANSACTIONS_TABLE,
    WEBHOOKS_QUEUE,
    Infrastructure,
)
from ops.patch_event_sources import DeployedMapping, PatchError, deployed_mappings, desired_options, patch_mapping
from tests.infra.support import ROOT

pytestmark = pytest.mark.integration

_TRUST = {
    "Version": "2012-10-17",
    "Statement": [{"Effect": "Allow", "Principal": {"Service": "lambda.amazonaws.com"}, "Action": "sts:AssumeRole"}],
}


@dataclass
class Deployment:
    """What `chalice deploy` would have left: functions, mappings and deployed/<stage>.json."""

    infra: Infrastructure
    report: BootstrapReport
    deployed_file: Path
    uuids: dict[str, str]
    role_arn: str


def tiny_zip() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("app.py", "def handler(event, context):\n    return {}\n")
    return buffer.getvalue()


def queue_arn(name: str) -> str:
    sqs = client("sqs")
    url = sqs.get_queue_url(QueueName=name)["QueueUrl"]
    return str(sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"])


def create_function(stage: str, name: str, role_arn: str) -> str:
    created = client("lambda").create_function(
        FunctionName=f"txn-{stage}-{name}",
        Runtime="python3.11",
        Role=role_arn,
        Handler=f"app.{name}",
        Code={"ZipFile": tiny_zip()},
    )
    return str(created["FunctionArn"])


def map_source(function_arn: str, source_arn: str) -> str:
    kwargs: dict[str, Any] = {"FunctionName": function_arn, "EventSourceArn": source_arn}
    if ":sqs:" not in source_arn:
        kwargs["StartingPosition"] = "TRIM_HORIZON"
    return str(client("lambda").create_event_source_mapping(**kwargs)["UUID"])


@pytest.fixture
def deployment(aws_endpoint: str, fresh_infra: Infrastructure, tmp_path: Path) -> Deployment:
    # GIVEN the declared resources, and three functions subscribed the way `chalice deploy` does it
    report = bootstrap(fresh_infra)
    stage = fresh_infra.stage
    role = client("iam").create_role(RoleName=f"txn-{stage}", AssumeRolePolicyDocument=json.dumps(_TRUST))
    role_arn = role["Role"]["Arn"]
    kinesis = client("kinesis").describe_stream_summary(StreamName=fresh_infra.stream(TRANSACTIONS_STREAM).name)
    sources = {
        "mine_webhooks": ("sqs_event", "queue_arn", queue_arn(fresh_infra.queue(WEBHOOKS_QUEUE).name)),
        "refine_transactions": (
            "kinesis_event",
            "kinesis_arn",
            kinesis["StreamDescriptionSummary"]["StreamARN"],
        ),
        "feed_transactions_table": ("dynamodb_event", "stream_arn", report.stream_arns[TRANSACTIONS_TABLE]),
    }
    resources: list[dict[str, Any]] = []
    uuids = {}
    for function, (resource_type, arn_field, source_arn) in sources.items():
        function_arn = create_function(stage, function, role_arn)
        uuids[function] = map_source(function_arn, source_arn)
        suffix = resource_type.removesuffix("_event")
        resources += [
            {"name": function, "resource_type": "lambda_function", "lambda_arn": function_arn},
            {
                "name": f"{function}-{suffix}-event-source",
                "resource_type": resource_type,
                arn_field: source_arn,
                "event_uuid": uuids[function],
                "lambda_arn": function_arn,
            },
        ]
    deployed_file = tmp_path / f"{stage}.json"
    deployed_file.write_text(json.dumps({"resources": resources, "schema_version": "2.0", "backend": "api"}))
    return Deployment(fresh_infra, report, deployed_file, uuids, role_arn)


def run_patch_command(deployment: Deployment) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "ops.patch_event_sources",
            "--stage",
            deployment.infra.stage,
            "--deployed-file",
            str(deployment.deployed_file),
        ],
        cwd=ROOT,
        env=dict(os.environ),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def mapping(uuid: str) -> dict[str, Any]:
    return client("lambda").get_event_source_mapping(UUID=uuid)  # type: ignore[no-any-return]


def test_command_sets_what_chalice_cannot_and_a_rerun_changes_nothing(deployment: Deployment) -> None:
    # WHEN the documented command runs after `chalice deploy`
    first = run_patch_command(deployment)
    # THEN every mapping reports partial failures, streams bisect, and the DDB stream is filtered
    assert first.returncode == 0, first.stderr
    assert first.stdout.count("  patched  ") == 3
    sqs, kinesis, ddb = (
        mapping(deployment.uuids[f]) for f in ("mine_webhooks", "refine_transactions", "feed_transactions_table")
    )
    for current in (sqs, kinesis, ddb):
        assert current["FunctionResponseTypes"] == ["ReportBatchItemFailures"]
    assert "BisectBatchOnFunctionError" not in sqs
    assert kinesis["BisectBatchOnFunctionError"] is True
    assert ddb["BisectBatchOnFunctionError"] is True
    assert "FilterCriteria" not in kinesis
    feeder = deployment.infra.consumer("feed_transactions_table").source
    patterns = [f["Pattern"] for f in ddb["FilterCriteria"]["Filters"]]
    assert patterns == feeder.filter_patterns()  # type: ignore[union-attr]
    # AND running it again finds everything current
    second = run_patch_command(deployment)
    assert second.returncode == 0, second.stderr
    assert second.stdout.count("  current  ") == 3
    assert "patched" not in second.stdout


def test_a_mapping_left_on_a_replaced_stream_is_reported(deployment: Deployment) -> None:
    # GIVEN the plaid table's feeder subscribed, then the table recreated (a new stream)
    infra, stage = deployment.infra, deployment.infra.stage
    function_arn = create_function(stage, "feed_plaid_table", deployment.role_arn)
    uuid = map_source(function_arn, deployment.report.stream_arns[PLAID_TABLE])
    client("dynamodb").delete_table(TableName=infra.table(PLAID_TABLE).name)
    bootstrap(infra)
    stale = DeployedMapping("feed_plaid_table", "dynamodb_event", uuid, deployment.report.stream_arns[PLAID_TABLE])
    # WHEN patched THEN it refuses and says how to recover
    with pytest.raises(PatchError, match="stream is now"):
        patch_mapping(client("lambda"), infra, stale)


def test_mapping_for_an_undeclared_function_is_refused(fresh_infra: Infrastructure) -> None:
    orphan = DeployedMapping("mine_elsewhere", "sqs_event", "uuid-1", "arn:aws:sqs:us-east-1:1:q")
    with pytest.raises(PatchError, match="no declared consumer"):
        desired_options(fresh_infra, orphan)


def test_mapping_on_another_queue_than_declared_is_refused(fresh_infra: Infrastructure) -> None:
    throttle = fresh_infra.queue(THROTTLE_QUEUE).name
    misplaced = DeployedMapping("mine_webhooks", "sqs_event", "uuid-2", f"arn:aws:sqs:us-east-1:1:{throttle}")
    with pytest.raises(PatchError, match="mapping reads"):
        desired_options(fresh_infra, misplaced)


def test_mapping_of_another_kind_than_declared_is_refused(fresh_infra: Infrastructure) -> None:
    wrong = DeployedMapping("mine_webhooks", "kinesis_event", "uuid-3", "arn:aws:kinesis:us-east-1:1:stream/x")
    with pytest.raises(PatchError, match="declared SqsSource"):
        desired_options(fresh_infra, wrong)


def test_deployed_file_mappings_are_named_by_their_function() -> None:
    deployed = {
        "resources": [
            {"name": "api_handler", "resource_type": "lambda_function", "lambda_arn": "arn:fn:api"},
            {"name": "listen_auth0", "resource_type": "lambda_function", "lambda_arn": "arn:fn:listen"},
            {
                "name": "listen_auth0-sqs-event-source",
                "resource_type": "sqs_event",
                "queue_arn": "arn:aws:sqs:us-east-1:1:q",
                "event_uuid": "u-1",
                "lambda_arn": "arn:fn:listen",
            },
            {"name": "rest_api", "resource_type": "rest_api", "rest_api_id": "abc"},
        ]
    }
    assert deployed_mappings(deployed) == [
        DeployedMapping("listen_auth0", "sqs_event", "u-1", "arn:aws:sqs:us-east-1:1:q")
    ]
