"""Create the declared resources on a local AWS: ``python -m ops.bootstrap [--stage S]``.

Targets whatever ``AWS_ENDPOINT_URL`` names (default http://127.0.0.1:4566, stage ``dev``):
moto server started by ``make run``, or LocalStack. It starts nothing itself, so it says so
plainly when nothing listens there. Safe to run again: existing resources are kept.
"""

from __future__ import annotations

import argparse
import os
import sys

from ops.local_aws import apply_local_env, endpoint_address, is_listening
from ops.package import stage_environment


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m ops.bootstrap", description=__doc__.split("\n\n")[0])
    parser.add_argument("--stage", help="stage whose resources to create (default: $STAGE, else dev)")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    apply_local_env()
    stage = args.stage or os.environ["STAGE"]
    endpoint = os.environ["AWS_ENDPOINT_URL"]
    host, port = endpoint_address(endpoint)
    if not is_listening(host, port):
        print(
            f"error: nothing listens at {endpoint}. Start the local AWS first (`make run` starts moto server;"
            " `docker compose -f localstack/docker-compose.yml up` starts LocalStack), or point"
            " AWS_ENDPOINT_URL at one that runs.",
            file=sys.stderr,
        )
        return 2

    from botocore.exceptions import BotoCoreError, ClientError

    from chalicelib.errors import ServiceError
    from chalicelib.infra.bootstrap import bootstrap
    from chalicelib.infra.declaration import declare, stream_arn_variable

    print(f"bootstrapping stage {stage} at {endpoint}")
    try:
        with stage_environment(stage):
            infra = declare()
            report = bootstrap(infra)
    except (BotoCoreError, ClientError, ServiceError, TimeoutError) as exc:
        print(f"error: bootstrap failed: {exc}", file=sys.stderr)
        return 1
    for name in report.created:
        print(f"  created  {name}")
    for name in report.existing:
        print(f"  exists   {name}")
    print(f"{len(report.created)} created, {len(report.existing)} already there")
    for logical_id, arn in report.stream_arns.items():
        print(f"export {stream_arn_variable(infra.table(logical_id))}={arn}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
