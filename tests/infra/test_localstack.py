"""The optional LocalStack set-up: its compose file and init hook, exercised without Docker.

The hook is the same bootstrap every other local AWS gets, so it is run here against moto
server exactly as LocalStack would run it, only with the repository and Python pointed at
this checkout.
"""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Any

import pytest
import yaml  # type: ignore[import-untyped]

from tests.infra.support import ROOT

LOCALSTACK = ROOT / "localstack"
HOOK = LOCALSTACK / "init" / "ready.d" / "bootstrap-txn.sh"


def compose() -> dict[str, Any]:
    return yaml.safe_load((LOCALSTACK / "docker-compose.yml").read_text())  # type: ignore[no-any-return]


def test_localstack_folder_is_not_an_importable_package() -> None:
    # a package named localstack at the root would shadow LocalStack's own
    assert not (LOCALSTACK / "__init__.py").exists()
    assert not list(LOCALSTACK.rglob("*.py"))


def test_compose_serves_4566_and_mounts_the_hook_and_the_repository() -> None:
    service = compose()["services"]["localstack"]
    assert "127.0.0.1:4566:4566" in service["ports"]
    assert "./init/ready.d:/etc/localstack/init/ready.d:ro" in service["volumes"]
    assert "..:/opt/txn:ro" in service["volumes"]
    enabled = set(service["environment"]["SERVICES"].split(","))
    assert {"dynamodb", "dynamodbstreams", "sqs", "kinesis", "events"} <= enabled


def test_hook_is_executable() -> None:
    assert os.access(HOOK, os.X_OK)


@pytest.mark.integration
def test_hook_bootstraps_the_stage_it_is_given(aws_endpoint: str, fresh_stage: str) -> None:
    # GIVEN the hook as LocalStack runs it, with the repository and Python of this checkout
    env = {**os.environ, "TXN_REPO": str(ROOT), "TXN_PYTHON": sys.executable, "STAGE": fresh_stage}
    env["AWS_ENDPOINT_URL"] = aws_endpoint
    # WHEN it runs
    result = subprocess.run(["bash", str(HOOK)], env=env, capture_output=True, text=True, timeout=120, check=False)
    # THEN the stage's resources are created through the project's bootstrap
    assert result.returncode == 0, result.stderr
    assert f"bootstrapping stage {fresh_stage} at {aws_endpoint}" in result.stdout
    assert f"created  {fresh_stage}-txn-listener-eventbridge" in result.stdout
