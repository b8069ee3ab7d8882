"""The run command as a newcomer meets it: options through make, --help, local timings, a reused local AWS."""

from __future__ import annotations

import json
import subprocess
import sys
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
from ops.run_output import CHALICE_LOCAL_LOG, RUN_LOG
from ops.run_output import describe as describe_output

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
    assert "--verbose" in shown and RUN_LOG in shown


#: What the event handlers do while the run command is quiet: metrics, JSON logs, a library's print,
#: a runtime warning with its traceback, a Python warning; then the story line, and a line after.
_HANDLERS_WRITE = """
import logging, sys, warnings
from pathlib import Path
from chalicelib.observability import count, logger  # holds its stream before the output moves
from ops.run_output import app_output_to

with app_output_to(Path(sys.argv[1])) as terminal:
    count("demo.metric")
    logger.warning("handler log line")
    print("a library's print")
    try:
        raise ValueError("boom")
    except ValueError:
        logging.getLogger("ops.runtime").warning("mine_webhooks raised", exc_info=True)
    warnings.warn("a deprecated call", UserWarning)
    terminal.write("demo: the story\\n")
print("after the run: standard output is the terminal again")
"""


def test_the_quiet_run_keeps_the_handlers_output_off_the_terminal(tmp_path: Path) -> None:
    # GIVEN handlers that print metrics and logs while the run command's output is quiet
    log = tmp_path / RUN_LOG
    log.write_text("a previous run's line\n")
    # WHEN they run
    result = subprocess.run(
        [sys.executable, "-c", _HANDLERS_WRITE, str(log)], cwd=ROOT, capture_output=True, text=True, check=True
    )
    # THEN the terminal shows the story only, and nothing on standard error
    assert result.stdout == "demo: the story\nafter the run: standard output is the terminal again\n"
    assert result.stderr == ""
    # AND the log file, emptied at the start, holds everything else: the EMF line, the JSON log, the
    # print, the runtime's warning with its traceback, the Python warning
    lines = log.read_text().splitlines()
    assert "a previous run's line" not in lines
    metric = json.loads(next(line for line in lines if line.startswith('{"_aws"')))
    assert metric["demo.metric"] == [1.0]
    assert json.loads(next(line for line in lines if '"level"' in line))["message"] == "handler log line"
    assert "a library's print" in lines
    assert any("ops.runtime WARNING mine_webhooks raised" in line for line in lines)
    assert "ValueError: boom" in lines
    assert any("a deprecated call" in line for line in lines)


def test_the_start_up_line_names_the_log_files_or_says_verbose() -> None:
    quiet = describe_output(verbose=False, moto_log=".moto.log")
    assert RUN_LOG in quiet and CHALICE_LOCAL_LOG in quiet and ".moto.log" in quiet and "--verbose" in quiet
    verbose = describe_output(verbose=True, moto_log=None)
    assert "print here" in verbose and RUN_LOG not in verbose


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
