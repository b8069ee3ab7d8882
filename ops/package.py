"""Build the deployable package: ``python -m ops.package OUT [--stage dev|prod]``.

Renders the declaration into a merge template (:mod:`chalicelib.infra.cloudformation`) and
runs ``chalice package --merge-template`` into ``OUT``, which then holds ``sam.json``,
``deployment.zip`` and ``layer-deployment.zip`` for ``aws cloudformation package``/``deploy``
or ``sam deploy``. It first refuses a stage whose environment in ``.chalice/config.json`` lacks
a setting its functions need at run time (prod: every service URL and secret parameter name,
:func:`chalicelib.settings.missing_settings`), naming each one.

Two more modes serve the ``chalice deploy`` path:

* ``python -m ops.package OUT --resources-only`` writes ``OUT/resources.json``, the declared
  resources as a stack of their own (no functions, no download);
* ``python -m ops.package --write-policies`` regenerates ``.chalice/policy-<stage>.json``,
  the role policy ``chalice deploy`` reads (packaging refuses to run while it is stale).

The dependency layer Chalice builds for a ``requirements.txt`` is kept across clones
(:mod:`ops.layer_cache`), so a fresh clone does not download and build it again.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ops import layer_cache

ROOT = Path(__file__).resolve().parent.parent
MERGE_TEMPLATE = "merge-template.json"
RESOURCES_TEMPLATE = "resources.json"
_PARAMETER_SUFFIX = "_PARAMETER"


class PackageError(RuntimeError):
    """Packaging could not produce a complete, consistent package."""


def chalice_config(project_dir: Path = ROOT) -> dict[str, Any]:
    return json.loads((project_dir / ".chalice" / "config.json").read_text())  # type: ignore[no-any-return]


def stages(project_dir: Path = ROOT) -> list[str]:
    return sorted(chalice_config(project_dir)["stages"])


def app_name(project_dir: Path = ROOT) -> str:
    return str(chalice_config(project_dir)["app_name"])


def api_gateway_stage(stage: str, project_dir: Path = ROOT) -> str:
    """The API Gateway stage Chalice deploys ``stage``'s routes to (``api_gateway_stage``, default ``api``)."""
    from chalicelib.infra.cloudformation import DEFAULT_API_STAGE

    config = chalice_config(project_dir)
    stage_config = config["stages"].get(stage, {})
    return str(stage_config.get("api_gateway_stage") or config.get("api_gateway_stage") or DEFAULT_API_STAGE)


def stage_variables(stage: str, project_dir: Path = ROOT) -> dict[str, str]:
    """The environment every function of ``stage`` gets: the global variables, then the stage's."""
    config = chalice_config(project_dir)
    variables = {**config.get("environment_variables", {})}
    variables.update(config["stages"].get(stage, {}).get("environment_variables", {}))
    return variables


def secret_parameters(stage: str, project_dir: Path = ROOT) -> dict[str, str]:
    """Secret variable -> SSM parameter name, from the stage's ``<NAME>_PARAMETER`` variables."""
    return {
        name.removesuffix(_PARAMETER_SUFFIX): value
        for name, value in stage_variables(stage, project_dir).items()
        if name.endswith(_PARAMETER_SUFFIX)
    }


def check_stage_complete(stage: str, project_dir: Path = ROOT) -> None:
    """Refuse a stage whose functions would fail at a setting's first use (checked before anything is built)."""
    from chalicelib.settings import missing_settings

    missing = missing_settings(stage, stage_variables(stage, project_dir))
    if missing:
        raise PackageError(
            f"stage {stage} lacks settings its functions need at run time: {', '.join(missing)}; add them to"
            f" stages.{stage}.environment_variables in .chalice/config.json (service URLs, and the SSM"
            " parameter names secrets are read from)"
        )


@contextmanager
def stage_environment(stage: str, project_dir: Path = ROOT) -> Iterator[dict[str, str]]:
    """This process's environment as ``stage``'s tooling needs it, restored on exit.

    Settings (and so every declared name) follow ``STAGE``; secrets are not needed, as
    settings resolve them only on first use.
    """
    from chalicelib.aws.clients import reset_clients
    from chalicelib.settings import reset_settings

    saved = dict(os.environ)
    os.environ["STAGE"] = stage
    reset_settings()
    reset_clients()
    try:
        yield dict(os.environ)
    finally:
        os.environ.clear()
        os.environ.update(saved)
        reset_settings()
        reset_clients()


def policy_path(stage: str, project_dir: Path = ROOT) -> Path:
    """Where Chalice reads a stage's role policy when ``autogen_policy`` is off."""
    return project_dir / ".chalice" / f"policy-{stage}.json"


def render_policy_file(stage: str, project_dir: Path = ROOT) -> str:
    from chalicelib.infra.cloudformation import policy_file_document
    from chalicelib.infra.declaration import declare

    parameters = list(secret_parameters(stage, project_dir).values())
    with stage_environment(stage, project_dir):
        return _dump(policy_file_document(declare(), app_name(project_dir), parameters))


def write_policies(project_dir: Path = ROOT) -> list[Path]:
    written = []
    for stage in stages(project_dir):
        path = policy_path(stage, project_dir)
        path.write_text(render_policy_file(stage, project_dir))
        written.append(path)
    return written


def check_policy_file(stage: str, project_dir: Path = ROOT) -> None:
    path = policy_path(stage, project_dir)
    if not path.exists() or path.read_text() != render_policy_file(stage, project_dir):
        raise PackageError(f"{path} does not match the declaration: run `python -m ops.package --write-policies`")


def load_app(project_dir: Path) -> Any:
    """Import the project's ``app.py`` as Chalice will (inside :func:`stage_environment`)."""
    sys.path.insert(0, str(project_dir))
    try:
        sys.modules.pop("app", None)
        return importlib.import_module("app").app
    finally:
        sys.path.remove(str(project_dir))


def write_merge_template(out: Path, stage: str, project_dir: Path = ROOT) -> Path:
    from chalicelib.infra.cloudformation import merge_template, unregistered_consumers
    from chalicelib.infra.declaration import declare

    parameters = list(secret_parameters(stage, project_dir).values())
    with stage_environment(stage, project_dir):
        infra, app = declare(), load_app(project_dir)
        template = merge_template(infra, app, parameters, api_gateway_stage(stage, project_dir))
        for function in unregistered_consumers(infra, app):
            print(f"warning: consumer {function} is declared but app.py registers no handler for it", file=sys.stderr)
    out.mkdir(parents=True, exist_ok=True)
    path = out / MERGE_TEMPLATE
    path.write_text(_dump(template))
    return path


def write_resources_template(out: Path, stage: str, project_dir: Path = ROOT) -> Path:
    from chalicelib.infra.cloudformation import standalone_template
    from chalicelib.infra.declaration import declare

    with stage_environment(stage, project_dir):
        template = standalone_template(declare())
    out.mkdir(parents=True, exist_ok=True)
    path = out / RESOURCES_TEMPLATE
    path.write_text(_dump(template))
    return path


def chalice_executable() -> str:
    beside = Path(sys.executable).with_name("chalice")
    found = str(beside) if beside.exists() else shutil.which("chalice")
    if not found:
        raise PackageError("the chalice CLI is not installed (pip install -r requirements-dev.txt)")
    return found


def package(out: Path, stage: str, project_dir: Path = ROOT) -> Path:
    """Write the merge template, run ``chalice package`` with it, and return ``OUT/sam.json``."""
    check_stage_complete(stage, project_dir)
    check_policy_file(stage, project_dir)
    merge = write_merge_template(out, stage, project_dir)
    command = [chalice_executable(), "--project-dir", str(project_dir), "package", "--stage", stage]
    command += ["--merge-template", str(merge), str(out)]
    layer_cache.restore(project_dir)
    with stage_environment(stage, project_dir) as env:
        # Chalice imports app.py too, and insists on a region (the template says ${AWS::Region}).
        chalice_env = layer_cache.pip_environment({"AWS_DEFAULT_REGION": "us-east-1", **env})
        result = subprocess.run(command, env=chalice_env, check=False)
    sam = out / "sam.json"
    if result.returncode != 0:
        raise PackageError(f"chalice package exited with {result.returncode}")
    layer_cache.keep(project_dir)  # only a layer from a run that succeeded
    if not sam.exists():
        raise PackageError(f"chalice package wrote no {sam}")
    return sam


def _dump(document: dict[str, Any]) -> str:
    return json.dumps(document, indent=2) + "\n"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m ops.package", description=__doc__.split("\n\n")[0])
    parser.add_argument("out", nargs="?", type=Path, help="folder to write the package into")
    parser.add_argument(
        "--stage", default=os.environ.get("STAGE") or "dev", help="Chalice stage (default: $STAGE or dev)"
    )
    parser.add_argument("--project-dir", type=Path, default=ROOT, help=argparse.SUPPRESS)
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--resources-only", action="store_true", help="write OUT/resources.json only")
    mode.add_argument("--write-policies", action="store_true", help="regenerate .chalice/policy-<stage>.json")
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    from chalicelib.errors import ConfigurationError

    project_dir = args.project_dir.resolve()
    try:
        if args.write_policies:
            for path in write_policies(project_dir):
                print(f"wrote {path}")
            return 0
        if args.out is None:
            parser.error("OUT is required")
        if args.stage not in stages(project_dir):
            parser.error(f"unknown stage {args.stage!r}; .chalice/config.json has {stages(project_dir)}")
        if args.resources_only:
            print(f"wrote {write_resources_template(args.out, args.stage, project_dir)}")
            return 0
        started = time.monotonic()
        sam = package(args.out, args.stage, project_dir)
    except (PackageError, ConfigurationError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(f"wrote {sam} and its zips in {time.monotonic() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
