"""The repository stands alone: no tracked file points at documents or folders outside it.

A person who clones the repository has only what is in it, so code, tests, ops scripts and docs
state their rules in the project's own words (``docs/``) instead of citing outside material.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

#: What a citation of outside material looks like. Written as expressions, so this file does not
#: match itself. A random-number seed ("seed 42", "the tuning seeds") is not a citation.
OUTSIDE_REFERENCES = {
    "a path to the shared folder": re.compile(r"\.\./shared"),
    "the shared seed documents": re.compile(r"shared[/]seeds", re.IGNORECASE),
    "the shared research notes": re.compile(r"shared[/]research", re.IGNORECASE),
    "a numbered seed document": re.compile(r"seeds?\s?00", re.IGNORECASE),
}


def tracked_files() -> list[Path]:
    """Every file git tracks in this checkout (as it is on disk now)."""
    if not (ROOT / ".git").exists():
        pytest.skip("not a git checkout: the tracked files are unknown")
    listed = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, check=True, capture_output=True, timeout=60
    ).stdout.decode()
    return [ROOT / name for name in listed.split("\0") if name]


def text_of(path: Path) -> str | None:
    """The file's text, or None for a binary file (or one deleted but not yet staged)."""
    try:
        data = path.read_bytes()
    except (FileNotFoundError, IsADirectoryError):
        return None
    if b"\0" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def outside_references(text: str) -> list[tuple[int, str]]:
    """(line number, what it cites) for every outside reference in ``text``."""
    return [
        (number, what)
        for number, line in enumerate(text.splitlines(), start=1)
        for what, pattern in OUTSIDE_REFERENCES.items()
        if pattern.search(line)
    ]


@pytest.mark.parametrize(
    ("line", "cites"),
    [
        ("The behaviour follows " + "../" + "shared/" + "seeds/README.md", True),
        ("as " + "Seed 0" + "02 says", True),
        ("keys follow " + "seeds 0" + "00, 002", True),
        ("notes in shared/" + "research/plaid.md", True),
        ("random.Random(seed) with seed 42; the tuning seeds 1, 2, 4 and 5", False),
        ("keys follow the data model (docs/access-patterns.md#data-model)", False),
    ],
)
def test_the_patterns_tell_a_citation_from_a_random_seed(line: str, cites: bool) -> None:
    # GIVEN a line of text
    # WHEN it is scanned
    found = outside_references(line)
    # THEN only a citation of outside material is reported
    assert bool(found) is cites, found


def test_no_tracked_file_points_outside_the_repository() -> None:
    # GIVEN every tracked text file
    files = tracked_files()
    assert any(path.name == "README.md" for path in files), "git listed no files"
    # WHEN each is scanned for citations of outside material
    offenders = [
        f"{path.relative_to(ROOT)}:{number}: {what}"
        for path in files
        if (text := text_of(path)) is not None
        for number, what in outside_references(text)
    ]
    # THEN there are none: state the rule in docs/ and point there instead
    assert not offenders, "\n".join(offenders)
