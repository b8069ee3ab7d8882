"""The Lambda layer cache: a fresh clone reuses the layer built for the same requirements.txt."""

from __future__ import annotations

import hashlib
import io
import sys
import zipfile
from pathlib import Path

import pytest

from ops import layer_cache


def project(root: Path, requirements: str) -> Path:
    root.mkdir(parents=True)
    (root / "requirements.txt").write_text(requirements)
    return root


def layer_zip(content: bytes) -> bytes:
    """A layer archive whose bytes depend on ``content`` alone: its entry carries a fixed
    timestamp, not the clock's (two archives built across a tick of the zip format's two-second
    clock would differ)."""
    buffer = io.BytesIO()
    entry = zipfile.ZipInfo("python/lib/python3.11/site-packages/plaid/__init__.py", date_time=(2024, 1, 1, 0, 0, 0))
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr(entry, content)
    return buffer.getvalue()


def built_layer(project_dir: Path, content: bytes = b"zip") -> Path:
    """What ``chalice package`` leaves behind: the layer named by the requirements' md5."""
    digest = hashlib.md5((project_dir / "requirements.txt").read_bytes(), usedforsecurity=False).hexdigest()
    path = project_dir / ".chalice" / "deployments" / f"managed-layer-{digest}-python3.11.zip"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(layer_zip(content))
    return path


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(layer_cache.CACHE_ENV, str(tmp_path / "cache"))
    return tmp_path / "cache"


def test_a_fresh_clone_gets_the_layer_built_for_the_same_requirements(tmp_path: Path, cache: Path) -> None:
    # GIVEN a clone that built its layer, and kept it
    first = project(tmp_path / "first", "plaid-python==46.0.0\n")
    layer = built_layer(first, b"the layer")
    assert layer_cache.keep(first) == [cache / layer.name]
    # WHEN a fresh clone of the same requirements restores
    fresh = project(tmp_path / "fresh", "plaid-python==46.0.0\n")
    restored = layer_cache.restore(fresh)
    # THEN Chalice finds the same layer where it looks, and a second restore changes nothing
    assert [p.relative_to(fresh) for p in restored] == [layer.relative_to(first)]
    assert restored[0].read_bytes() == layer_zip(b"the layer")
    # AND with the mode any new file gets there (not a private temporary file's)
    plain = fresh / ".chalice" / "deployments" / "plain"
    plain.write_bytes(b"")
    assert restored[0].stat().st_mode == plain.stat().st_mode
    assert layer_cache.restore(fresh) == []


def test_other_requirements_get_nothing(tmp_path: Path, cache: Path) -> None:
    old = project(tmp_path / "old", "a==1\n")
    built_layer(old)
    assert layer_cache.keep(old)
    assert layer_cache.restore(project(tmp_path / "new", "a==2\n")) == []


def test_a_vendor_folder_or_off_disables_the_cache(
    tmp_path: Path, cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    vendored = project(tmp_path / "vendored", "a==1\n")
    built_layer(vendored)
    (vendored / "vendor").mkdir()
    assert layer_cache.keep(vendored) == []
    monkeypatch.setenv(layer_cache.CACHE_ENV, "off")
    plain = project(tmp_path / "plain", "a==1\n")
    built_layer(plain)
    assert layer_cache.keep(plain) == []
    assert not cache.exists()


def test_a_layer_cut_short_is_never_kept(tmp_path: Path, cache: Path) -> None:
    # GIVEN a build interrupted while Chalice wrote its zip in place (no central directory yet)
    cut = project(tmp_path / "cut", "a==1\n")
    layer = built_layer(cut)
    layer.write_bytes(layer.read_bytes()[:-30])
    # WHEN kept THEN nothing reaches the cache, so no later clone restores it
    assert layer_cache.keep(cut) == []
    assert layer_cache.restore(project(tmp_path / "next", "a==1\n")) == []


def test_chalice_s_pip_is_shown_the_wheelhouse_besides_the_user_s_links(tmp_path: Path) -> None:
    # GIVEN the wheelhouse make built, and a user who has find-links of their own
    wheelhouse = tmp_path / "wheels"
    wheelhouse.mkdir()
    env = {"PATH": "/bin", "PIP_FIND_LINKS": "/srv/wheels"}
    # WHEN the package command prepares the environment of chalice's pip
    prepared = layer_cache.pip_environment(env, wheelhouse)
    # THEN pip looks in both, and the caller's environment is left as it was
    assert prepared == {"PATH": "/bin", "PIP_FIND_LINKS": f"/srv/wheels {wheelhouse}"}
    assert env["PIP_FIND_LINKS"] == "/srv/wheels"
    assert layer_cache.pip_environment({}, wheelhouse) == {"PIP_FIND_LINKS": str(wheelhouse)}


def test_without_a_wheelhouse_pip_finds_what_it_always_did(tmp_path: Path) -> None:
    assert layer_cache.pip_environment({"PATH": "/bin"}, tmp_path / "absent") == {"PATH": "/bin"}


def test_make_installs_from_the_wheelhouse_the_package_command_shows_chalice() -> None:
    # GIVEN the Makefile's install step and the running environment (make's venv)
    makefile = (Path(__file__).resolve().parents[2] / "Makefile").read_text()
    install = makefile.split("$(STAMP):", 1)[1].split("\n\n", 1)[0]
    # THEN it builds requirements.txt's wheels into <venv>/wheels and installs from there
    assert "pip wheel -q --no-deps --wheel-dir $(VENV)/wheels -r requirements.txt" in install
    assert "--find-links $(VENV)/wheels" in install
    assert layer_cache.WHEELHOUSE.name == "wheels"
    assert layer_cache.WHEELHOUSE.parent == Path(sys.prefix)
