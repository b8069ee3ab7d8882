"""Rendering (b): the local bootstrap is idempotent, and its command says what it did."""

from __future__ import annotations

import os
import socket
import subprocess
import sys

import pytest

from chalicelib.infra.bootstrap import bootstrap
from chalicelib.infra.declaration import Infrastructure
from tests.infra.support import ROOT

pytestmark = pytest.mark.integration


def stage_scoped_names(infra: Infrastructure) -> set[str]:
    names = {t.name for t in infra.tables if not (t.shared or t.external)}
    names |= {n for q in infra.queues for n in (q.name, q.dlq_name)}
    names |= {s.name for s in infra.streams} | {b.name for b in infra.buses} | {r.name for r in infra.rules}
    return names


def run_bootstrap_command(*args: str, endpoint: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "AWS_ENDPOINT_URL": endpoint}
    return subprocess.run(
        [sys.executable, "-m", "ops.bootstrap", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def unused_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_second_bootstrap_creates_nothing(aws_endpoint: str, fresh_infra: Infrastructure) -> None:
    # GIVEN a stage whose resources do not exist yet
    # WHEN the bootstrap runs twice
    first = bootstrap(fresh_infra)
    second = bootstrap(fresh_infra)
    # THEN the first creates every stage resource and the second finds them all
    assert stage_scoped_names(fresh_infra) <= set(first.created)
    assert second.created == []
    assert set(second.existing) == set(first.created) | set(first.existing)
    assert second.queue_urls == first.queue_urls
    assert second.stream_arns == first.stream_arns


def test_command_reports_each_resource_and_the_stream_arns(aws_endpoint: str, fresh_stage: str) -> None:
    # WHEN the documented command runs against the endpoint, twice
    first = run_bootstrap_command("--stage", fresh_stage, endpoint=aws_endpoint)
    second = run_bootstrap_command("--stage", fresh_stage, endpoint=aws_endpoint)
    # THEN it names what it created, then finds everything in place
    assert first.returncode == 0, first.stderr
    assert f"created  {fresh_stage}-txn-transactions" in first.stdout
    assert f"created  {fresh_stage}-txn-plaid-throttle-dlq" in first.stdout
    assert "export TRANSACTIONSTABLE_STREAM_ARN=arn:aws:dynamodb:us-east-1:" in first.stdout
    assert f"table/{fresh_stage}-txn-transactions/stream/" in first.stdout
    assert second.returncode == 0, second.stderr
    assert "\n0 created," in second.stdout
    assert f"exists   {fresh_stage}-txn-auth0-login" in second.stdout


def test_command_says_so_when_nothing_listens() -> None:
    endpoint = f"http://127.0.0.1:{unused_port()}"
    result = run_bootstrap_command(endpoint=endpoint)
    assert result.returncode == 2
    assert f"nothing listens at {endpoint}" in result.stderr
    assert "make run" in result.stderr
