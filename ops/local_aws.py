"""The local AWS: moto server on 127.0.0.1:4566 (LocalStack's edge port).

:func:`local_aws` starts moto server (through :mod:`ops.moto_server`, which makes each
DynamoDB request atomic as in AWS) when nothing listens on the port and stops it on
exit; when something already listens (a running LocalStack, another moto) it is used
as it is and left running.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit

HOST = "127.0.0.1"
PORT = 4566
ENDPOINT = f"http://{HOST}:{PORT}"
#: How long a moto server this process started gets to exit on SIGTERM before SIGKILL.
SHUTDOWN_GRACE_SECONDS = 1.0

#: What every local process (tests, run command, bootstrap) uses unless told otherwise.
LOCAL_ENV = {
    "AWS_ENDPOINT_URL": ENDPOINT,
    "AWS_DEFAULT_REGION": "us-east-1",
    "AWS_REGION": "us-east-1",
    "AWS_ACCESS_KEY_ID": "test",
    "AWS_SECRET_ACCESS_KEY": "test",  # moto and LocalStack accept any credentials
    "STAGE": "dev",
}


def apply_local_env(environ: dict[str, str] | None = None) -> None:
    """Fill in :data:`LOCAL_ENV` for keys the caller has not set."""
    target = os.environ if environ is None else environ
    for key, value in LOCAL_ENV.items():
        target.setdefault(key, value)


def free_port(host: str = HOST) -> int:
    """A TCP port nothing listens on right now (the OS picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


class PortInUseError(RuntimeError):
    """Something already listens where this process meant to start its own local AWS."""


def is_listening(host: str = HOST, port: int = PORT) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.settimeout(0.2)
        return sock.connect_ex((host, port)) == 0


def wait_until_ready(endpoint: str = ENDPOINT, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    last: Exception | None = None
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"{endpoint}/moto-api/", timeout=1):
                return
        except Exception as exc:  # noqa: BLE001 - any failure means "not yet"
            last = exc
            try:  # LocalStack has no /moto-api/ but answers its health endpoint
                with urllib.request.urlopen(f"{endpoint}/_localstack/health", timeout=1):
                    return
            except Exception:  # noqa: BLE001
                time.sleep(0.1)
    raise RuntimeError(f"local AWS at {endpoint} did not become ready: {last}")


def local_aws_kind(endpoint: str = ENDPOINT) -> str:
    """``moto``, ``LocalStack`` or ``unknown``: what answers on ``endpoint``."""
    for path, kind in (("/moto-api/", "moto"), ("/_localstack/health", "LocalStack")):
        try:
            with urllib.request.urlopen(f"{endpoint}{path}", timeout=2):
                return kind
        except OSError:
            continue
    return "unknown"


def endpoint_address(endpoint: str | None = None) -> tuple[str, int]:
    """Host and port of ``endpoint`` (default: ``AWS_ENDPOINT_URL``, else 127.0.0.1:4566)."""
    parsed = urlsplit(endpoint or os.environ.get("AWS_ENDPOINT_URL") or ENDPOINT)
    return parsed.hostname or HOST, parsed.port or PORT


@contextmanager
def local_aws(
    host: str | None = None,
    port: int | None = None,
    log_path: Path | None = None,
    *,
    own: bool = False,
    quiet: bool = False,
) -> Iterator[bool]:
    """Ensure a local AWS listens on ``host:port``; yield whether this call started it.

    Defaults to the address in ``AWS_ENDPOINT_URL`` (127.0.0.1:4566 when unset). With
    ``own=True`` a server already listening there is an error, never reused: the caller
    (the test session) must not touch state it did not create. ``quiet`` logs the server's
    errors only, not a line per request.
    """
    default_host, default_port = endpoint_address()
    host, port = host or default_host, port or default_port
    if is_listening(host, port):
        if own:
            raise PortInUseError(f"something already listens on {host}:{port}; refusing to use a server not ours")
        wait_until_ready(f"http://{host}:{port}")
        yield False
        return
    log = log_path.open("ab") if log_path else subprocess.DEVNULL
    process = subprocess.Popen(
        [sys.executable, "-m", "ops.moto_server", "-H", host, "-p", str(port), *(["--quiet"] if quiet else [])],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        wait_until_ready(f"http://{host}:{port}")
        yield True
    finally:
        # moto keeps nothing worth a clean exit, and with a session's worth of state its
        # shutdown takes seconds: a short grace, then kill.
        process.terminate()
        try:
            process.wait(timeout=SHUTDOWN_GRACE_SECONDS)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        if log_path:
            log.close()  # type: ignore[union-attr]


def reset(endpoint: str = ENDPOINT) -> None:
    """Wipe moto's state (no-op against LocalStack, which has no reset API)."""
    request = urllib.request.Request(f"{endpoint}/moto-api/reset", method="POST")
    try:
        with urllib.request.urlopen(request, timeout=5):
            pass
    except OSError:
        pass
