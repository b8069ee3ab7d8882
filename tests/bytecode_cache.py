"""Compile the suite's own modules once per run, not once per xdist worker.

This project's machines set ``PYTHONDONTWRITEBYTECODE=1``, so no process leaves a cache for
the next: each of ``make test``'s workers rewrote the assertions of all ~150 test modules and
conftests itself (pytest caches that work only where bytecode may be written) and compiled
every helper it imported, and so did each moto server and subprocess for the ``ops`` modules.
That was about 4 s of CPU per worker, close to half of its collection. Python and pytest still
*read* a cache whatever that setting says, so the xdist controller fills it before it starts
the workers, on every core at once:

* test modules, conftests and the root conftest's plugin: pytest's own rewritten-module
  file (``<name>.<tag>-pytest-<version>.pyc``), written by pytest's own functions and checked
  by pytest against the source's hash when it reads it;
* the other modules of ``tests/`` and ``ops/``: ordinary bytecode, as ``compileall`` writes
  it (checked against the source's mtime and size).

A stale or foreign file is simply recompiled by whoever imports it. ``chalicelib/`` and
``app.py`` are left alone: Chalice packages every file under ``chalicelib/``, bytecode
included. ``tests/unit/test_bytecode_cache.py`` checks that pytest and the import system
accept what is written here.
"""

from __future__ import annotations

import compileall
import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from _pytest.assertion.rewrite import PYC_TAIL, _read_pyc, _rewrite_test, _write_pyc_fp, get_cache_dir

#: Modules pytest rewrites besides test files and conftests: the root conftest's plugins.
PLUGIN_MODULES = ("stack.py",)


def rewritten_pyc(source: Path) -> Path:
    """Where pytest looks for the rewritten code of ``source``."""
    return get_cache_dir(source) / (source.name[:-3] + PYC_TAIL)


def is_rewritten(path: Path, tests_dir: Path) -> bool:
    """Whether pytest rewrites ``path``: this suite's test files, conftests and plugins."""
    in_tests = path.is_relative_to(tests_dir)
    return in_tests and (path.name.startswith("test_") or path.name == "conftest.py" or path.name in PLUGIN_MODULES)


def modules(*dirs: Path) -> list[Path]:
    """Every module under ``dirs``, largest first (so the pool ends evenly)."""
    found = {p for d in dirs for p in d.rglob("*.py") if p.is_file()}
    return sorted(found, key=lambda p: p.stat().st_size, reverse=True)


def compile_one(source: Path, rewrite: bool) -> None:
    """Cache the code of ``source`` (rewritten for pytest, or plain) unless an up-to-date one is cached."""
    if not rewrite:
        compileall.compile_file(source, quiet=2)  # skips a module whose bytecode is current
        return
    pyc = rewritten_pyc(source)
    if _read_pyc(source, pyc) is not None:
        return
    # pytest's config only switches on the assertion-pass hook, which this suite does not use.
    source_hash, code = _rewrite_test(source, None)  # type: ignore[arg-type]
    pyc.parent.mkdir(exist_ok=True)
    partial = pyc.with_name(f"{pyc.name}.{os.getpid()}")
    with partial.open("wb") as fp:
        _write_pyc_fp(fp, source_hash, code)
    partial.replace(pyc)  # atomic: a reader sees no file, the old one or the whole new one


def fill(tests_dir: Path, *other_dirs: Path, processes: int | None = None) -> int:
    """Compile every module of ``tests_dir`` and ``other_dirs``; return how many there are."""
    sources = modules(tests_dir, *other_dirs)
    jobs = [(source, is_rewritten(source, tests_dir)) for source in sources]
    workers = max(1, min(processes or os.cpu_count() or 1, len(jobs)))
    if workers == 1:
        for source, rewrite in jobs:
            compile_one(source, rewrite)
    else:
        # fork: the children start with pytest already imported (the controller has no threads yet)
        with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) as pool:
            list(pool.map(compile_one, *zip(*jobs, strict=True), chunksize=8))
    return len(jobs)
