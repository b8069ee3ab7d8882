"""Helpers shared by the infrastructure tests: the package command, cfn-lint, stage settings."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from chalicelib.settings import Settings, load_settings

ROOT = Path(__file__).resolve().parents[2]
SAMPLE_APP = Path(__file__).with_name("sample_app.py")
#: Packaging the real app downloads every Lambda wheel from PyPI the first time (about half a minute).
PACKAGE_TIMEOUT = 900
#: What prod's functions need besides the repository's prod stage: the internal services' URLs (the deployer's).
INTERNAL_URLS = {
    "USER_SERVICE_URL": "https://users.internal.example.test",
    "PAYMENTS_SERVICE_URL": "https://payments.internal.example.test",
    "ADMIN_API_URL": "https://admin.internal.example.test",
}


def run_package(out: Path, *extra: str, stage: str | None = None) -> subprocess.CompletedProcess[str]:
    """Run the documented package command exactly as a user would (``stage``: as ``STAGE=...`` in front)."""
    environment = {**os.environ, "STAGE": stage} if stage else None
    return subprocess.run(
        [sys.executable, "-m", "ops.package", str(out), *extra],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=PACKAGE_TIMEOUT,
        check=False,
        env=environment,
    )


#: cfn-lint rules whose verdict is a date comparison: a deprecated (E2533) or end-of-life (W2531) runtime.
DATED_RULES = ("E2533", "W2531")


def cfn_lint(*templates: Path) -> dict[Path, list[str]]:
    """cfn-lint's findings (errors and warnings) for each template, from one run.

    One run loads cfn-lint's schemas once for all the templates (about 2 s of CPU a run). A
    finding that names no template, or a failed run that names none, counts against each.
    The rules that compare a Lambda runtime's end-of-life dates with today are left out: their
    verdict depends on the day the suite runs, not on the template (docs/operations.md keeps
    the runtime's dates).
    """
    executable = Path(sys.executable).with_name("cfn-lint")
    # After the templates: the option takes every argument that follows it.
    command = [str(executable), "--format", "parseable", *map(str, templates), "--ignore-checks", *DATED_RULES]
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    findings: dict[Path, list[str]] = {template: [] for template in templates}
    lines = [line for line in result.stdout.splitlines() if line.strip()]
    for line in lines:
        owners = [t for t in templates if line.startswith(f"{t}:")] or list(templates)
        for owner in owners:
            findings[owner].append(line)
    if result.returncode != 0 and not lines:
        for template in templates:
            findings[template].append(f"cfn-lint exited {result.returncode}: {result.stderr}")
    return findings


def load_template(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text())  # type: ignore[no-any-return]


def settings_for_stage(stage: str) -> Settings:
    """Settings as the tooling of ``stage`` reads them, without changing this process's."""
    from ops.package import stage_environment

    with stage_environment(stage):
        return load_settings()


def sample_project(project: Path, prod_variables: dict[str, str] | None = None) -> Path:
    """A throwaway project whose app registers every declared consumer, with the repository's
    config (``prod_variables`` added to its prod stage) and policies.

    It has no requirements.txt, so nothing is downloaded and it packages in about a second.
    """
    project.mkdir(parents=True, exist_ok=True)
    shutil.copy(SAMPLE_APP, project / "app.py")
    shutil.copytree(ROOT / "chalicelib", project / "chalicelib", ignore=shutil.ignore_patterns("__pycache__"))
    (project / ".chalice").mkdir()
    for name in ["config.json", *(p.name for p in (ROOT / ".chalice").glob("policy-*.json"))]:
        shutil.copy(ROOT / ".chalice" / name, project / ".chalice" / name)
    config_path = project / ".chalice" / "config.json"
    config = json.loads(config_path.read_text())
    config["stages"]["prod"]["environment_variables"].update(prod_variables or {})
    config_path.write_text(json.dumps(config, indent=2))
    return project
