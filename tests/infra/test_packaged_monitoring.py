"""The alarms, dashboard and stage throttling as they come out of ``chalice package`` (cfn-lint: test_packaging)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from chalicelib.infra.monitoring_template import DASHBOARD, REST_API
from tests.infra.support import load_template

pytestmark = pytest.mark.slow


def references(value: Any) -> list[str]:
    """Every logical id ``value`` names through Ref, GetAtt or a ``${...}`` of Sub."""
    found: list[str] = []
    if isinstance(value, dict):
        for key, inner in value.items():
            if key == "Ref" and isinstance(inner, str):
                found.append(inner)
            elif key == "Fn::GetAtt":
                found.append(inner[0] if isinstance(inner, list) else inner.split(".")[0])
            elif key == "Fn::Sub" and isinstance(inner, str):
                found += [r.split(".")[0] for r in re.findall(r"\$\{([^}!]+)\}", inner)]
            else:
                found += references(inner)
    elif isinstance(value, list):
        for inner in value:
            found += references(inner)
    return found


def test_every_function_chalice_generates_is_watched_and_every_name_resolves(packaged_real_app: Path) -> None:
    template = load_template(packaged_real_app)
    resources = template["Resources"]
    functions = [k for k, r in resources.items() if r["Type"] == "AWS::Serverless::Function"]
    assert len(functions) >= 9
    # GIVEN every function in the package THEN it has both alarms, naming it
    for function in functions:
        for kind in ("Errors", "Throttles"):
            props = resources[f"{function}{kind}Alarm"]["Properties"]
            assert props["Dimensions"] == [{"Name": "FunctionName", "Value": {"Ref": function}}]
    # AND every name the alarms and the dashboard use is a resource, parameter or pseudo parameter
    known = set(resources) | set(template["Parameters"])
    monitoring = {k: r for k, r in resources.items() if r["Type"].startswith("AWS::CloudWatch::")}
    assert DASHBOARD in monitoring
    for logical_id, resource in monitoring.items():
        for name in references(resource):
            assert name in known or name.startswith("AWS::"), f"{logical_id} names {name}"


def test_the_generated_rest_api_stage_is_throttled_and_named_for_its_stage(packaged_real_app: Path) -> None:
    api = load_template(packaged_real_app)["Resources"][REST_API]
    assert api["Type"] == "AWS::Serverless::Api"
    props = api["Properties"]
    # Chalice's own properties survive the merge, and SAM's MethodSettings reach the stage it creates
    assert props["StageName"] == "api"
    assert props["DefinitionBody"]["paths"]["/v1/plaid"]
    assert props["DefinitionBody"]["info"]["title"] == props["Name"] == "txn-dev"
    assert props["MethodSettings"] == [
        {"ResourcePath": "/*", "HttpMethod": "*", "ThrottlingRateLimit": 50.0, "ThrottlingBurstLimit": 100}
    ]
