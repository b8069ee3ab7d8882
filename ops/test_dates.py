"""``make test-dates``: the whole suite under a faked process clock, at the instants calendars break.

Each run preloads libfaketime with a **relative** offset, so every process the suite starts (xdist
workers, moto server, fakes, ``chalice local``) reads the same shifted clock, and the clock keeps
running: a run started at
23:58 UTC crosses midnight a few minutes in. The instants are: now; today at 23:58; the ends of a
30-day and of a 31-day month at 23:58; 2028-02-28 23:58 (into a leap day); 2026-12-31 23:58 (into
a new year); the two US daylight-saving change days, just before the change, in the US Eastern
time zone; and three random instants drawn from a seed the output prints (``--seed`` replays
them). It prints one line per instant and exits 1 if any failed; each run's output is kept in
``out/test-dates/``.

The library is built (once, with ``cc``) from the source the pinned ``libfaketime`` package ships,
intercepting only the calls that read the wall clock (``clock_gettime``, ``gettimeofday``,
``time``, ``ftime``, ``timespec_get``) and sharing no state between processes. The package's own
build also intercepts condition-variable waits and timers, which a constant offset does not need,
and it crashed a threaded test worker (a segmentation fault in a server thread).
"""

from __future__ import annotations

import argparse
import calendar
import importlib.util
import os
import random
import re
import secrets
import subprocess
import sys
import time
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from datetime import time as clock_time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LOGS = ROOT / "out" / "test-dates"


def _source() -> Path:
    """libfaketime's C source, as the pinned ``libfaketime`` package ships it (found, not imported)."""
    spec = importlib.util.find_spec("libfaketime")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("the libfaketime package is not installed: make test-dates installs the dev requirements")
    return Path(next(iter(spec.submodule_search_locations))) / "vendor" / "libfaketime" / "src" / "libfaketime.c"


#: Only the wall-clock readers are intercepted; no shared memory between processes.
_CFLAGS = ("-std=gnu99", "-O2", "-shared", "-fPIC", "-DFAKE_STATELESS", "-DFAKE_INTERNAL_CALLS")


def build_library() -> Path:
    """The offset-only libfaketime, compiled into ``out/test-dates/`` unless it is there already."""
    source = _source()
    library = LOGS / "libfaketime-offset.so.1"
    if library.exists() and library.stat().st_mtime >= source.stat().st_mtime:
        return library
    LOGS.mkdir(parents=True, exist_ok=True)
    compiler = os.environ.get("CC", "cc")
    command = [compiler, *_CFLAGS, '-DPREFIX="/"', '-DLIBDIRNAME="."', str(source), "-o", str(library)]
    built = subprocess.run([*command, "-lpthread", "-ldl", "-lm"], capture_output=True, text=True, check=False)
    if built.returncode != 0:
        raise SystemExit(f"could not build libfaketime with {compiler}:\n{built.stderr}")
    return library


BEFORE_MIDNIGHT = clock_time(23, 58)
EASTERN = "America/New_York"


@dataclass(frozen=True)
class Instant:
    label: str
    at: datetime  # aware, UTC
    tz: str = "UTC"  # the process time zone (local-time code paths)


def _month_end(day: date) -> date:
    return day.replace(day=calendar.monthrange(day.year, day.month)[1])


def _next_month_end(after: date, length: int) -> date:
    """The first month end after ``after`` of a month with ``length`` days (not a December: the
    year's end has its own instant)."""
    day = _month_end(after)
    while day <= after or day.day != length or day.month == 12:
        day = _month_end(day + timedelta(days=1))
    return day


def _nth_sunday(year: int, month: int, n: int) -> date:
    first = date(year, month, 1)
    return first + timedelta(days=(6 - first.weekday()) % 7 + 7 * (n - 1))


def _dst_changes(after: date) -> tuple[datetime, datetime]:
    """The next US spring-forward and fall-back instants (02:00 local), two minutes before each."""
    spring = next(d for y in (after.year, after.year + 1) if (d := _nth_sunday(y, 3, 2)) > after)
    fall = next(d for y in (after.year, after.year + 1) if (d := _nth_sunday(y, 11, 1)) > after)
    # 02:00 EST is 07:00 UTC; 02:00 EDT is 06:00 UTC.
    return (
        datetime.combine(spring, clock_time(6, 58), UTC),
        datetime.combine(fall, clock_time(5, 58), UTC),
    )


def instants(now: datetime, seed: int) -> list[Instant]:
    today = now.date()
    spring, fall = _dst_changes(today)
    rng = random.Random(seed)  # noqa: S311 - reproducible draws are the point
    start, end = datetime(2020, 1, 1, tzinfo=UTC), datetime(2035, 12, 31, tzinfo=UTC)
    drawn = [start + timedelta(seconds=rng.randrange(int((end - start).total_seconds()))) for _ in range(3)]
    return [
        Instant("now", now),
        Instant("today-23:58", datetime.combine(today, BEFORE_MIDNIGHT, UTC)),
        Instant("30-day-month-end", datetime.combine(_next_month_end(today, 30), BEFORE_MIDNIGHT, UTC)),
        Instant("31-day-month-end", datetime.combine(_next_month_end(today, 31), BEFORE_MIDNIGHT, UTC)),
        Instant("into-leap-day", datetime(2028, 2, 28, 23, 58, tzinfo=UTC)),
        Instant("into-2027", datetime(2026, 12, 31, 23, 58, tzinfo=UTC)),
        Instant("us-dst-spring", spring, EASTERN),
        Instant("us-dst-fall", fall, EASTERN),
        *(Instant(f"random-{n + 1}", at.replace(microsecond=0)) for n, at in enumerate(drawn)),
    ]


def faked_env(instant: Instant, library: Path) -> dict[str, str]:
    """The environment that starts every process of the run at ``instant`` (offset from now)."""
    offset = round((instant.at - datetime.now(UTC)).total_seconds())
    env = dict(os.environ)
    env.update(
        LD_PRELOAD=" ".join(p for p in (str(library), os.environ.get("LD_PRELOAD", "")) if p),
        FAKETIME=f"{offset:+d}",
        FAKETIME_DONT_FAKE_MONOTONIC="1",  # timeouts and durations keep real time
        TZ=instant.tz,
    )
    return env


#: pytest's last line, with or without ``-q``: "3 failed, 2060 passed in 201.5s (0:03:21)".
_SUMMARY = re.compile(r"^(?:=+ )?(\d+ (?:passed|failed|errors?)\b.*?) in [\d.]+s", re.MULTILINE)


def run(instant: Instant, library: Path, pytest_args: list[str]) -> tuple[bool, str, float]:
    """Run the suite at ``instant``; (passed, pytest's summary, seconds)."""
    LOGS.mkdir(parents=True, exist_ok=True)
    log = LOGS / f"{instant.label}.log"
    started = time.monotonic()
    with log.open("w") as out:
        code = subprocess.call(
            [sys.executable, "-m", "pytest", *pytest_args],
            cwd=ROOT,
            env=faked_env(instant, library),
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    matches = _SUMMARY.findall(log.read_text(errors="replace"))
    return code == 0, (matches[-1] if matches else f"exit {code}, no summary"), time.monotonic() - started


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, help="the seed of the three random instants (default: drawn)")
    parser.add_argument("--only", nargs="*", help="labels of the instants to run (default: all)")
    parser.add_argument("--list", action="store_true", help="print the instants and exit")
    parser.add_argument("pytest_args", nargs="*", help="pytest's arguments (default: -n 3 --dist loadgroup -q)")
    args = parser.parse_args(argv)
    library = build_library()
    seed = args.seed if args.seed is not None else secrets.randbelow(10**6)
    chosen = [i for i in instants(datetime.now(UTC), seed) if not args.only or i.label in args.only]
    print(f"random instants drawn with --seed {seed}; logs in {LOGS.relative_to(ROOT)}/", flush=True)
    failed = 0
    for instant in chosen:
        when = f"{instant.at:%Y-%m-%d %H:%M:%S}Z  {instant.label:<17} TZ={instant.tz:<17}"
        if args.list:
            print(when)
            continue
        passed, summary, seconds = run(instant, library, args.pytest_args or ["-n", "3", "--dist", "loadgroup", "-q"])
        failed += not passed
        print(f"{when} {'ok  ' if passed else 'FAIL'}  {summary} ({seconds:.0f} s)", flush=True)
    if not args.list:
        print(f"{len(chosen) - failed} of {len(chosen)} instants passed", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
