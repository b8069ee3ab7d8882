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


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph() -> dict[str, set[str]]:
    """chalicelib's modules and the chalicelib modules each imports (type-only imports included)."""
    paths = sorted((ROOT / "chalicelib").rglob("*.py"))
    names = {module_name(path) for path in paths}
    return {module_name(path): {m for m in imported_modules(path) if m in names} for path in paths}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every strongly connected group of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in graph[node]:
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_two_modules_import_each_other_however_indirectly() -> None:
    # GIVEN every import in chalicelib, at the top, inside functions or for type checking only
    # THEN no module reaches back to itself: write paths stay one-way (entity -> its writers)
    assert cycles(import_graph()) == []
