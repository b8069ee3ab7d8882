"""Suite-wide set-up: local environment defaults and the local AWS (moto server).

The environment is set before any ``chalicelib`` import so settings and Powertools read
it. By default the session starts its **own** moto server on a free port and stops it at
the end; it never attaches to a server it did not start, so a ``make run`` stack (or a
LocalStack holding data) is left alone and several suites can run side by side. Running
against LocalStack is an explicit opt-in (``TXN_TEST_LOCALSTACK=1``, ``make test-localstack``):
its endpoint then comes from ``localstack-client``'s configuration (``LOCALSTACK_HOST``).
The declared resources are bootstrapped once; tests isolate themselves with fresh ids.
"""

from __future__ import annotations

import json
import logging
import os
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import boto3
import pytest

from ops.local_aws import apply_local_env, free_port, local_aws

#: Opt-in: run the integration tests against a running LocalStack instead of our own moto.
USE_LOCALSTACK = os.environ.get("TXN_TEST_LOCALSTACK", "").lower() in {"1", "true", "yes"}


def _session_endpoint() -> str:
    if USE_LOCALSTACK:
        from localstack_client.config import get_service_endpoint

        endpoint = get_service_endpoint("dynamodb")  # the edge: every service answers there
        if not endpoint:
            raise RuntimeError("localstack-client resolved no endpoint; set LOCALSTACK_HOST")
        return endpoint
    return f"http://127.0.0.1:{free_port()}"


# Set unconditionally: an AWS_ENDPOINT_URL from the shell must not steer the suite elsewhere.
os.environ["AWS_ENDPOINT_URL"] = _session_endpoint()
apply_local_env()
os.environ.setdefault("POWERTOOLS_LOG_LEVEL", "WARNING")
os.environ.setdefault("POWERTOOLS_METRICS_NAMESPACE", "txn")
os.environ.setdefault("POWERTOOLS_DEV", "false")

ROOT = Path(__file__).resolve().parent.parent

#: The local stack's fixtures (fake Plaid, fake peers, the app over HTTP, the runtime), one per session.
pytest_plugins = ["tests.stack"]


@pytest.hookimpl(tryfirst=True)  # before xdist starts the workers (its own hook runs last)
def pytest_sessionstart(session: pytest.Session) -> None:
    """The xdist controller compiles the suite once for all its workers (tests/bytecode_cache.py)."""
    config = session.config
    if getattr(config.option, "numprocesses", None) and not hasattr(config, "workerinput"):
        from tests import bytecode_cache

        bytecode_cache.fill(ROOT / "tests", ROOT / "ops")


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """Hand a random-order run's seed to each xdist worker (``-p randomly``). pytest-randomly
    does so itself only when xdist is registered under its entry point's name; the suite loads
    xdist by module (``-p xdist.plugin``, plugin autoload off), so without this every worker
    stops at start-up, its seed missing."""
    seed = getattr(node.config.option, "randomly_seed", None)
    if isinstance(seed, int):
        node.workerinput.setdefault("randomly_seed", seed)


def pytest_collection_finish(session: pytest.Session) -> None:
    """A worker's full garbage collections skip what collection built (ops/heap.py)."""
    from ops.heap import freeze_survivors_of_full_collections

    freeze_survivors_of_full_collections(now=True)


@pytest.hookimpl(trylast=True)  # after every conftest has marked its items
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Node ids that xdist can schedule by: one per test, and the ``xdist_group`` in it.

    ``make test`` runs two xdist workers with ``--dist loadgroup``, which keys its work by node
    id and sends tests whose id ends in ``@group`` to one worker (an ``xdist_group`` mark's, or
    the module's when the test uses a module-scoped fixture). Two things defeat it here:
    schemathesis names each API operation's test but leaves them one id (xdist would run one
    of the 35), and xdist 3.8 writes the group into ``item._nodeid``, which pytest 9.2 no
    longer reads (its ids live in ``item._id``). Both are set right here; a repeated id is an
    error rather than tests silently not run.
    """
    counts = Counter(item.nodeid for item in items)
    for item in items:
        nodeid = item.nodeid
        if counts[nodeid] > 1 and item.name != nodeid.rpartition("::")[2]:
            nodeid = f"{nodeid.rpartition('::')[0]}::{item.name}"
        groups = sorted(
            {str(m.args[0] if m.args else m.kwargs.get("name", "default")) for m in item.iter_markers("xdist_group")}
        ) or _module_fixture_group(item)
        if groups and getattr(config.option, "loadgroup", False) and "@" not in nodeid:
            nodeid = f"{nodeid}@{'_'.join(groups)}"
        if nodeid != item.nodeid:
            item._id = type(item._id).parse(nodeid)
    repeated = [nodeid for nodeid, n in Counter(item.nodeid for item in items).items() if n > 1]
    if repeated:
        raise pytest.UsageError(f"tests sharing a node id would run once under xdist: {repeated}")


def _module_fixture_group(item: pytest.Item) -> list[str]:
    """The module's path as a group when the test uses a module-scoped fixture: a module's
    tests split over two workers would build it twice (a sample scored, a pipeline run)."""
    definitions = getattr(getattr(item, "_fixtureinfo", None), "name2fixturedefs", {})
    if any(defs and defs[-1].scope == "module" for defs in definitions.values()):
        return [item.nodeid.partition("::")[0]]
    return []


@pytest.fixture(scope="session")
def aws_endpoint() -> Iterator[str]:
    """The session's own local AWS (or the opted-in LocalStack) with every declared resource."""
    from chalicelib.aws.clients import reset_clients
    from chalicelib.infra.bootstrap import bootstrap
    from chalicelib.settings import reset_settings

    log = ROOT / ".pytest_cache" / f"moto-{os.environ.get('PYTEST_XDIST_WORKER', 'main')}.log"  # one per worker
    log.parent.mkdir(exist_ok=True)
    with local_aws(log_path=log, own=not USE_LOCALSTACK, quiet=True):
        reset_settings()
        reset_clients()
        bootstrap()
        yield os.environ["AWS_ENDPOINT_URL"]


@pytest.fixture
def user_id() -> str:
    """A user id no other test uses, so tests share tables without seeing each other."""
    return f"user-{uuid.uuid4().hex[:12]}"


@pytest.fixture
def override_settings(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[..., None]]:
    """Set environment variables for one test and re-read settings; undone afterwards."""

    def apply(**env: str) -> None:
        for key, value in env.items():
            monkeypatch.setenv(key, value)
        _reset_process_state()

    yield apply
    monkeypatch.undo()
    _reset_process_state()


def _reset_process_state() -> None:
    """Forget everything built from settings, so the next call re-reads the environment.

    AWS clients are cached by the settings they are built from: a changed one gets its own.
    """
    from chalicelib.aws.messaging import queue_url
    from chalicelib.settings import reset_settings

    reset_settings()
    queue_url.cache_clear()


class _Collect(logging.Handler):
    def __init__(self) -> None:
        super().__init__(level=logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@pytest.fixture
def service_logs() -> Iterator[list[logging.LogRecord]]:
    """Records the service logger emits during the test (it does not propagate to root,
    so pytest's caplog would see them or not depending on what ran before)."""
    from chalicelib.observability import SERVICE

    handler = _Collect()
    target = logging.getLogger(SERVICE)
    # A library configuring logging (dictConfig's disable_existing_loggers) may have disabled
    # the logger earlier in the session: observe what the code logs regardless.
    was_disabled, level = target.disabled, target.level
    target.disabled = False
    target.setLevel(min(level or logging.WARNING, logging.WARNING))
    target.addHandler(handler)
    try:
        yield handler.records
    finally:
        target.removeHandler(handler)
        target.disabled = was_disabled
        target.setLevel(level)


def empty_queue(name: str) -> int:
    """Delete every visible message of a queue (PurgeQueue allows one call a minute).

    Called around most pipeline tests: it uses the process's cached client and queue URL and
    deletes ten messages a request.
    """
    from ops.queues import take_all

    return len(take_all(name))


def new_id(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:16]}"


class Capture:
    """Reads what reached a queue, keeping only messages that match a predicate."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.sqs = boto3.client("sqs")
        self.seen: list[dict[str, Any]] = []

    def drain(self) -> list[dict[str, Any]]:
        while True:
            messages = self.sqs.receive_message(QueueUrl=self.url, MaxNumberOfMessages=10, WaitTimeSeconds=0).get(
                "Messages", []
            )
            if not messages:
                return self.seen
            for m in messages:
                self.seen.append(json.loads(m["Body"]))
                self.sqs.delete_message(QueueUrl=self.url, ReceiptHandle=m["ReceiptHandle"])

    def matching(self, predicate: Callable[[dict[str, Any]], bool]) -> list[dict[str, Any]]:
        return [m for m in self.drain() if predicate(m)]


@pytest.fixture(scope="session")
def event_capture(aws_endpoint: str) -> Capture:
    """Every event published on the service's bus, copied to a test queue by a rule."""
    sqs, events = boto3.client("sqs"), boto3.client("events")
    url = sqs.create_queue(QueueName="test-event-capture")["QueueUrl"]
    arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    from chalicelib.settings import get_settings

    bus = get_settings().event_bus
    events.put_rule(Name="test-capture-all", EventBusName=bus, EventPattern=json.dumps({"source": ["txn.service"]}))
    events.put_targets(Rule="test-capture-all", EventBusName=bus, Targets=[{"Id": "capture", "Arn": arn}])
    return Capture(url)


@pytest.fixture(scope="session")
def replay_feeder(aws_endpoint: str) -> Capture:
    """The insight replay-feeder queue, read as a test would read a peer's inbox."""
    from chalicelib.aws.messaging import queue_url
    from chalicelib.settings import get_settings

    return Capture(queue_url(get_settings().replay_feeder_queue))
