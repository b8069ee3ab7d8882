"""``make capacity``: run the pipeline locally, measure it, and write ``docs/capacity.md``.

Starts a moto server of its own on a free port (never one it did not start), the fake Plaid
and the development issuer, creates the declared resources, runs the measured scenarios
(:mod:`ops.capacity.measure`) and renders the document (:mod:`ops.capacity.render`).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from ops.local_aws import apply_local_env, free_port, local_aws

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_OUT = ROOT / "docs" / "capacity.md"


def configure(plaid_url: str, issuer_env: dict[str, str]) -> None:
    """Point the service at the fakes and forget everything built from the old settings."""
    from chalicelib.api.jwks import reset_jwks
    from chalicelib.aws.clients import reset_clients
    from chalicelib.aws.messaging import queue_url
    from chalicelib.plaid.client import reset_plaid
    from chalicelib.plaid.webhook_verification import reset_webhook_keys
    from chalicelib.settings import reset_settings

    os.environ["PLAID_BASE_URL"] = plaid_url
    os.environ.update(issuer_env)
    reset_settings()
    reset_clients()
    reset_plaid()
    reset_jwks()
    reset_webhook_keys()
    queue_url.cache_clear()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="make capacity", description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="where to write (default docs/capacity.md)")
    parser.add_argument("--small", action="store_true", help="the test's small run (fast; not for the document)")
    args = parser.parse_args(argv)

    port = free_port()
    os.environ["AWS_ENDPOINT_URL"] = f"http://127.0.0.1:{port}"
    os.environ["THROTTLE_DELAY_SECONDS"] = "0"  # pages follow each other at once; the delay is not measured
    os.environ.setdefault("POWERTOOLS_LOG_LEVEL", "ERROR")
    apply_local_env()

    from ops.capacity.measure import FULL, SMALL, measure
    from ops.capacity.render import document
    from ops.fakes.auth0 import FakeAuth0
    from ops.fakes.plaid import FakePlaid

    print(f"capacity: moto server on 127.0.0.1:{port}, fake Plaid, development issuer", file=sys.stderr)
    with (
        local_aws(port=port, own=True, log_path=ROOT / ".moto-capacity.log"),
        FakePlaid() as plaid,
        FakeAuth0() as issuer,
    ):
        configure(plaid.url, issuer.env())
        from chalicelib.infra.bootstrap import bootstrap

        bootstrap()
        print("capacity: measuring (history, removal, update, API)", file=sys.stderr)
        measurements = measure(plaid, issuer, SMALL if args.small else FULL)
    text = document(measurements)
    args.out.write_text(text)
    print(f"capacity: wrote {args.out}", file=sys.stderr)
    print(headline(measurements))
    return 0


def headline(measurements: object) -> str:
    from ops.capacity import model
    from ops.capacity.measure import HISTORY, Measurements
    from ops.capacity.render import users_label

    assert isinstance(measurements, Measurements)
    a, limits = model.Assumptions(), model.Limits()
    history = measurements.total(HISTORY)
    factor = 1000 / max(measurements.inputs.history_transactions, 1)
    base = sum(v for k, v in history.write_units.items() if "/" not in k) * factor
    index = sum(v for k, v in history.write_units.items() if "/" in k) * factor
    load = model.per_user_day(model.flows(measurements, a))
    first = model.ceilings(load, a, limits, model.Declared(), {})[0]
    return (
        f"per 1,000 refined transactions: {base:,.0f} base + {index:,.0f} GSI write units, "
        f"{sum(history.read_units.values()) * factor:,.0f} read units\n"
        f"per user per day: {sum(load.write_units.values()):,.0f} write units, "
        f"{sum(load.read_units.values()):,.1f} read units\n"
        f"first limit: {first.name} at {users_label(first.users)} users"
    )


if __name__ == "__main__":
    raise SystemExit(main())
