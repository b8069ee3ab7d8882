"""Built Lambda layers kept across clones, under the key Chalice itself uses.

``chalice package`` builds the dependency layer once per ``requirements.txt`` and keeps it in
``.chalice/deployments/managed-layer-<md5 of requirements.txt>-<python>.zip``; a fresh clone
has no such file, so it downloads the Lambda wheels again (and, without the wheelhouse below,
rebuilds plaid-python from its sdist: about 25 s of CPU instead of 8). The venv's installed
packages cannot stand in: some are built for a newer glibc than Lambda's. :func:`restore`
copies a layer built for the same ``requirements.txt`` from the user's cache into the project
before packaging, and :func:`keep` saves a newly built one. The cache is
``$TXN_LAYER_CACHE`` (``off`` disables it), else ``$XDG_CACHE_HOME/txn/layers`` or
``~/.cache/txn/layers``. A project with a ``vendor/`` folder (which Chalice hashes too) is
not cached.

When no layer is cached, Chalice still need not rebuild what the environment's own install
already built: ``make`` builds the wheels of ``requirements.txt`` once, into the environment's
wheelhouse (``<venv>/wheels``), and installs from it; :func:`pip_environment` shows that
wheelhouse to the pip Chalice runs (``PIP_FIND_LINKS``). Chalice takes a wheel from it only
if it runs on Lambda (a pure-Python one such as plaid-python's, which the registry ships as
an sdist only) and fetches or builds the rest as before.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sys
import uuid
import zipfile
from pathlib import Path

CACHE_ENV = "TXN_LAYER_CACHE"
#: Where ``make`` keeps the wheels it built for this environment's requirements.
WHEELHOUSE = Path(sys.prefix) / "wheels"


def cache_dir() -> Path | None:
    configured = os.environ.get(CACHE_ENV, "")
    if configured.lower() == "off":
        return None
    if configured:
        return Path(configured)
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "txn" / "layers"


def _pattern(project_dir: Path) -> str | None:
    """The glob of the project's layer files, or None when the project is not cacheable."""
    requirements = project_dir / "requirements.txt"
    if not requirements.exists() or (project_dir / "vendor").exists():
        return None
    digest = hashlib.md5(requirements.read_bytes(), usedforsecurity=False).hexdigest()
    return f"managed-layer-{digest}-*.zip"


def _deployments(project_dir: Path) -> Path:
    return project_dir / ".chalice" / "deployments"


def _copy_missing(pattern: str, source: Path, target: Path) -> list[Path]:
    """Copy each whole zip matching ``pattern`` from ``source`` that ``target`` lacks (atomically).

    Chalice writes its layer in place, so a build cut short leaves a truncated zip under the
    final name: such a file is never copied.
    """
    copied = []
    for path in sorted(source.glob(pattern)):
        destination = target / path.name
        if destination.exists() or not zipfile.is_zipfile(path):
            continue
        target.mkdir(parents=True, exist_ok=True)
        partial = target / f".partial-{os.getpid()}-{uuid.uuid4().hex}"  # the umask's mode, unlike mkstemp's 0600
        shutil.copyfile(path, partial)
        partial.replace(destination)
        copied.append(destination)
    return copied


def restore(project_dir: Path) -> list[Path]:
    """Put the cached layer for this ``requirements.txt`` where Chalice looks for it."""
    cache, pattern = cache_dir(), _pattern(project_dir)
    if cache is None or pattern is None or not cache.is_dir():
        return []
    try:
        return _copy_missing(pattern, cache, _deployments(project_dir))
    except OSError:
        return []  # an unreadable cache only means Chalice builds the layer itself


def keep(project_dir: Path) -> list[Path]:
    """Save the layer Chalice built (or reused) for this ``requirements.txt`` in the cache."""
    cache, pattern = cache_dir(), _pattern(project_dir)
    if cache is None or pattern is None or not _deployments(project_dir).is_dir():
        return []
    try:
        return _copy_missing(pattern, _deployments(project_dir), cache)
    except OSError:
        return []  # a read-only or full cache only costs the next clone a rebuild


def pip_environment(env: dict[str, str], wheelhouse: Path = WHEELHOUSE) -> dict[str, str]:
    """``env`` with the wheelhouse added to pip's find-links (kept: any the user set), if it exists."""
    if not wheelhouse.is_dir():
        return env
    links = " ".join(filter(None, [env.get("PIP_FIND_LINKS", ""), str(wheelhouse)]))
    return {**env, "PIP_FIND_LINKS": links}
