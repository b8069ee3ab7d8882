"""End to end: the Saturday institution sync, fired by the local event runtime against fake Plaid.

The sync's pacing is replaced with a fake clock (``institution_sync.DEFAULTS``), so the
1.2-second spacing and the backoffs are recorded instead of waited out, and its page size
with 100 so the fake's 300 institutions take several pages.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest

from chalicelib.data import institutions, tables
from chalicelib.data.batch import batch_get
from chalicelib.pipeline import institution_sync
from chalicelib.pipeline.institution_sync import InstitutionSyncError, Pacing, SyncPolicy
from ops.fakes.plaid import FakePlaid
from ops.runtime import EventRuntime

pytestmark = [pytest.mark.integration, pytest.mark.slow]

PAGE_SIZE = 100


class FakeClock:
    """A clock that moves only when the sync sleeps; ``on_sleep`` runs after each sleep."""

    def __init__(self, on_sleep: Callable[[int], None] = lambda n: None) -> None:
        self.now = 0.0
        self.sleeps: list[float] = []
        self.on_sleep = on_sleep

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(round(seconds, 3))
        self.now += seconds
        self.on_sleep(len(self.sleeps))


def use_pacing(monkeypatch: pytest.MonkeyPatch, clock: FakeClock, **policy: Any) -> None:
    rules = SyncPolicy(page_size=PAGE_SIZE, **policy)
    monkeypatch.setattr(institution_sync, "DEFAULTS", Pacing(policy=rules, clock=clock, sleep=clock.sleep))


def us_institutions(plaid: FakePlaid) -> list[dict[str, Any]]:
    """What Plaid lists for the US, in its order."""
    return [dict(i) for i in plaid.state.institutions if "US" in i["country_codes"]]


def stored(institution_id: str) -> dict[str, Any] | None:
    row: dict[str, Any] | None = (
        tables.institutions().get_item(Key={"institution_id": institution_id}, ConsistentRead=True).get("Item")
    )
    return row


def stored_rows(payloads: list[dict[str, Any]]) -> dict[str, dict[str, Any] | None]:
    """Each institution's row as stored (None when missing), read consistently a hundred at a time."""
    wanted = [p["institution_id"] for p in payloads]
    found = batch_get(tables.institutions().name, [{"institution_id": i} for i in wanted], consistent=True)
    rows = {row["institution_id"]: row for row in found}
    return {i: rows.get(i) for i in wanted}


def matches_plaid(payloads: list[dict[str, Any]]) -> list[bool]:
    """For each institution, whether its stored row is exactly Plaid's record."""
    rows = stored_rows(payloads)
    return [rows[p["institution_id"]] == expected_row(p) for p in payloads]


def expected_row(payload: dict[str, Any]) -> dict[str, Any]:
    return institutions.institution_item(institutions.institution_from_plaid(payload))


def make_stale(payloads: list[dict[str, Any]]) -> None:
    """Rows as an older sync left them: another name and an attribute Plaid no longer reports."""
    for payload in payloads:
        tables.institutions().put_item(
            Item={"institution_id": payload["institution_id"], "name": "Old Name", "legacy_field": "x"}
        )


def offsets_since(plaid: FakePlaid, before: int) -> list[int]:
    return [int(c.body["offset"]) for c in plaid.calls("/institutions/get")[before:]]


def test_the_schedule_fires_saturdays_at_midnight_utc(runtime: EventRuntime) -> None:
    fire = runtime.next_fire("sync_institutions")
    assert fire is not None
    assert (fire.weekday(), fire.hour, fire.minute, fire.tzinfo) == (5, 0, 0, UTC)
    assert fire > datetime.now(UTC)


def test_the_sync_pages_through_plaid_and_retries_a_rate_limited_page(
    fake_plaid: FakePlaid, runtime: EventRuntime, monkeypatch: pytest.MonkeyPatch
) -> None:
    # GIVEN Plaid's US institutions (three pages of 100), rows an older sync left for the first page,
    # and Plaid answering 429 to the request right after the first page
    listed = us_institutions(fake_plaid)
    assert 200 < len(listed) <= 300
    make_stale(listed[:PAGE_SIZE])

    def rate_limit_second_request(sleeps: int) -> None:
        if sleeps == 1:  # the pacing wait before the second request
            fake_plaid.fail("/institutions/get", "RATE_LIMIT_EXCEEDED", times=1)

    clock = FakeClock(on_sleep=rate_limit_second_request)
    use_pacing(monkeypatch, clock)
    before = len(fake_plaid.calls("/institutions/get"))

    # WHEN the weekly schedule fires
    report = runtime.fire_schedule("sync_institutions")

    # THEN the rate-limited page was asked for again after a backoff, and no page was skipped or lost
    assert offsets_since(fake_plaid, before) == [0, 100, 100, 200]
    statuses = [c.status for c in fake_plaid.calls("/institutions/get")[before:]]
    assert statuses == [200, 429, 200, 200]
    assert report == {"pages": 3, "written": len(listed), "total": len(listed), "retries": 1}
    # AND requests were spaced 1.2 s apart (50 a minute), with a 10 s backoff after the 429
    assert clock.sleeps == [1.2, 10.0, 1.2]
    # AND every row is Plaid's full record, the stale ones overwritten entirely
    assert all(matches_plaid(listed))
    first = stored(listed[0]["institution_id"])
    assert first is not None and "legacy_field" not in first and first["name"] != "Old Name"


def test_a_sync_that_fails_part_way_keeps_what_it_wrote_and_the_retry_completes(
    fake_plaid: FakePlaid, runtime: EventRuntime, monkeypatch: pytest.MonkeyPatch
) -> None:
    # GIVEN stale rows for every institution, and Plaid failing every request after the first page
    listed = us_institutions(fake_plaid)
    make_stale(listed)

    def break_plaid_after_first_page(sleeps: int) -> None:
        if sleeps == 1:
            fake_plaid.fail("/institutions/get", "INTERNAL_SERVER_ERROR", times=None)

    clock = FakeClock(on_sleep=break_plaid_after_first_page)
    use_pacing(monkeypatch, clock, max_attempts=3)

    # WHEN the schedule fires
    try:
        with pytest.raises(InstitutionSyncError):
            runtime.fire_schedule("sync_institutions")
    finally:
        fake_plaid.clear_faults()

    # THEN the first page's rows are written, the rest still stale: nothing already written was lost
    assert all(matches_plaid(listed[:PAGE_SIZE]))
    assert not any(matches_plaid(listed[PAGE_SIZE:]))
    # AND the failing page was tried three times, backing off 10 s and 20 s
    assert clock.sleeps == [1.2, 10.0, 20.0]

    # WHEN Plaid recovers and the invocation is retried (Lambda's asynchronous retry)
    use_pacing(monkeypatch, FakeClock())
    report = runtime.fire_schedule("sync_institutions")

    # THEN the rerun rewrites every row from the start
    assert report["written"] == len(listed) and report["retries"] == 0
    assert all(matches_plaid(listed))
