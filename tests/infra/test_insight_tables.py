"""The insight service's tables in the declaration and both renderings, and their least privilege."""

from __future__ import annotations

from typing import Any

import pytest

from chalicelib.aws.clients import client
from chalicelib.infra import cloudformation as cfn
from chalicelib.infra.bootstrap import bootstrap
from chalicelib.infra.declaration import (
    ACCOUNT_CHANGES_TABLE,
    DATA_CAPTURE_TABLE,
    INCOME_DETECTION_TABLE,
    LOCKS_TABLE,
    PAVE_TABLE,
    USER_BALANCE_SETTINGS_TABLE,
    Infrastructure,
    declare,
)
from tests.infra import sample_app
from tests.infra.support import settings_for_stage


@pytest.fixture(scope="module")
def infra() -> Infrastructure:
    return declare(settings_for_stage("prod"))


@pytest.fixture(scope="module")
def template(infra: Infrastructure) -> dict[str, Any]:
    """Prod's resources with the service policy (the functions are the sample app's)."""
    rendered = cfn.resources_template(infra)
    policy = cfn.policy_document(infra, cfn.CloudFormationArns(), sample_app.app.app_name)
    rendered["Resources"][cfn.SERVICE_POLICY] = {"Properties": {"PolicyDocument": policy}}
    return rendered


def props(template: dict[str, Any], logical_id: str) -> dict[str, Any]:
    return template["Resources"][logical_id]["Properties"]  # type: ignore[no-any-return]


def statements(template: dict[str, Any]) -> dict[str, dict[str, Any]]:
    document = props(template, cfn.SERVICE_POLICY)["PolicyDocument"]
    return {s["Sid"]: s for s in document["Statement"]}


def test_insight_tables_are_named_by_stage_except_those_other_services_own(infra: Infrastructure) -> None:
    names = {t.logical_id: t.name for t in infra.tables}
    assert names[PAVE_TABLE] == "prod-pave"
    assert names[INCOME_DETECTION_TABLE] == "prod-incomedetection"
    assert names[DATA_CAPTURE_TABLE] == "prod-fmdatacapture"
    assert names[USER_BALANCE_SETTINGS_TABLE] == "user-balance-settings"
    assert names[LOCKS_TABLE] == "locks"


def test_own_insight_tables_have_string_pk_sk_and_ttl(template: dict[str, Any]) -> None:
    for logical_id in (PAVE_TABLE, INCOME_DETECTION_TABLE, DATA_CAPTURE_TABLE):
        table = props(template, logical_id)
        # THEN keyed PK/SK (strings), no index, no stream, TTL on `ttl`
        assert table["KeySchema"] == [
            {"AttributeName": "PK", "KeyType": "HASH"},
            {"AttributeName": "SK", "KeyType": "RANGE"},
        ], logical_id
        assert table["AttributeDefinitions"] == [
            {"AttributeName": "PK", "AttributeType": "S"},
            {"AttributeName": "SK", "AttributeType": "S"},
        ]
        assert "GlobalSecondaryIndexes" not in table
        assert "StreamSpecification" not in table
        assert table["TimeToLiveSpecification"] == {"AttributeName": "ttl", "Enabled": True}
        assert "Condition" not in template["Resources"][logical_id]


def test_tables_other_services_own_are_created_only_on_their_own_parameter(template: dict[str, Any]) -> None:
    # GIVEN the balance settings and the lock table, owned by other services
    settings = template["Resources"][USER_BALANCE_SETTINGS_TABLE]
    locks = template["Resources"][LOCKS_TABLE]
    # THEN each is created only when CreateExternalTables=true, and never deleted by a stack
    for resource in (settings, locks):
        assert resource["Condition"] == cfn.EXTERNAL_TABLES_CONDITION
        assert resource["DeletionPolicy"] == resource["UpdateReplacePolicy"] == "Retain"
        assert "TimeToLiveSpecification" not in resource["Properties"]
    assert template["Parameters"][cfn.EXTERNAL_TABLES_PARAMETER]["Default"] == "false"
    assert template["Conditions"][cfn.EXTERNAL_TABLES_CONDITION] == {
        "Fn::Equals": [{"Ref": cfn.EXTERNAL_TABLES_PARAMETER}, "true"]
    }
    # AND the stage-shared table keeps its own, separate parameter
    assert template["Resources"][ACCOUNT_CHANGES_TABLE]["Condition"] == cfn.SHARED_TABLES_CONDITION
    assert settings["Properties"]["KeySchema"] == [{"AttributeName": "user_id", "KeyType": "HASH"}]
    # the dynamolock layout: partition key `key` (string), no sort key
    assert locks["Properties"]["KeySchema"] == [{"AttributeName": "key", "KeyType": "HASH"}]
    assert locks["Properties"]["AttributeDefinitions"] == [{"AttributeName": "key", "AttributeType": "S"}]


def _named(table: str) -> dict[str, str]:
    return {"Fn::Sub": f"arn:${{AWS::Partition}}:dynamodb:${{AWS::Region}}:${{AWS::AccountId}}:table/{table}"}


def test_each_insight_table_gets_exactly_the_access_it_needs(template: dict[str, Any]) -> None:
    by_sid = statements(template)
    # the single table: everything but Scan
    assert {"Fn::GetAtt": [PAVE_TABLE, "Arn"]} in by_sid["ReadWriteTables"]["Resource"]
    # the run log and the analytics capture are only written
    assert by_sid["WriteTables"]["Action"] == ["dynamodb:BatchWriteItem", "dynamodb:PutItem"]
    assert by_sid["WriteTables"]["Resource"] == [
        {"Fn::GetAtt": [INCOME_DETECTION_TABLE, "Arn"]},
        {"Fn::GetAtt": [DATA_CAPTURE_TABLE, "Arn"]},
    ]
    # another service's settings are only read; the lock rows are leased
    assert by_sid["ReadTables"]["Action"] == ["dynamodb:BatchGetItem", "dynamodb:GetItem", "dynamodb:Query"]
    assert by_sid["ReadTables"]["Resource"] == [_named("user-balance-settings")]
    assert by_sid["LeaseTables"]["Action"] == [
        "dynamodb:GetItem",
        "dynamodb:PutItem",
        "dynamodb:UpdateItem",
    ]
    assert by_sid["LeaseTables"]["Resource"] == [_named("locks")]
    # AND no table is granted twice, and nothing grants Scan
    granted = [r for s in by_sid.values() if s["Sid"].endswith("Tables") for r in s["Resource"]]
    assert len(granted) == len({str(r) for r in granted})
    assert not [a for s in by_sid.values() for a in s["Action"] if a == "dynamodb:Scan"]


def test_chalicelib_never_scans() -> None:
    # Online paths answer named access patterns with GetItem / Query; a Scan is a defect.
    from pathlib import Path

    root = Path(__file__).resolve().parents[2] / "chalicelib"
    offenders = [p for p in root.rglob("*.py") if ".scan(" in p.read_text() or '"Scan"' in p.read_text()]
    assert offenders == []


@pytest.mark.integration
def test_bootstrap_creates_the_insight_tables_as_declared(aws_endpoint: str, fresh_infra: Infrastructure) -> None:
    # WHEN a fresh stage is bootstrapped
    report = bootstrap(fresh_infra)
    ddb = client("dynamodb")
    # THEN its own insight tables are created with TTL on, the others' tables exist too
    for logical_id in (PAVE_TABLE, INCOME_DETECTION_TABLE, DATA_CAPTURE_TABLE):
        name = fresh_infra.table(logical_id).name
        assert name in report.created
        ttl = ddb.describe_time_to_live(TableName=name)["TimeToLiveDescription"]
        assert (ttl["TimeToLiveStatus"], ttl["AttributeName"]) == ("ENABLED", "ttl")
    locks = ddb.describe_table(TableName=fresh_infra.table(LOCKS_TABLE).name)["Table"]
    assert locks["KeySchema"] == [{"AttributeName": "key", "KeyType": "HASH"}]
    settings = ddb.describe_table(TableName=fresh_infra.table(USER_BALANCE_SETTINGS_TABLE).name)["Table"]
    assert settings["KeySchema"] == [{"AttributeName": "user_id", "KeyType": "HASH"}]
