"""Where the run command's output goes: its story on the terminal, the app's own output in a log file.

The event handlers run inside the run command's process, so what they write (Powertools' JSON
logs, the EMF metric lines, ``warnings``, a library's ``print``) lands on the process's standard
output. :func:`app_output_to` points that descriptor (1) at a log file, so everything written
there goes to the file however its writer got hold of the stream, and hands back a stream on a
copy of the terminal's descriptor for the story. Python logging (the event runtime's warnings
and their tracebacks) and ``warnings`` go to the file too. Standard error stays on the terminal,
so a crash of the run command itself still shows there.
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TextIO

#: The event handlers' logs and metrics (and the run command's own log records), one file per run.
RUN_LOG = ".run.log"
#: What ``chalice local`` (the API's handlers and its request lines) writes, one file per run.
CHALICE_LOCAL_LOG = ".chalice-local.log"
_LOG_FORMAT = "%(asctime)s %(name)s %(levelname)s %(message)s"


@contextmanager
def app_output_to(path: Path) -> Iterator[TextIO]:
    """Send this process's standard output, logging and warnings to ``path`` (emptied first);
    yield a line-buffered stream on the terminal that was standard output before."""
    sys.stdout.flush()
    terminal_fd = os.dup(1)
    terminal = os.fdopen(terminal_fd, "w", buffering=1, encoding=sys.stdout.encoding, errors="replace")
    with path.open("wb") as log:
        os.dup2(log.fileno(), 1)
    handler = logging.StreamHandler(sys.stdout)
    with _logging_to(handler):
        try:
            yield terminal
        finally:
            sys.stdout.flush()
            os.dup2(terminal.fileno(), 1)
            terminal.close()


@contextmanager
def logging_to_terminal() -> Iterator[None]:
    """``--verbose``: log records (and ``warnings``) on standard error, next to the handlers' output."""
    with _logging_to(logging.StreamHandler(sys.stderr)):
        yield


@contextmanager
def _logging_to(handler: logging.Handler) -> Iterator[None]:
    """Root logging at INFO through ``handler``, warnings captured as log records, both undone on exit."""
    root = logging.getLogger()
    handler.setFormatter(logging.Formatter(_LOG_FORMAT))
    level = root.level
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    logging.captureWarnings(True)
    try:
        yield
    finally:
        logging.captureWarnings(False)
        root.setLevel(level)
        root.removeHandler(handler)


def describe(verbose: bool, moto_log: str | None) -> str:
    """The start-up line that says where the app's output goes."""
    aws = f"; the local AWS's in {moto_log}" if moto_log else ""
    if verbose:
        return f"output: handler logs and metrics print here (--verbose), chalice local's too{aws}"
    return (
        f"output: the event handlers' logs and metrics go to {RUN_LOG}, the API's (chalice local) to"
        f" {CHALICE_LOCAL_LOG}{aws}; --verbose prints them here"
    )
