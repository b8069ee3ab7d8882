"""Rendering (a) end to end: the documented package command, its SAM template, cfn-lint.

The real app is packaged once per session (the first run downloads the Lambda wheels from
PyPI); a throwaway project with every declared consumer is packaged too, so SQS, Kinesis and
DynamoDB-stream overrides are checked after Chalice's merge whatever app.py holds today.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

import pytest
from chalice import Chalice

from chalicelib.infra import cloudformation as cfn
from chalicelib.infra.declaration import CONSUMER_TIMEOUTS, VISIBILITY_TO_TIMEOUT_RATIO, SqsSource, declare
from chalicelib.settings import SECRETS, SERVICE_URLS
from tests.infra import sample_app
from tests.infra.support import INTERNAL_URLS, load_template, run_package, sample_project

pytestmark = pytest.mark.slow

_DECLARED_TYPES = {
    "AWS::DynamoDB::Table",
    "AWS::SQS::Queue",
    "AWS::SQS::QueuePolicy",
    "AWS::Kinesis::Stream",
    "AWS::Events::EventBus",
    "AWS::Events::Rule",
}


def real_app() -> Chalice:
    import app

    return app.app


def assert_holds_every_declared_resource(template: dict[str, Any]) -> None:
    expected = cfn.resources_template(declare())
    resources = template["Resources"]
    for logical_id, declared in expected["Resources"].items():
        assert logical_id in resources, f"{logical_id} missing from the package"
        assert resources[logical_id] == declared
    assert {r["Type"] for r in expected["Resources"].values()} == _DECLARED_TYPES
    assert template["Parameters"].items() >= expected["Parameters"].items()
    assert template["Conditions"] == expected["Conditions"]
    assert resources[cfn.SERVICE_POLICY]["Type"] == "AWS::IAM::ManagedPolicy"
    # an override aimed at a resource Chalice did not emit would leave a resource without a type
    assert [logical_id for logical_id, r in resources.items() if "Type" not in r] == []


def assert_event_sources_complete(template: dict[str, Any], app: Chalice) -> int:
    """Every event source of ``app`` is declared and carries its options; returns how many."""
    infra = declare()
    checked = 0
    for config in app.event_sources:
        consumer = cfn.declared_consumer(infra, config)  # raises for an undeclared source
        if consumer is None:
            continue
        kind = {"SqsSource": "sqs", "KinesisSource": "kinesis", "DynamoDBStreamSource": "dynamodb"}[
            type(consumer.source).__name__
        ]
        function = template["Resources"][cfn.function_logical_id(config.name)]["Properties"]
        properties = function["Events"][cfn.event_source_logical_id(config.name, kind)]["Properties"]
        for option, value in cfn.event_source_options(consumer.source).items():
            assert properties[option] == value, f"{config.name}: {option}"
        reference = properties["Queue" if kind == "sqs" else "Stream"]
        assert len(reference) == 1, f"{config.name}: merged into an invalid intrinsic {reference}"
        assert properties["BatchSize"] == consumer.source.batch_size
        assert function["Timeout"] == consumer.timeout == CONSUMER_TIMEOUTS[config.name]
        if isinstance(consumer.source, SqsSource):
            queue = template["Resources"][consumer.source.queue]["Properties"]
            assert queue["VisibilityTimeout"] >= VISIBILITY_TO_TIMEOUT_RATIO * function["Timeout"]
        checked += 1
    return checked


def assert_roles_use_only_the_service_policy(template: dict[str, Any]) -> None:
    roles = {k: r for k, r in template["Resources"].items() if r["Type"] == "AWS::IAM::Role"}
    assert roles
    for logical_id, role in roles.items():
        assert role["Properties"]["ManagedPolicyArns"] == [{"Ref": cfn.SERVICE_POLICY}], logical_id
        assert role["Properties"]["Policies"] == [], logical_id


# --- the real app ---------------------------------------------------------------------


def test_real_package_holds_every_declared_resource(packaged_real_app: Path) -> None:
    assert_holds_every_declared_resource(load_template(packaged_real_app))


def test_real_package_completes_every_event_source_of_the_app(packaged_real_app: Path) -> None:
    # GIVEN whatever consumers app.py registers today THEN each one is declared and complete
    assert_event_sources_complete(load_template(packaged_real_app), real_app())


def test_real_package_gives_every_role_the_least_privilege_policy(packaged_real_app: Path) -> None:
    assert_roles_use_only_the_service_policy(load_template(packaged_real_app))


def test_real_package_carries_no_secret_into_a_function(packaged_real_app: Path) -> None:
    # Secrets reach a function only as SSM parameter names (prod) or not at all (dev's local defaults)
    from ops.package import secret_parameters

    functions = [r for r in load_template(packaged_real_app)["Resources"].values() if "Environment" in r["Properties"]]
    assert functions
    for function in functions:
        variables = function["Properties"]["Environment"]["Variables"]
        assert not set(variables) & {*secret_parameters("prod"), "PLAID_SECRET", "PLAID_CLIENT_ID"}


def test_real_package_passes_cfn_lint(packaged_real_app: Path, lint_findings: dict[Path, list[str]]) -> None:
    assert lint_findings[packaged_real_app] == []


def test_real_bundle_holds_the_app_and_its_layer_the_dependencies(packaged_real_app: Path) -> None:
    # The app code and its pinned dependencies ship apart (automatic_layer), so a code change
    # repackages in about a second instead of downloading every wheel again.
    with zipfile.ZipFile(packaged_real_app.with_name("deployment.zip")) as bundle:
        names = bundle.namelist()
    assert "app.py" in names
    assert "chalicelib/infra/declaration.py" in names
    assert "chalicelib/insight/income/weights.json" in names  # the income model's weights ship with the code
    assert not [n for n in names if n.startswith(("ops/", "tests/", "localstack/"))]
    with zipfile.ZipFile(packaged_real_app.with_name("layer-deployment.zip")) as layer:
        site_packages = {n.split("/")[4] for n in layer.namelist() if n.count("/") >= 5}
    assert {"plaid", "aws_lambda_powertools", "marshmallow"} <= site_packages
    template = load_template(packaged_real_app)
    assert template["Resources"]["ManagedLayer"]["Type"] == "AWS::Serverless::LayerVersion"


# --- every kind of consumer -----------------------------------------------------------


def test_sample_package_completes_every_declared_consumer(packaged_sample_app: Path) -> None:
    template = load_template(packaged_sample_app)
    assert assert_event_sources_complete(template, sample_app.app) == len(declare().consumers) == 10
    assert_holds_every_declared_resource(template)
    assert_roles_use_only_the_service_policy(template)


def test_sample_package_passes_cfn_lint(packaged_sample_app: Path, lint_findings: dict[Path, list[str]]) -> None:
    assert lint_findings[packaged_sample_app] == []


def test_package_refuses_a_stale_policy_file(tmp_path: Path, packaged_sample_app: Path) -> None:
    from ops.package import main

    # GIVEN a project whose chalice-deploy policy no longer matches the declaration
    project = packaged_sample_app.parent.parent
    policy = project / ".chalice" / "policy-dev.json"
    original = policy.read_text()
    policy.write_text(original.replace("dev-txn-transactions", "dev-txn-renamed"))
    try:
        # WHEN packaging THEN it fails before calling chalice, naming the fix
        assert main([str(tmp_path / "out"), "--project-dir", str(project)]) == 1
        assert not (tmp_path / "out" / "sam.json").exists()
    finally:
        policy.write_text(original)


def test_resources_only_stack_for_chalice_deploy_passes_cfn_lint(
    resources_only_stack: Path, lint_findings: dict[Path, list[str]]
) -> None:
    # WHEN the resources are rendered as a stack of their own (the `chalice deploy` path)
    stack = resources_only_stack
    template = load_template(stack)
    # THEN it holds the prod resources and the stream ARNs to export, and lints clean
    names = {r["Properties"].get("TableName") for r in template["Resources"].values()}
    assert "prod-txn-transactions" in names
    assert set(template["Outputs"]) >= {"TransactionsTableStreamArn", "PlaidTableStreamArn", "WebhooksQueueDlqUrl"}
    assert "Transform" not in template
    assert lint_findings[stack] == []


# --- a prod stage cannot package incomplete -------------------------------------------


def _functions(template: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {k: r["Properties"] for k, r in template["Resources"].items() if r["Type"] == "AWS::Serverless::Function"}


def test_a_complete_prod_stage_packages_with_every_setting_in_every_function(packaged_complete_prod: Path) -> None:
    # GIVEN a prod stage that names every service URL and every secret's SSM parameter (STAGE=prod, as make passes it)
    from ops.package import stage_variables

    configured = stage_variables("prod", packaged_complete_prod.parents[1])
    needed = [*SERVICE_URLS, *(f"{name}_PARAMETER" for name in SECRETS)]
    # THEN it packages, and every function (the API's and each consumer's) runs with each of them as configured
    functions = _functions(load_template(packaged_complete_prod))
    assert len(functions) == 1 + len(declare().consumers) + 1  # the API, every consumer, the weekly schedule
    for logical_id, function in functions.items():
        variables = function["Environment"]["Variables"]
        assert {name: variables.get(name) for name in needed} == {name: configured[name] for name in needed}, logical_id
        assert variables["STAGE"] == "prod"


@pytest.mark.parametrize(
    "removed",
    [
        ("ADMIN_API_URL",),
        ("PAVE_API_KEY_PARAMETER",),
        ("USER_SERVICE_URL", "PAYMENTS_SERVICE_URL", "PLAID_SECRET_PARAMETER"),
    ],
)
def test_a_prod_stage_lacking_a_url_or_a_secret_parameter_is_refused_naming_it(
    tmp_path: Path, removed: tuple[str, ...]
) -> None:
    # GIVEN the complete prod stage with settings removed (or left blank)
    project = sample_project(tmp_path / "project", INTERNAL_URLS)
    config_path = project / ".chalice" / "config.json"
    config = json.loads(config_path.read_text())
    variables = config["stages"]["prod"]["environment_variables"]
    for name in removed:
        variables.pop(name, None)
    variables.setdefault(removed[0], " ")  # blank is missing too
    config_path.write_text(json.dumps(config))

    # WHEN it is packaged as `STAGE=prod make package` does
    out = tmp_path / "out"
    result = run_package(out, "--project-dir", str(project), stage="prod")

    # THEN it fails with one message naming exactly what is missing, and writes nothing
    assert result.returncode == 1
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("error: stage prod lacks settings")
    order = [*SERVICE_URLS, *(f"{name}_PARAMETER" for name in SECRETS)]
    assert f"at run time: {', '.join(sorted(removed, key=order.index))};" in result.stderr
    assert not out.exists()


def test_the_repositorys_prod_stage_lacks_at_most_the_internal_services_urls() -> None:
    # The public services' URLs and every secret's parameter name are the project's to set; the
    # internal services' URLs are the deployer's, and packaging prod refuses until they are added.
    from chalicelib.settings import missing_settings
    from ops.package import stage_variables

    assert set(missing_settings("prod", stage_variables("prod"))) <= set(INTERNAL_URLS)
    assert missing_settings("dev", stage_variables("dev")) == []
