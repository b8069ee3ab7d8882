"""Finish the event source mappings ``chalice deploy`` made: ``python -m ops.patch_event_sources``.

``chalice deploy`` cannot set partial batch responses, bisection or filters on a mapping.
This reads ``.chalice/deployed/<stage>.json``, matches every mapping to its declared consumer
and sets what is missing with ``UpdateEventSourceMapping``. Later ``chalice deploy`` runs
only touch batch settings, so the patch survives them; running it again changes nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from chalicelib.aws.clients import client
from chalicelib.infra.cloudformation import event_source_options
from chalicelib.infra.declaration import DynamoDBStreamSource, Infrastructure, KinesisSource, SqsSource, declare
from ops.package import stage_environment

ROOT = Path(__file__).resolve().parent.parent

#: Chalice's deployed resource type -> (name suffix, ARN field, declared source kind).
_MAPPING_TYPES = {
    "sqs_event": ("-sqs-event-source", "queue_arn", "SqsSource"),
    "kinesis_event": ("-kinesis-event-source", "kinesis_arn", "KinesisSource"),
    "dynamodb_event": ("-dynamodb-event-source", "stream_arn", "DynamoDBStreamSource"),
}
_SETTLING_STATES = {"Creating", "Enabling", "Updating", "Disabling"}


class PatchError(RuntimeError):
    """A deployed mapping cannot be brought in line with the declaration."""


@dataclass(frozen=True)
class DeployedMapping:
    """One event source mapping as ``chalice deploy`` recorded it."""

    function: str
    resource_type: str
    uuid: str
    source_arn: str


def deployed_path(stage: str, project_dir: Path = ROOT) -> Path:
    return project_dir / ".chalice" / "deployed" / f"{stage}.json"


def deployed_mappings(deployed: dict[str, Any]) -> list[DeployedMapping]:
    """The mappings in a ``deployed/<stage>.json`` document, each named by its function."""
    resources = deployed.get("resources", [])
    functions = {r["lambda_arn"]: r["name"] for r in resources if r.get("resource_type") == "lambda_function"}
    mappings = []
    for resource in resources:
        kind = _MAPPING_TYPES.get(resource.get("resource_type", ""))
        if kind is None:
            continue
        suffix, arn_field, _ = kind
        function = functions.get(resource.get("lambda_arn", "")) or resource["name"].removesuffix(suffix)
        mappings.append(
            DeployedMapping(function, resource["resource_type"], resource["event_uuid"], resource[arn_field])
        )
    return mappings


def desired_options(infra: Infrastructure, mapping: DeployedMapping) -> dict[str, Any]:
    """What the declaration wants set on ``mapping``; raises when it is not declared as deployed."""
    try:
        source = infra.consumer(mapping.function).source
    except KeyError as exc:
        raise PatchError(f"{mapping.function}: deployed mapping {mapping.uuid} has no declared consumer") from exc
    expected_kind = _MAPPING_TYPES[mapping.resource_type][2]
    if type(source).__name__ != expected_kind:
        raise PatchError(f"{mapping.function}: deployed as {mapping.resource_type}, declared {type(source).__name__}")
    deployed_name, expected_name = _source_names(infra, mapping, source)
    if deployed_name != expected_name:
        raise PatchError(f"{mapping.function}: mapping reads {deployed_name}, declared {expected_name}")
    return event_source_options(source)


def _source_names(
    infra: Infrastructure, mapping: DeployedMapping, source: SqsSource | KinesisSource | DynamoDBStreamSource
) -> tuple[str, str]:
    """The resource name the mapping reads and the one the declaration names."""
    if isinstance(source, SqsSource):
        return mapping.source_arn.rsplit(":", 1)[-1], infra.queue(source.queue).name
    if isinstance(source, KinesisSource):
        return mapping.source_arn.rsplit("stream/", 1)[-1], infra.stream(source.stream).name
    return mapping.source_arn.split("/stream/")[0].rsplit("table/", 1)[-1], infra.table(source.table).name


def _normalised(options: dict[str, Any]) -> dict[str, Any]:
    """Options in a form where equal settings compare equal (filter order and spacing ignored)."""
    normal = dict(options)
    filters = (options.get("FilterCriteria") or {}).get("Filters")
    if filters is not None:
        normal["FilterCriteria"] = sorted(json.dumps(json.loads(f["Pattern"]), sort_keys=True) for f in filters)
    return normal


def _settled(lambda_client: Any, uuid: str, timeout: float) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        current: dict[str, Any] = lambda_client.get_event_source_mapping(UUID=uuid)
        if current.get("State") not in _SETTLING_STATES or time.monotonic() > deadline:
            return current
        time.sleep(2)


def _check_stream_is_current(mapping: DeployedMapping, current: dict[str, Any], infra: Infrastructure) -> None:
    # `chalice deploy` keeps a DDB mapping on the old stream after a table is recreated.
    source = infra.consumer(mapping.function).source
    if not isinstance(source, DynamoDBStreamSource):
        return
    table = infra.table(source.table)
    latest = client("dynamodb").describe_table(TableName=table.name)["Table"].get("LatestStreamArn")
    if latest and current["EventSourceArn"] != latest:
        raise PatchError(
            f"{mapping.function}: mapping {mapping.uuid} reads {current['EventSourceArn']}, but {table.name}'s"
            f" stream is now {latest}; delete the mapping (and its entry in deployed/<stage>.json),"
            " export the new stream ARN and run `chalice deploy` again"
        )


def patch_mapping(
    lambda_client: Any, infra: Infrastructure, mapping: DeployedMapping, settle_timeout: float = 120.0
) -> bool:
    """Bring one mapping in line with the declaration; ``True`` when it had to change."""
    desired = desired_options(infra, mapping)
    current = _settled(lambda_client, mapping.uuid, settle_timeout)
    if mapping.resource_type == "dynamodb_event":
        _check_stream_is_current(mapping, current, infra)
    present = {key: current.get(key) for key in desired}
    if _normalised(present) == _normalised(desired):
        return False
    lambda_client.update_event_source_mapping(UUID=mapping.uuid, **desired)
    return True


def patch(stage: str, deployed_file: Path) -> int:
    """Patch every mapping of ``stage``; return how many failed."""
    if not deployed_file.exists():
        raise PatchError(f"{deployed_file} does not exist: run `chalice deploy --stage {stage}` first")
    infra = declare()
    mappings = deployed_mappings(json.loads(deployed_file.read_text()))
    failures = 0
    for mapping in mappings:
        try:
            changed = patch_mapping(client("lambda"), infra, mapping)
        except PatchError as exc:
            failures += 1
            print(f"error: {exc}", file=sys.stderr)
            continue
        print(f"  {'patched' if changed else 'current'}  {mapping.function} ({mapping.uuid})")
    print(f"{len(mappings) - failures} of {len(mappings)} mappings match the declaration")
    return failures


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m ops.patch_event_sources", description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--stage", default=os.environ.get("STAGE") or "dev", help="Chalice stage (default: $STAGE, else dev)"
    )
    parser.add_argument("--deployed-file", type=Path, help="default: .chalice/deployed/<stage>.json")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        with stage_environment(args.stage):
            failures = patch(args.stage, args.deployed_file or deployed_path(args.stage))
    except PatchError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
