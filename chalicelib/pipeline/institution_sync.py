"""The weekly institution sync (Saturday 00:00 UTC; ``docs/item-lifecycle.md``).

Pages through Plaid's ``/institutions/get`` (500 per page, offsets until ``total``) and
overwrites each institution's row with a full PutItem as soon as its page arrives.

* **Rate limit.** Plaid allows 50 ``/institutions/get`` requests per minute per client, so
  calls are spaced at least 60/50 = 1.2 s apart (:class:`RequestPacer`). A 429 anyway, or
  another answer Plaid marks retryable (5xx, connection), backs off (10 s, doubling, at
  most 60 s) and asks for the *same* page again, at most :attr:`SyncPolicy.max_attempts`
  times; rows already written stay written.
* **Failure part way.** Rows are never deleted, and every write is a full overwrite of
  what Plaid reports, so a failed run loses nothing: the invocation fails, Lambda's
  asynchronous retries (twice) run the sync again from offset 0 and rewrite the same rows,
  and next Saturday's run does too. No checkpoint is kept on purpose: Plaid's list may
  shift between runs, and resuming at a stale offset could skip institutions.
* **Time.** At 500 per page and at most 50 pages a minute, ~12,000 US institutions take
  24 pages: well under a minute of pacing plus the calls themselves. Lambda's 15-minute
  limit leaves room for the backoffs; the function needs a long timeout (900 s).
* Institutions Plaid stops listing keep their last row (the API only reads by id).

Progress is logged per page. ``clock`` and ``sleep`` are injectable (and :data:`DEFAULTS`
can be replaced) so tests never wait out a minute.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from chalicelib.data import institutions
from chalicelib.errors import ServiceError
from chalicelib.observability import count, logger
from chalicelib.plaid.client import MAX_PAGE_SIZE, PlaidClient, get_plaid
from chalicelib.plaid.errors import PlaidError, PlaidRateLimitError

Clock = Callable[[], float]
Sleep = Callable[[float], None]
PAGES_METRIC = "txn.institutions.sync.page"
RETRY_METRIC = "txn.institutions.sync.retried"


class InstitutionSyncError(ServiceError):
    """A page kept failing after every allowed attempt; the run stops (rows written stay)."""

    retryable = True


@dataclass(frozen=True)
class SyncPolicy:
    page_size: int = MAX_PAGE_SIZE
    #: Plaid's limit for /institutions/get, per client.
    requests_per_minute: int = 50
    #: Attempts per page (the first one included).
    max_attempts: int = 6
    backoff_seconds: float = 10.0
    backoff_max_seconds: float = 60.0
    country_codes: tuple[str, ...] = ("US",)

    def backoff(self, failed_attempts: int) -> float:
        """The wait after ``failed_attempts`` consecutive failures of one page."""
        return float(min(self.backoff_max_seconds, self.backoff_seconds * 2 ** (failed_attempts - 1)))


class RequestPacer:
    """Spaces calls evenly so that at most ``per_minute`` start in any minute."""

    def __init__(self, per_minute: int, *, clock: Clock, sleep: Sleep) -> None:
        if per_minute < 1:
            raise ValueError("per_minute must be at least 1")
        self.interval = 60.0 / per_minute
        self._clock = clock
        self._sleep = sleep
        self._last: float | None = None

    def wait(self) -> None:
        """Block until the next call may start, then count it as started."""
        if self._last is not None:
            remaining = self._last + self.interval - self._clock()
            if remaining > 0:
                self._sleep(remaining)
        self._last = self._clock()


@dataclass(frozen=True)
class Pacing:
    """What the scheduled run uses; tests replace :data:`DEFAULTS` with a fake clock."""

    policy: SyncPolicy = field(default_factory=SyncPolicy)
    clock: Clock = time.monotonic
    sleep: Sleep = time.sleep


DEFAULTS = Pacing()


@dataclass(frozen=True)
class SyncReport:
    pages: int
    written: int
    total: int
    retries: int

    def as_dict(self) -> dict[str, int]:
        return {"pages": self.pages, "written": self.written, "total": self.total, "retries": self.retries}


def run_scheduled(event: Mapping[str, Any] | None = None) -> dict[str, int]:
    """The Saturday schedule's entry: one full sync with :data:`DEFAULTS`."""
    logger.info("institution sync started", extra={"scheduled_for": (event or {}).get("time")})
    pacing = DEFAULTS
    report = sync_institutions(policy=pacing.policy, clock=pacing.clock, sleep=pacing.sleep)
    return report.as_dict()


def sync_institutions(
    *,
    plaid: PlaidClient | None = None,
    policy: SyncPolicy | None = None,
    clock: Clock = time.monotonic,
    sleep: Sleep = time.sleep,
) -> SyncReport:
    """Fetch every page and overwrite its rows; raises :class:`InstitutionSyncError` when stuck."""
    client = plaid or get_plaid()
    rules = policy or SyncPolicy()
    pacer = RequestPacer(rules.requests_per_minute, clock=clock, sleep=sleep)
    offset = pages = written = retries = 0
    total: int | None = None
    while total is None or offset < total:
        page, page_retries = _fetch_page(client, rules, pacer, sleep, offset)
        retries += page_retries
        total = int(page.get("total", 0))
        found = [institutions.institution_from_plaid(i) for i in page.get("institutions") or []]
        if not found:
            break  # Plaid's total overstated the list: nothing more to read
        written += institutions.put_institutions(found)
        pages += 1
        offset += len(found)
        count(PAGES_METRIC)
        logger.info(
            "institution page written",
            extra={"offset": offset - len(found), "count": len(found), "written": written, "total": total},
        )
    report = SyncReport(pages, written, total or 0, retries)
    logger.info("institution sync finished", extra=report.as_dict())
    return report


def _fetch_page(
    client: PlaidClient, rules: SyncPolicy, pacer: RequestPacer, sleep: Sleep, offset: int
) -> tuple[dict[str, Any], int]:
    """One page at ``offset``, retried with backoff while Plaid says a retry may work."""
    for attempt in range(1, rules.max_attempts + 1):
        pacer.wait()
        try:
            page = client.institutions_get(offset=offset, count=rules.page_size, country_codes=rules.country_codes)
            return page, attempt - 1
        except PlaidError as exc:
            if not exc.retryable:
                raise
            if attempt == rules.max_attempts:
                raise InstitutionSyncError(
                    f"institutions page at offset {offset} failed {attempt} times: {exc.error_code or exc}"
                ) from exc
            delay = rules.backoff(attempt)
            reason = "rate_limited" if isinstance(exc, PlaidRateLimitError) else "retryable_error"
            logger.warning(
                "institution page failed; retrying the same page",
                extra={"offset": offset, "attempt": attempt, "delay": delay, "reason": reason, **exc.describe()},
            )
            count(RETRY_METRIC, reason=reason)
            sleep(delay)
    raise InstitutionSyncError(f"institutions page at offset {offset}: no attempts allowed")
