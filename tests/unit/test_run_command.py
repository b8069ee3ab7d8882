"""The run command as a newcomer meets it: options through make, --help, local timings, a reused local AWS."""

from __future__ import annotations

import subprocess
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from threading import Thread

import boto3
import pytest

from ops.local_aws import free_port, local_aws
from ops.run import (
    LOCAL_THROTTLE_DELAY_SECONDS,
    LOCAL_VISIBILITY_TIMEOUT_SECONDS,
    Timings,
    _parse,
    describe_local_aws,
)

ROOT = Path(__file__).resolve().parents[2]


def test_make_passes_args_to_the_run_command() -> None:
    # WHEN make is asked (dry run) what `make run ARGS="--no-demo --fresh"` would do
    result = subprocess.run(
        ["make", "-n", "run", "ARGS=--no-demo --fresh"], cwd=ROOT, capture_output=True, text=True, check=True
    )
    # THEN the options reach the command instead of make
    assert "-m ops.run --no-demo --fresh" in result.stdout


def test_help_lists_every_option_and_the_environment(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        _parse(["--help"])
    assert exited.value.code == 0
    shown = capsys.readouterr().out
    for option in ("--no-demo", "--port", "--transactions", "--fresh", "--throttle-delay", "--visibility-timeout"):
        assert option in shown
    assert "--production-timings" in shown and "THROTTLE_DELAY_SECONDS" in shown


def test_local_timings_are_short_and_production_ones_are_the_declarations() -> None:
    # WHEN started with no option THEN pages come seconds apart and failures come back in seconds
    local = Timings.choose(_parse([]), {})
    assert local == Timings(LOCAL_THROTTLE_DELAY_SECONDS, LOCAL_VISIBILITY_TIMEOUT_SECONDS)
    assert "2 s apart" in local.describe() and "after 10 s" in local.describe()
    # AND --production-timings leaves both to the queues (None: the declared values)
    production = Timings.choose(_parse(["--production-timings"]), {"THROTTLE_DELAY_SECONDS": "0"})
    assert production == Timings(None, None)
    environ = {"THROTTLE_DELAY_SECONDS": "0", "PAVE_POLL_DELAY_SECONDS": "0"}
    production.apply(environ)
    assert "THROTTLE_DELAY_SECONDS" not in environ and "PAVE_POLL_DELAY_SECONDS" not in environ
    # AND locally the first Pave poll of an upload waits as long as a throttled page
    local_environ: dict[str, str] = {}
    local.apply(local_environ)
    assert local_environ == {"THROTTLE_DELAY_SECONDS": "2", "PAVE_POLL_DELAY_SECONDS": "2"}
    # AND a flag wins over the environment, which wins over the local default
    assert Timings.choose(_parse(["--throttle-delay", "5"]), {"THROTTLE_DELAY_SECONDS": "1"}).throttle_delay == 5
    assert Timings.choose(_parse([]), {"THROTTLE_DELAY_SECONDS": "1"}).throttle_delay == 1


def test_production_timings_and_explicit_timings_do_not_mix(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        _parse(["--production-timings", "--visibility-timeout", "3"])
    assert "--production-timings" in capsys.readouterr().err


@pytest.mark.integration
def test_a_server_already_listening_is_named_and_fresh_resets_it(tmp_path: Path) -> None:
    # GIVEN a moto server this test started, holding a queue from an earlier run
    port = free_port()
    endpoint = f"http://127.0.0.1:{port}"
    with local_aws(port=port, log_path=tmp_path / "moto.log"):
        sqs = boto3.client("sqs", endpoint_url=endpoint)
        sqs.create_queue(QueueName="left-from-an-earlier-run")
        # WHEN the run command finds it THEN it says so, and keeps the data
        message = describe_local_aws(False, endpoint, fresh=False)
        assert "moto server was already listening" in message and "--fresh" in message
        assert sqs.list_queues().get("QueueUrls")
        # AND with --fresh it resets it
        assert "reset it" in describe_local_aws(False, endpoint, fresh=True)
        assert not sqs.list_queues().get("QueueUrls")


def test_fresh_refuses_to_reset_what_is_not_moto() -> None:
    # GIVEN something else listening (no moto reset API there)
    class NotMoto(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(404)
            self.end_headers()

        def log_message(self, format: str, *args: object) -> None:
            return

    server = HTTPServer(("127.0.0.1", 0), NotMoto)
    Thread(target=server.serve_forever, daemon=True).start()
    try:
        # WHEN --fresh meets it THEN the command stops instead of pretending to reset it
        with pytest.raises(SystemExit, match="resets moto only"):
            describe_local_aws(False, f"http://127.0.0.1:{server.server_address[1]}", fresh=True)
    finally:
        server.shutdown()
        server.server_close()
