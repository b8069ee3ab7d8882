"""Suite-wide set-up: local environment defaults and the local AWS (moto server).

The environment is set before any ``chalicelib`` import so settings and Powertools read
it. Integration tests share one moto server on 127.0.0.1:4566, started here when nothing
listens there and stopped when the session ends; the declared resources are bootstrapped
once. Tests isolate themselves with fresh ids rather than wiping the server.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from ops.local_aws import apply_local_env, local_aws

apply_local_env()
os.environ.setdefault("POWERTOOLS_LOG_LEVEL", "WARNING")
os.environ.setdefault("POWERTOOLS_METRICS_NAMESPACE", "txn")
os.environ.setdefault("POWERTOOLS_DEV", "false")

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session")
def aws_endpoint() -> Iterator[str]:
    """The local AWS with every declared resource, for the whole session."""
    from chalicelib.aws.clients import reset_clients
    from chalicelib.infra.bootstrap import bootstrap
    from chalicelib.settings import reset_settings

    log = ROOT / ".pytest_cache" / "moto.log"
    log.parent.mkdir(exist_ok=True)
    with local_aws(log_path=log):
        reset_settings()
        reset_clients()
        bootstrap()
        yield os.environ["AWS_ENDPOINT_URL"]


@pytest.fixture
def user_id() -> str:
    """A user id no other test uses, so tests share tables without seeing each other."""
    return f"user-{uuid.uuid4().hex[:12]}"


def new_id(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:16]}"
