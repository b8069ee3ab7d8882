"""``make run``: the whole service locally, on embedded defaults.

Starts (or reuses) the local AWS on 127.0.0.1:4566 and creates every declared resource;
starts the fake Plaid (:4567), the fake peer services (:4570-4573) and the fake Pave
(:4575); serves the app
with ``chalice local`` (:8000); runs the event runtime that delivers queues, the stream,
table streams, TTL expiries and schedules to the app's handlers; and a development
identity provider (:4574) whose tokens the API accepts. Then it links a demo item through
the API, has the fake Plaid send a signed INITIAL_UPDATE to ``POST /v1/plaid``, shows the
pages being mined and refined, prints the demo user's payday as the API predicts it, its
savings history and its low-balance alert, its recurring expenses and cash-advance score and
what drives that score, its 14-day cash-flow forecast as a text chart with the lowest day
marked, and prints a token and how to query the result. Ctrl-C stops
everything it started.

The terminal tells that story only: the handlers' JSON logs and metrics go to log files that
the start-up lines name (:mod:`ops.run_output`), or to the terminal too with ``--verbose``.

Options go through make's ``ARGS`` (``make run ARGS="--no-demo --fresh"``; ``make run
ARGS=--help`` lists them). Local timings favour a fast loop: throttled pages 2 s apart and a
failed message back after 10 s (a poison message in its DLQ within a minute), where the
deployed queues wait 30 s and 6x the function's timeout (12 minutes for the miner);
``--production-timings`` runs with the deployed ones.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator, Mapping, MutableMapping
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, TextIO

from ops import demo_balances, demo_sync, run_output
from ops.local_aws import apply_local_env, local_aws, local_aws_kind, reset

if TYPE_CHECKING:
    from ops.fakes.pave import FakePave
    from ops.fakes.plaid import FakePlaid

ROOT = Path(__file__).resolve().parent.parent
APP_PORT = 8000
MOTO_LOG = ".moto.log"
DEMO_USER = "demo-user"


#: Local defaults for a fast loop; the deployed values are the declaration's.
LOCAL_THROTTLE_DELAY_SECONDS = 2
LOCAL_VISIBILITY_TIMEOUT_SECONDS = 10

ENVIRONMENT_HELP = """environment:
  AWS_ENDPOINT_URL        the local AWS to start or reuse (default http://127.0.0.1:4566)
  THROTTLE_DELAY_SECONDS  same as --throttle-delay (the flag wins)
  POWERTOOLS_LOG_LEVEL    the event handlers' log level (default INFO, in .run.log unless --verbose)
more in docs/local-runtime.md"""


def _parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog='make run ARGS="..."',
        description="The whole service locally: local AWS, the fakes, chalice local, the event runtime and a"
        " demo item. Ctrl-C stops everything it started.",
        epilog=ENVIRONMENT_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--port", type=int, default=APP_PORT, help="port for chalice local (default 8000)")
    parser.add_argument("--no-demo", action="store_true", help="start everything but link no demo item")
    parser.add_argument("--transactions", type=int, default=1500, help="transactions on the demo item (default 1500)")
    parser.add_argument(
        "--sync",
        action="store_true",
        help="link new items in /transactions/sync mode: the demo item is pulled by cursor, then kept current",
    )
    parser.add_argument(
        "--fresh",
        action="store_true",
        help="reset the local AWS already listening on the endpoint (moto) before creating the resources",
    )
    parser.add_argument(
        "--throttle-delay",
        type=int,
        metavar="SECONDS",
        help=f"delay between throttled Plaid pages (default {LOCAL_THROTTLE_DELAY_SECONDS}; deployed: the queue's 30)",
    )
    parser.add_argument(
        "--visibility-timeout",
        type=int,
        metavar="SECONDS",
        help="how long a failed message stays invisible before its retry"
        f" (default {LOCAL_VISIBILITY_TIMEOUT_SECONDS}; deployed: each queue's, 6x its function's timeout)",
    )
    parser.add_argument(
        "--production-timings",
        action="store_true",
        help="the deployed throttle delay and visibility timeouts instead of the local ones",
    )
    parser.add_argument(
        "--verbose",
        action="store_true",
        help=f"print the handlers' logs and metrics (and chalice local's output) here instead of in"
        f" {run_output.RUN_LOG} and {run_output.CHALICE_LOCAL_LOG}",
    )
    args = parser.parse_args(argv)
    if args.production_timings and (args.throttle_delay is not None or args.visibility_timeout is not None):
        parser.error("--production-timings sets both timings; drop --throttle-delay/--visibility-timeout")
    return args


@dataclass(frozen=True)
class Timings:
    """The two waits that decide how fast local work comes back; ``None``: the deployed value."""

    throttle_delay: int | None
    visibility_timeout: int | None

    @classmethod
    def choose(cls, args: argparse.Namespace, environ: Mapping[str, str]) -> Timings:
        if args.production_timings:
            return cls(None, None)
        from_env = environ.get("THROTTLE_DELAY_SECONDS")
        delay = args.throttle_delay
        if delay is None:
            delay = int(from_env) if from_env else LOCAL_THROTTLE_DELAY_SECONDS
        visibility = LOCAL_VISIBILITY_TIMEOUT_SECONDS if args.visibility_timeout is None else args.visibility_timeout
        return cls(delay, visibility)

    def apply(self, environ: MutableMapping[str, str]) -> None:
        """Settings read the throttle delay from the environment (the app and chalice local); the
        first Pave poll of an upload waits as long as a throttled page."""
        for name in ("THROTTLE_DELAY_SECONDS", "PAVE_POLL_DELAY_SECONDS"):
            if self.throttle_delay is None:
                environ.pop(name, None)
            else:
                environ[name] = str(self.throttle_delay)

    def describe(self) -> str:
        delay = "the queue's own (30 s)" if self.throttle_delay is None else f"{self.throttle_delay} s"
        visibility = (
            "each queue's own (6x its function's timeout)"
            if self.visibility_timeout is None
            else f"{self.visibility_timeout} s"
        )
        kind = "deployed" if self.visibility_timeout is None else "local; --production-timings for the deployed ones"
        return (
            f"timings ({kind}): throttled pages {delay} apart, the first Pave poll after as long;"
            f" a failed message retried after {visibility}"
        )


def describe_local_aws(started: bool, endpoint: str, fresh: bool) -> str:
    """What the run command found on the endpoint, resetting a reused moto first with ``fresh``."""
    if started:
        return f"local AWS: started moto server on {endpoint}"
    kind = local_aws_kind(endpoint)
    if fresh:
        if kind != "moto":
            raise SystemExit(f"--fresh resets moto only; {endpoint} is {kind}: restart it to start from nothing")
        reset(endpoint)
        return f"local AWS: a moto server was already listening on {endpoint}; reset it (--fresh)"
    return (
        f"local AWS: a {kind} server was already listening on {endpoint}; using it with the data it holds"
        " (--fresh resets it)"
    )


#: Where the story goes: the terminal (standard output unless ``app_output_to`` moved it).
_story: TextIO | None = None


def say(text: str) -> None:
    print(text, file=_story or sys.stdout, flush=True)


@contextmanager
def chalice_local(port: int, log_path: Path | None) -> Iterator[subprocess.Popen[bytes]]:
    """``chalice local`` in a child process, with this process's environment; its output goes to
    ``log_path`` (emptied first), or to this process's terminal when None."""
    chalice = Path(sys.executable).with_name("chalice")
    with ExitStack() as files:
        log = files.enter_context(log_path.open("wb")) if log_path else None
        process = subprocess.Popen(
            [str(chalice), "local", "--host", "127.0.0.1", "--port", str(port), "--stage", "dev", "--no-autoreload"],
            cwd=ROOT,
            stdout=log if log else _story,
            stderr=subprocess.STDOUT,
        )
    try:
        _wait_http(f"http://127.0.0.1:{port}/health", process, log_path)
        yield process
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()


def _wait_http(url: str, process: subprocess.Popen[bytes], log_path: Path | None, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            where = f"see {log_path.name}" if log_path else "its output is above"
            raise RuntimeError(f"chalice local exited ({process.returncode}); {where}")
        try:
            with urllib.request.urlopen(url, timeout=1):
                return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError(f"{url} did not answer within {timeout:.0f} s")


def main(argv: list[str] | None = None) -> int:
    args = _parse(argv)
    global _story  # noqa: PLW0603 - one terminal per process
    with ExitStack() as output:
        if args.verbose:
            output.enter_context(run_output.logging_to_terminal())
        else:
            _story = output.enter_context(run_output.app_output_to(ROOT / run_output.RUN_LOG))
        try:
            return _run(args)
        finally:
            _story = None


def _run(args: argparse.Namespace) -> int:
    apply_local_env()
    os.environ.setdefault("POWERTOOLS_LOG_LEVEL", "INFO")  # in .run.log unless --verbose
    stop = threading.Event()

    def interrupt(signum: int, frame: FrameType | None) -> None:
        stop.set()

    signal.signal(signal.SIGINT, interrupt)
    signal.signal(signal.SIGTERM, interrupt)

    timings = Timings.choose(args, os.environ)
    timings.apply(os.environ)
    if args.sync:
        os.environ.update(demo_sync.ENVIRONMENT)  # chalice local inherits it
    with ExitStack() as stack:
        started = stack.enter_context(local_aws(log_path=ROOT / MOTO_LOG))
        say(describe_local_aws(started, os.environ["AWS_ENDPOINT_URL"], args.fresh))
        say(run_output.describe(args.verbose, MOTO_LOG if started else None))
        say(timings.describe())
        _bootstrap()

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

        stack.enter_context(chalice_local(args.port, None if args.verbose else ROOT / run_output.CHALICE_LOCAL_LOG))
        app_url = f"http://127.0.0.1:{args.port}"
        say(f"chalice local serving the app on {app_url}")

        runtime_thread = _start_runtime(stop, timings.visibility_timeout)
        stack.callback(runtime_thread.join, 30)
        stack.callback(stop.set)

        token = issuer.user_token(DEMO_USER)
        if not args.no_demo:
            _demo(plaid, app_url, token, args.transactions, stop, timings, sync=args.sync)
            for line in [] if stop.is_set() else demo_balances.report(app_url, token, DEMO_USER, peers.segment):
                say(line)
            if not stop.is_set():
                from ops.demo import show_forecast, show_pave_insights

                show_pave_insights(app_url, token, DEMO_USER, say, stop, explain_score=_explain(pave, DEMO_USER))
                show_forecast(app_url, token, DEMO_USER, say)
            say("demo: done")
        say(
            f"a token for {DEMO_USER} (valid for an hour):\n  export TOKEN={token}\n"
            f'  curl -H "Authorization: Bearer $TOKEN" {app_url}/v1/users/{DEMO_USER}/transactions?limit=5\n'
            f'  curl -H "Authorization: Bearer $TOKEN" {app_url}/v1/users/{DEMO_USER}/accounts\n'
            f'  curl -H "Authorization: Bearer $TOKEN" {app_url}/v1/users/{DEMO_USER}/payday\n'
            f'  curl -H "Authorization: Bearer $TOKEN" {app_url}/v1/users/{DEMO_USER}/savings\n'
            f'  curl -H "Authorization: Bearer $TOKEN" {app_url}/v1/users/{DEMO_USER}/transactions/expenses\n'
            f'  curl -H "Authorization: Bearer $TOKEN" {app_url}/v1/users/{DEMO_USER}/scores/cash_advance\n'
            f"  .venv/bin/python -m ops.query {DEMO_USER}   (straight from the tables)"
        )
        say("running; Ctrl-C stops everything this command started")
        while not stop.wait(0.5):
            pass
        say("stopping")
    return 0


def _bootstrap() -> None:
    """Create every declared resource, and say which (wrapped: they are many)."""
    from chalicelib.infra.bootstrap import bootstrap

    report = bootstrap()
    say(f"bootstrap: {len(report.created)} created, {len(report.existing)} already there:")
    for line in textwrap.wrap(", ".join(sorted(report.created + report.existing)), 100, break_on_hyphens=False):
        say(f"  {line}")


def _start_runtime(stop: threading.Event, visibility_timeout: int | None) -> threading.Thread:
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

    runtime = EventRuntime(application.app, visibility_timeout=visibility_timeout, on_invocation=show)
    say("event runtime delivering:")
    for line in runtime.describe():
        say(f"  {line}")
    thread = threading.Thread(target=runtime.run_forever, args=(stop,), name="event-runtime", daemon=True)
    thread.start()
    return thread


def _demo(
    plaid: FakePlaid,
    app_url: str,
    token: str,
    transaction_count: int,
    stop: threading.Event,
    timings: Timings,
    *,
    sync: bool = False,
) -> None:
    """Link an item through the API, as a client would, then let Plaid announce its data."""
    import json

    from ops.fakes.plaid import webhooks

    # A household that lives within its means (pay covers spending, no overdraft fees), so the
    # fake Pave's cash-advance score has something to show.
    fake = plaid.create_item(transaction_count=transaction_count, history_days=365, solvent=True)
    threshold = demo_balances.seed_threshold(fake, DEMO_USER)
    say(f"demo: {DEMO_USER}'s low-balance alert threshold set to ${threshold} (just above the main account)")
    request = urllib.request.Request(
        f"{app_url}/v1/users/{DEMO_USER}/items",
        data=json.dumps({"public_token": fake.public_token, "main_account_id": fake.roles()["checking"]}).encode(),
        method="POST",
        headers={"Content-Type": "application/json", "Authorization": f"Bearer {token}"},
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        say(
            f"demo: linked item {fake.item_id} ({fake.institution_name}) for {DEMO_USER}: HTTP {response.status};"
            f" {len(fake.transactions)} transactions over a year of a household whose pay covers its spending"
        )
    delivery = plaid.send_webhook(f"{app_url}/v1/plaid", webhooks.transactions_update(fake.item_id, "INITIAL_UPDATE"))
    say(f"demo: fake Plaid sent a signed INITIAL_UPDATE; the app answered {delivery.status}")
    delay = "30" if timings.throttle_delay is None else str(timings.throttle_delay)
    mode = "a pull by /transactions/sync, from no cursor" if sync else "a 180-day remine"
    say(f"demo: mining (adding the item also queued {mode}; throttled pages come {delay} s apart)")
    quiet_for = 15 + int(delay)  # the next throttled page is at most one delay away
    _wait_for_mining(stop, quiet_for)
    if sync and not stop.is_set():
        for line in demo_sync.report(DEMO_USER, fake, plaid) + demo_sync.announce_changes(plaid, fake, app_url):
            say(f"demo: {line}")
        _wait_for_mining(stop, quiet_for)
        for line in demo_sync.report(DEMO_USER, fake, plaid):
            say(f"demo: {line}")
    if not stop.is_set():
        _show_payday(app_url, token)


def _wait_for_mining(stop: threading.Event, quiet_for: float) -> None:
    """Print the refined count as it grows, until it has not changed for ``quiet_for`` seconds."""
    last, quiet_since = -1, time.monotonic()
    while not stop.is_set() and time.monotonic() - quiet_since < quiet_for:
        count = _count_transactions(DEMO_USER)
        if count != last:
            say(f"demo: {count} transactions refined so far")
            last, quiet_since = count, time.monotonic()
        stop.wait(1.0)


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


def _explain(pave: FakePave, user_id: str) -> Callable[[], str | None]:
    """What the fake Pave says drives the user's score, read when the score is shown."""

    def explain() -> str | None:
        drivers = pave.score_drivers(user_id)
        return drivers.describe() if drivers else None

    return explain


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
