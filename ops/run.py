"""``make run``: the whole service locally, on embedded defaults.

Starts (or reuses) the local AWS on 127.0.0.1:4566 and creates every declared resource;
starts the fake Plaid (:4567), the fake peer services (:4570-4573) and the fake Pave
(:4575); serves the app
with ``chalice local`` (:8000); runs the event runtime that delivers queues, the stream,
table streams, TTL expiries and schedules to the app's handlers; and a development
identity provider (:4574) whose tokens the API accepts. Then it links a demo item through
the API, has the fake Plaid send a signed INITIAL_UPDATE to ``POST /v1/plaid``, shows the
pages being mined and refined, prints the demo user's payday as the API predicts it, its
savings history and its low-balance alert, and prints a token and how to query the result. Ctrl-C
stops everything it started.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING

from ops import demo_balances
from ops.local_aws import apply_local_env, local_aws

if TYPE_CHECKING:
    from ops.fakes.plaid import FakePlaid

ROOT = Path(__file__).resolve().parent.parent
APP_PORT = 8000
DEMO_USER = "demo-user"


def _parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="make run", description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=APP_PORT, help="port for chalice local (default 8000)")
    parser.add_argument("--no-demo", action="store_true", help="start everything but link no demo item")
    parser.add_argument("--transactions", type=int, default=1500, help="transactions on the demo item")
    return parser.parse_args(argv)


def say(text: str) -> None:
    print(text, flush=True)


@contextmanager
def chalice_local(port: int) -> Iterator[subprocess.Popen[bytes]]:
    """``chalice local`` in a child process, with this process's environment."""
    chalice = Path(sys.executable).with_name("chalice")
    process = subprocess.Popen(
        [str(chalice), "local", "--host", "127.0.0.1", "--port", str(port), "--stage", "dev", "--no-autoreload"],
        cwd=ROOT,
        stdout=(ROOT / ".chalice-local.log").open("ab"),
        stderr=subprocess.STDOUT,
    )
    try:
        _wait_http(f"http://127.0.0.1:{port}/health", process)
        yield process
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()


def _wait_http(url: str, process: subprocess.Popen[bytes], timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"chalice local exited ({process.returncode}); see .chalice-local.log")
        try:
            with urllib.request.urlopen(url, timeout=1):
                return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError(f"{url} did not answer within {timeout:.0f} s")


def main(argv: list[str] | None = None) -> int:
    args = _parse(argv)
    apply_local_env()
    os.environ.setdefault("POWERTOOLS_LOG_LEVEL", "WARNING")  # progress lines below, not handler logs
    stop = threading.Event()

    def interrupt(signum: int, frame: FrameType | None) -> None:
        stop.set()

    signal.signal(signal.SIGINT, interrupt)
    signal.signal(signal.SIGTERM, interrupt)

    with ExitStack() as stack:
        started = stack.enter_context(local_aws(log_path=ROOT / ".moto.log"))
        say(
            f"local AWS: {'started moto server' if started else 'using what listens'}"
            f" on {os.environ['AWS_ENDPOINT_URL']}"
        )
        from chalicelib.infra.bootstrap import bootstrap

        report = bootstrap()
        say(f"bootstrap: {len(report.created)} created, {len(report.existing)} already there")
        for name in sorted(report.created + report.existing):
            say(f"  {name}")

        from chalicelib.settings import AUTH0_PORT
        from ops.fakes.auth0 import DEFAULT_KEY_PATH, FakeAuth0
        from ops.fakes.pave import FakePave
        from ops.fakes.peers import FakePeers
        from ops.fakes.plaid import FakePlaid

        plaid = stack.enter_context(FakePlaid(port=4567))
        peers = stack.enter_context(FakePeers(default_ports=True, auto_user_status="ACTIVE"))
        pave = stack.enter_context(FakePave(port=FakePave.default_port))
        issuer = stack.enter_context(FakeAuth0(port=AUTH0_PORT, key_path=DEFAULT_KEY_PATH))
        say(f"fake Plaid on {plaid.url}; fake User Service, Payments, Admin API and Segment on :4570-4573")
        say(f"development identity provider (Auth0 stand-in) on {issuer.issuer}")
        say(f"fake Pave on {pave.api_url}")

        stack.enter_context(chalice_local(args.port))
        app_url = f"http://127.0.0.1:{args.port}"
        say(f"chalice local serving the app on {app_url} (log: .chalice-local.log)")

        runtime_thread = _start_runtime(stop)
        stack.callback(runtime_thread.join, 30)
        stack.callback(stop.set)

        token = issuer.user_token(DEMO_USER)
        if not args.no_demo:
            _demo(plaid, app_url, token, args.transactions, stop)
            for line in [] if stop.is_set() else demo_balances.report(app_url, token, DEMO_USER, peers.segment):
                say(line)
        say(
            f"a token for {DEMO_USER} (valid for an hour):\n  export TOKEN={token}\n"
            f'  curl -H "Authorization: Bearer $TOKEN" {app_url}/v1/users/{DEMO_USER}/transactions?limit=5\n'
            f'  curl -H "Authorization: Bearer $TOKEN" {app_url}/v1/users/{DEMO_USER}/accounts\n'
            f'  curl -H "Authorization: Bearer $TOKEN" {app_url}/v1/users/{DEMO_USER}/payday\n'
            f'  curl -H "Authorization: Bearer $TOKEN" {app_url}/v1/users/{DEMO_USER}/savings\n'
            f"  .venv/bin/python -m ops.query {DEMO_USER}   (straight from the tables)"
        )
        say("running; Ctrl-C stops everything this command started")
        while not stop.wait(0.5):
            pass
        say("stopping")
    return 0


def _start_runtime(stop: threading.Event) -> threading.Thread:
    sys.path.insert(0, str(ROOT))
    import app as application
    from ops.runtime import EventRuntime
    from ops.runtime.stats import Invocation

    def show(invocation: Invocation) -> None:
        if invocation.discarded:
            return
        outcome = invocation.error or (f"{len(invocation.failed)} failed" if invocation.failed else "ok")
        say(
            f"  {invocation.function:<24} {invocation.records:>3} record(s): {outcome}"
            f" ({invocation.seconds * 1000:.0f} ms)"
        )

    runtime = EventRuntime(application.app, on_invocation=show)
    say("event runtime delivering:")
    for line in runtime.describe():
        say(f"  {line}")
    thread = threading.Thread(target=runtime.run_forever, args=(stop,), name="event-runtime", daemon=True)
    thread.start()
    return thread


def _demo(plaid: FakePlaid, app_url: str, token: str, transaction_count: int, stop: threading.Event) -> None:
    """Link an item through the API, as a client would, then let Plaid announce its data."""
    import json

    from ops.fakes.plaid import webhooks

    fake = plaid.create_item(transaction_count=transaction_count, history_days=365)
    threshold = demo_balances.seed_threshold(fake, DEMO_USER)
    say(f"demo: {DEMO_USER}'s low-balance alert threshold set to ${threshold} (just above the main account)")
    request = urllib.request.Request(
        f"{app_url}/v1/users/{DEMO_USER}/items",
        data=json.dumps({"public_token": fake.public_token, "main_account_id": fake.roles()["checking"]}).encode(),
        method="POST",
        headers={"Content-Type": "application/json", "Authorization": f"Bearer {token}"},
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        say(f"demo: linked item {fake.item_id} ({fake.institution_name}) for {DEMO_USER}: HTTP {response.status}")
    delivery = plaid.send_webhook(f"{app_url}/v1/plaid", webhooks.transactions_update(fake.item_id, "INITIAL_UPDATE"))
    say(f"demo: fake Plaid sent a signed INITIAL_UPDATE; the app answered {delivery.status}")
    say("demo: mining (adding the item also queued a 180-day remine; the throttle queue spaces pages 30 s apart)")
    last, quiet_since = -1, time.monotonic()
    while not stop.is_set() and time.monotonic() - quiet_since < 45:
        count = _count_transactions(DEMO_USER)
        if count != last:
            say(f"demo: {count} transactions refined so far")
            last, quiet_since = count, time.monotonic()
        stop.wait(1.0)
    if not stop.is_set():
        _show_payday(app_url, token)
    say("demo: done")


def _show_payday(app_url: str, token: str) -> None:
    """The demo user's predicted payday, read through the API as a client would."""
    import json

    request = urllib.request.Request(
        f"{app_url}/v1/users/{DEMO_USER}/payday", headers={"Authorization": f"Bearer {token}"}
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        payday = json.load(response)
    dates = payday["collection_dates"]
    say(
        f"demo: {DEMO_USER}'s next payday {payday['next_payday']} ({payday['cadence']}, {payday['income_source']},"
        f" {payday['detection_used']}, confidence {payday['confidence']}); collection: instant {dates['instant']},"
        f" standard {dates['standard']}, extended {dates['extended']}"
        + (f"; {payday['reason']}" if payday["reason"] else "")
    )


def _count_transactions(user_id: str) -> int:
    from chalicelib.data.transactions import list_transactions

    total, cursor = 0, None
    while True:
        page = list_transactions(user_id, limit=500, cursor=cursor)
        total += len(page.transactions)
        if not (cursor := page.cursor):
            return total


if __name__ == "__main__":
    raise SystemExit(main())
