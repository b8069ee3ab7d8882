"""The suite's bytecode cache: pytest and the import system accept what the controller writes."""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

from _pytest.assertion.rewrite import _read_pyc

from tests import bytecode_cache

TEST_MODULE = "def test_numbers():\n    x = 1\n    assert x == 2\n"
HELPER = "VALUE = 41 + 1\n"


def a_suite(root: Path) -> tuple[Path, Path, Path]:
    tests = root / "tests"
    (tests / "api").mkdir(parents=True)
    test_module = tests / "api" / "test_numbers.py"
    test_module.write_text(TEST_MODULE)
    helper = tests / "api" / "factories.py"
    helper.write_text(HELPER)
    tool = root / "ops" / "tool.py"
    tool.parent.mkdir()
    tool.write_text(HELPER)
    return test_module, helper, tool


def test_a_test_module_is_cached_rewritten_as_pytest_reads_it(tmp_path: Path) -> None:
    # GIVEN a suite with a test module
    test_module, _, _ = a_suite(tmp_path)
    # WHEN the cache is filled
    bytecode_cache.fill(tmp_path / "tests", tmp_path / "ops", processes=2)
    # THEN pytest's own reader accepts the file, and its code explains a failing assert
    code = _read_pyc(test_module, bytecode_cache.rewritten_pyc(test_module))
    assert code is not None
    namespace: dict[str, object] = {}
    exec(code, namespace)  # noqa: S102 - the module just compiled from the test's own source
    try:
        namespace["test_numbers"]()  # type: ignore[operator]
    except AssertionError as exc:
        assert "assert 1 == 2" in str(exc)  # plain Python would give an empty message
    else:
        raise AssertionError("the rewritten test did not fail")


def test_other_modules_get_ordinary_bytecode_the_import_system_reads(tmp_path: Path) -> None:
    # GIVEN a test helper and an ops module WHEN the cache is filled
    _, helper, tool = a_suite(tmp_path)
    bytecode_cache.fill(tmp_path / "tests", tmp_path / "ops", processes=1)
    # THEN each has a current pyc where importlib looks for it, not a rewritten one
    for source in (helper, tool):
        pyc = Path(importlib.util.cache_from_source(str(source)))
        assert pyc.read_bytes()[:4] == importlib.util.MAGIC_NUMBER
        assert not bytecode_cache.rewritten_pyc(source).exists()
        sys.path.insert(0, str(source.parent))
        try:
            spec = importlib.util.spec_from_file_location(source.stem, source)
            assert spec is not None and spec.loader is not None
            assert spec.loader.get_code(source.stem) is not None  # type: ignore[attr-defined]
        finally:
            sys.path.remove(str(source.parent))


def test_a_current_cache_is_kept_and_a_stale_one_rewritten(tmp_path: Path) -> None:
    # GIVEN a filled cache
    test_module, _, _ = a_suite(tmp_path)
    bytecode_cache.fill(tmp_path / "tests", processes=1)
    pyc = bytecode_cache.rewritten_pyc(test_module)
    os.utime(pyc, (1, 1))
    # WHEN it is filled again with nothing changed THEN the file is not rewritten
    bytecode_cache.fill(tmp_path / "tests", processes=1)
    assert pyc.stat().st_mtime == 1
    # WHEN the source changes THEN the cache follows it
    test_module.write_text(TEST_MODULE.replace("x == 2", "x == 3"))
    bytecode_cache.fill(tmp_path / "tests", processes=1)
    code = _read_pyc(test_module, pyc)
    assert code is not None
    assert pyc.stat().st_mtime > 1
