"""The architecture's import rules, read from the source: the pipeline never imports the API."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def imported_modules(path: Path) -> set[str]:
    """Every module ``path`` imports, at the top or inside a function."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            found |= {node.module, *(f"{node.module}.{alias.name}" for alias in node.names)}
    return found


def test_no_pipeline_module_imports_the_api() -> None:
    # GIVEN every module of the pipeline stages
    offenders = {
        str(path.relative_to(ROOT)): sorted(m for m in imported_modules(path) if m.startswith("chalicelib.api"))
        for path in sorted((ROOT / "chalicelib" / "pipeline").glob("*.py"))
    }
    # THEN none reaches into chalicelib.api (shared typed errors live in chalicelib/errors.py)
    assert {path: modules for path, modules in offenders.items() if modules} == {}
