"""Fixtures for the infrastructure renderings: packaged templates and throwaway stages."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from chalicelib.infra.declaration import Infrastructure, declare
from tests.infra.support import (
    INTERNAL_URLS,
    cfn_lint,
    run_package,
    sample_project,
    settings_for_stage,
)

#: Fixtures that run ``chalice package``; the real app's write the repository's ``.chalice/deployments``.
PACKAGE_BUILDS = frozenset(
    {"packaged_real_app", "packaged_sample_app", "packaged_complete_prod", "resources_only_stack", "lint_findings"}
)


@pytest.hookimpl(tryfirst=True)  # before the root conftest turns the marks into node ids
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Tests that package run on one xdist worker: each package built once, no race on the layer."""
    for item in items:
        if PACKAGE_BUILDS & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.xdist_group("chalice-package"))


@pytest.fixture(scope="session")
def packaged_real_app(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``python -m ops.package OUT --stage dev`` on the repository, once per session."""
    out = tmp_path_factory.mktemp("package") / "dev"
    result = run_package(out, "--stage", "dev")
    assert result.returncode == 0, result.stdout + result.stderr
    return out / "sam.json"


@pytest.fixture(scope="session")
def packaged_sample_app(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The same command on a throwaway project whose app registers every declared consumer."""
    project = sample_project(tmp_path_factory.mktemp("sample-project"))
    out = project / "out"
    result = run_package(out, "--stage", "dev", "--project-dir", str(project))
    assert result.returncode == 0, result.stdout + result.stderr
    return out / "sam.json"


@pytest.fixture(scope="session")
def packaged_complete_prod(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``STAGE=prod`` packaging of that project, its prod stage completed with the internal services' URLs."""
    project = sample_project(tmp_path_factory.mktemp("complete-prod"), INTERNAL_URLS)
    out = project / "out"
    result = run_package(out, "--project-dir", str(project), stage="prod")
    assert result.returncode == 0, result.stdout + result.stderr
    return out / "sam.json"


@pytest.fixture(scope="session")
def resources_only_stack(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``python -m ops.package OUT --resources-only --stage prod``: the resources as a stack of their own."""
    out = tmp_path_factory.mktemp("resources-only")
    result = run_package(out, "--resources-only", "--stage", "prod")
    assert result.returncode == 0, result.stdout + result.stderr
    return out / "resources.json"


@pytest.fixture(scope="session")
def lint_findings(
    packaged_real_app: Path, packaged_sample_app: Path, resources_only_stack: Path
) -> dict[Path, list[str]]:
    """cfn-lint's findings for the three rendered templates, linted in one run."""
    return cfn_lint(packaged_real_app, packaged_sample_app, resources_only_stack)


@pytest.fixture
def fresh_stage() -> str:
    """A stage no other test uses, so its resources start out missing on the shared moto."""
    return f"t{uuid.uuid4().hex[:10]}"


@pytest.fixture
def fresh_infra(fresh_stage: str) -> Infrastructure:
    return declare(settings_for_stage(fresh_stage))
