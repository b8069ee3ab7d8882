"""A lease lock on the shared ``locks`` table that Go services' cirello.io/dynamolock lockers respect.

**The row** has dynamolock's layout (:mod:`chalicelib.insight.data.locks`): ``key``,
``ownerName`` (ours: ``<prefix>:<random>``, new for every acquisition), ``leaseDuration``
(Go duration text, ``"1m0s"``), ``recordVersionNumber`` (RVN), optional ``data`` and
``isReleased``, and additional attributes, which both sides copy when they acquire. Ours
adds one, ``fence``.

**The same writes as dynamolock**, so each side sees the other's holders:

* *acquire a free lock*: PutItem conditioned on ``attribute_not_exists(key)``, or on a
  released row (``isReleased`` present) still carrying the RVN we read;
* *take over an expired lease*: PutItem conditioned on ``recordVersionNumber`` being the one
  we read (nobody renewed it since);
* *heartbeat*: UpdateItem ``SET recordVersionNumber, leaseDuration`` conditioned on our
  ``ownerName`` and our current RVN, every ``heartbeat`` (1 s);
* *release*: UpdateItem ``SET isReleased = "1"`` on the same condition. The row is never
  deleted: it carries the fencing counter.

**When a lease counts as expired.** dynamolock stores no time: a waiter takes over only
after seeing the *same* RVN for a whole ``leaseDuration`` of its own clock. That is what
this locker does for rows it cannot read a time from (any RVN it did not write, i.e. every
Go holder's). Its own RVNs carry their absolute expiry, ``<unix ns>:txn:<expiry unix
ms>:<random>``, and a row whose RVN has that shape is taken over as soon as the expiry has
passed on our clock, instead of a Lambda waiting out a whole extra lease. Any write by
another locker replaces the RVN, so the expiry read is always the current holder's; the
clocks involved are NTP-synchronised to far less than the 60 s lease. Go lockers never parse
the RVN (they compare it for equality), so ours look like any other to them: they wait
while our heartbeat keeps changing it, and take over 60 s after it stops.

**Fencing token.** Every acquisition by this locker writes ``fence`` = the previous row's
``fence`` + 1, but never less than the acquisition instant in microseconds, so the token
rises even across a deleted row (an operator clearing a lock, a Go locker that deletes on
release). Go lockers copy ``fence`` unchanged. Whoever the holder writes to (the ``alert``
row) refuses a token older than the newest it has seen, so a holder that stalled past its
lease and was replaced cannot write after its successor did.

Time comes from an injectable ``clock`` (wall time, aware UTC) and ``sleep``; the heartbeat
runs on a thread with a real period.
"""

from __future__ import annotations

import os
import secrets
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from chalicelib.aws.errors import translated
from chalicelib.data.ttl import utcnow
from chalicelib.errors import ConditionFailedError, DataError
from chalicelib.insight.data import tables
from chalicelib.insight.data.locks import (
    DATA,
    FENCE,
    IS_RELEASED,
    KEY,
    LEASE_DURATION,
    OWNER_NAME,
    RECORD_VERSION_NUMBER,
    RELEASED,
    LockRecord,
    get_lock,
    go_duration,
)
from chalicelib.insight.data.values import optional_int
from chalicelib.observability import count, logger

#: The marker of an RVN this locker wrote: ``<unix ns>:txn:<expiry unix ms>:<random>``.
RVN_TAG = "txn"
LOCK_METRIC = "insight.lock"
_NAMES = {
    "#key": KEY,
    "#owner": OWNER_NAME,
    "#lease": LEASE_DURATION,
    "#rvn": RECORD_VERSION_NUMBER,
    "#released": IS_RELEASED,
}

Clock = Callable[[], datetime]
Sleep = Callable[[float], None]


class LockBusyError(DataError):
    """Another holder keeps the lease alive; try again later."""

    retryable = True


class LockLostError(DataError):
    """The lease was taken over (or ran out) while we held it: stop writing."""

    retryable = True


def our_expiry(record_version_number: str) -> datetime | None:
    """The expiry an RVN of ours carries; ``None`` for anyone else's (pure)."""
    parts = record_version_number.split(":")
    if len(parts) != 4 or parts[1] != RVN_TAG or not parts[2].isdigit():
        return None
    return datetime.fromtimestamp(int(parts[2]) / 1000, UTC)


def _epoch_ms(moment: datetime) -> int:
    return int(moment.timestamp() * 1000)


def _epoch_us(moment: datetime) -> int:
    return int(moment.timestamp() * 1_000_000)


class HeldLock:
    """A lease this process holds: its key, owner, fencing token and current RVN."""

    def __init__(self, key: str, owner_name: str, fence: int, rvn: str, expires_at: datetime) -> None:
        self.key = key
        self.owner_name = owner_name
        self.fence = fence
        self._rvn = rvn
        self._expires_at = expires_at
        self._lost = threading.Event()
        self._renewed = threading.Condition()
        self.renewals = 0
        self.mutex = threading.Lock()  # one write at a time: heartbeat vs release

    def __repr__(self) -> str:
        return f"HeldLock(key={self.key!r}, owner_name={self.owner_name!r}, fence={self.fence})"

    @property
    def record_version_number(self) -> str:
        return self._rvn

    @property
    def expires_at(self) -> datetime:
        return self._expires_at

    @property
    def lost(self) -> bool:
        return self._lost.is_set()

    def renewed(self, rvn: str, expires_at: datetime) -> None:
        with self._renewed:
            self._rvn, self._expires_at = rvn, expires_at
            self.renewals += 1
            self._renewed.notify_all()

    def lose(self) -> None:
        self._lost.set()
        with self._renewed:
            self._renewed.notify_all()

    def wait_renewals(self, count: int, timeout: float) -> bool:
        """Block until ``count`` heartbeats succeeded (or the lease was lost); for observers."""
        with self._renewed:
            return self._renewed.wait_for(lambda: self.renewals >= count or self.lost, timeout=timeout)


@dataclass
class _Watch:
    """A foreign RVN and when we first saw it (dynamolock's takeover rule)."""

    rvn: str
    since: datetime


class Locker:
    """Acquires, renews and releases leases on the ``locks`` table (see the module docstring)."""

    def __init__(
        self,
        *,
        lease: timedelta = timedelta(seconds=60),
        heartbeat: timedelta = timedelta(seconds=1),
        busy_wait: timedelta = timedelta(seconds=5),
        refresh: timedelta = timedelta(milliseconds=250),
        clock: Clock = utcnow,
        sleep: Sleep = time.sleep,
        owner_prefix: str | None = None,
    ) -> None:
        if lease < 2 * heartbeat:
            raise ValueError("the heartbeat must be at most half the lease (dynamolock's rule)")
        self.lease = lease
        self.heartbeat_period = heartbeat
        self.busy_wait = busy_wait
        self.refresh = refresh
        self.clock = clock
        self.sleep = sleep
        self.owner_prefix = owner_prefix or os.environ.get("AWS_LAMBDA_FUNCTION_NAME") or "txn-insight"

    # --- acquire ---------------------------------------------------------------------

    def acquire(self, key: str) -> HeldLock:
        """Take the lease on ``key`` or raise :class:`LockBusyError` (no heartbeat: see :meth:`hold`).

        A free or released row is taken at once, one of ours whose expiry passed at once,
        another locker's after its RVN stayed the same for its ``leaseDuration``. A live
        holder is waited for up to ``busy_wait``; a possibly dead one up to its lease on top.
        """
        owner = f"{self.owner_prefix}:{secrets.token_hex(12)}"
        started = self.clock()
        watch: _Watch | None = None
        alive = False  # a foreign RVN changed while we watched: its holder heartbeats
        while True:
            row = get_lock(key)
            now = self.clock()
            condition: tuple[str, dict[str, Any]] | None = None
            if row is None:
                condition = ("attribute_not_exists(#key)", {})
            elif row.is_released:
                condition = _same_rvn(row, "attribute_exists(#released)")
            else:
                expiry = our_expiry(row.record_version_number)
                if expiry is not None and expiry <= now:
                    condition = _same_rvn(row)
                elif expiry is None:
                    if watch is None or watch.rvn != row.record_version_number:
                        alive = alive or watch is not None
                        watch = _Watch(row.record_version_number, now)
                    elif now - watch.since >= row.lease_duration:
                        condition = _same_rvn(row)
            if condition is not None:
                held = self._put(key, owner, row, now, condition)
                if held is not None:
                    count(LOCK_METRIC, outcome="acquired", kind=_kind(row))
                    return held
                watch, alive = None, False
                continue  # someone else moved first: look again at once
            if now - started >= self.busy_wait and (
                alive or watch is None or row is None or row.lease_duration > self.lease
            ):
                # A live holder (ours unexpired, or a foreign RVN that changes) is given
                # busy_wait; an unchanged foreign RVN (perhaps a crashed holder) its lease.
                count(LOCK_METRIC, outcome="busy")
                raise LockBusyError(f"lock {key} is held by {row.owner_name if row else 'nobody'}")
            self.sleep(self.refresh.total_seconds())

    def ensure_held(self, held: HeldLock) -> None:
        """Raise :class:`LockLostError` unless the lease is still ours by what this process knows."""
        if held.lost or self.clock() >= held.expires_at:
            raise LockLostError(f"lock {held.key} is no longer held (fence {held.fence})")

    def _put(
        self, key: str, owner: str, row: LockRecord | None, now: datetime, condition: tuple[str, dict[str, Any]]
    ) -> HeldLock | None:
        expires_at = now + self.lease
        rvn = self._rvn(now, expires_at)
        previous = optional_int(row.additional.get(FENCE)) if row else None
        fence = max((previous or 0) + 1, _epoch_us(now))
        item: dict[str, Any] = {k: v for k, v in (row.additional if row else {}).items() if k != FENCE}
        item.update(
            {
                KEY: key,
                OWNER_NAME: owner,
                LEASE_DURATION: go_duration(self.lease),
                RECORD_VERSION_NUMBER: rvn,
                FENCE: fence,
            }
        )
        if row is not None and row.data is not None:
            item[DATA] = row.data
        expression, values = condition
        request: dict[str, Any] = {"Item": item, "ConditionExpression": expression}
        names = {n: v for n, v in _NAMES.items() if n in expression}
        if names:
            request["ExpressionAttributeNames"] = names
        if values:
            request["ExpressionAttributeValues"] = values
        try:
            with translated():
                tables.locks().put_item(**request)
        except ConditionFailedError:
            stored = get_lock(key)  # a retried put that had succeeded reads as ours
            if stored is None or stored.record_version_number != rvn or stored.owner_name != owner:
                return None
        return HeldLock(key, owner, fence, rvn, expires_at)

    def _rvn(self, now: datetime, expires_at: datetime) -> str:
        nanos = _epoch_us(now) * 1000
        return f"{nanos}:{RVN_TAG}:{_epoch_ms(expires_at)}:{secrets.token_hex(8)}"

    # --- heartbeat and release ---------------------------------------------------------

    def heartbeat(self, held: HeldLock) -> None:
        """Renew the lease once; :class:`LockLostError` when it is no longer ours."""
        with held.mutex:
            if held.lost:
                raise LockLostError(f"lock {held.key} was lost")
            now = self.clock()
            expires_at = now + self.lease
            rvn = self._rvn(now, expires_at)
            try:
                with translated():
                    tables.locks().update_item(
                        Key={KEY: held.key},
                        UpdateExpression="SET #rvn = :new, #lease = :lease",
                        ConditionExpression="attribute_exists(#key) AND #rvn = :current AND #owner = :owner",
                        ExpressionAttributeNames={n: _NAMES[n] for n in ("#key", "#rvn", "#lease", "#owner")},
                        ExpressionAttributeValues={
                            ":new": rvn,
                            ":lease": go_duration(self.lease),
                            ":current": held.record_version_number,
                            ":owner": held.owner_name,
                        },
                    )
            except ConditionFailedError:
                stored = get_lock(held.key)
                if stored is None or stored.record_version_number != rvn or stored.owner_name != held.owner_name:
                    held.lose()
                    count(LOCK_METRIC, outcome="lost")
                    raise LockLostError(f"lock {held.key} was taken over") from None
            except DataError:
                if self.clock() >= held.expires_at:  # could not renew for a whole lease
                    held.lose()
                    count(LOCK_METRIC, outcome="lost")
                    raise LockLostError(f"lock {held.key} expired unrenewed") from None
                raise
            held.renewed(rvn, expires_at)

    def release(self, held: HeldLock) -> bool:
        """Mark the row released (``isReleased = "1"``); ``False`` if it was no longer ours."""
        with held.mutex:
            if held.lost:
                return False
            try:
                with translated():
                    tables.locks().update_item(
                        Key={KEY: held.key},
                        UpdateExpression="SET #released = :released",
                        ConditionExpression="attribute_exists(#key) AND #rvn = :current AND #owner = :owner",
                        ExpressionAttributeNames={n: _NAMES[n] for n in ("#key", "#released", "#rvn", "#owner")},
                        ExpressionAttributeValues={
                            ":released": RELEASED,
                            ":current": held.record_version_number,
                            ":owner": held.owner_name,
                        },
                    )
            except ConditionFailedError:
                stored = get_lock(held.key)
                mine = stored is not None and stored.owner_name == held.owner_name
                if not (mine and stored is not None and stored.is_released):
                    held.lose()
                    return False
            held.lose()  # no longer held: a late heartbeat must not renew it
            return True

    @contextmanager
    def hold(self, key: str) -> Iterator[HeldLock]:
        """Acquire ``key``, heartbeat it while the block runs, release it after (even on error).

        A failed release is logged, not raised: the work is done, and the lease lapses by
        itself (one of our rows is free the moment its expiry passes).
        """
        held = self.acquire(key)
        beat = _Heartbeat(self, held)
        beat.start()
        try:
            yield held
        finally:
            beat.stop()
            try:
                if not self.release(held):
                    logger.warning("lock was no longer ours at release", extra={"key": key, "fence": held.fence})
            except DataError as exc:
                count(LOCK_METRIC, outcome="release_failed")
                logger.warning("lock release failed; it lapses with its lease", extra={"key": key, "error": str(exc)})


def _same_rvn(row: LockRecord, extra: str | None = None) -> tuple[str, dict[str, Any]]:
    """The condition that nobody wrote the row since we read it (its RVN is unchanged)."""
    if not row.record_version_number:
        expression = "attribute_exists(#key) AND attribute_not_exists(#rvn)"
        values: dict[str, Any] = {}
    else:
        expression = "#rvn = :seen"
        values = {":seen": row.record_version_number}
    return (f"{expression} AND {extra}" if extra else expression), values


def _kind(row: LockRecord | None) -> str:
    if row is None:
        return "new"
    if row.is_released:
        return "released"
    return "expired_ours" if our_expiry(row.record_version_number) else "expired_foreign"


class _Heartbeat(threading.Thread):
    """Renews a held lease every ``heartbeat`` until stopped or lost."""

    def __init__(self, locker: Locker, held: HeldLock) -> None:
        super().__init__(name=f"heartbeat-{held.key}", daemon=True)
        self.locker = locker
        self.held = held
        self._stop_event = threading.Event()

    def run(self) -> None:
        period = self.locker.heartbeat_period.total_seconds()
        while not self._stop_event.wait(period):
            try:
                self.locker.heartbeat(self.held)
            except LockLostError:
                logger.warning("lock lost while held", extra={"key": self.held.key, "fence": self.held.fence})
                return
            except DataError as exc:  # transient: the next beat tries again within the lease
                logger.info("heartbeat failed; retrying", extra={"key": self.held.key, "error": str(exc)})

    def stop(self) -> None:
        self._stop_event.set()
        self.join()


def describe(row: LockRecord | None, now: datetime) -> Mapping[str, Any]:
    """A lock row as an operator reads it: holder, fence, and when (if known) it expires."""
    if row is None:
        return {"state": "absent"}
    expiry = our_expiry(row.record_version_number)
    state = "released" if row.is_released else ("expired" if expiry is not None and expiry <= now else "held")
    return {
        "state": state,
        "owner": row.owner_name,
        "lease": go_duration(row.lease_duration),
        "fence": optional_int(row.additional.get(FENCE)),
        "expires_at": expiry.isoformat() if expiry else None,
        "record_version_number": row.record_version_number,
    }


__all__ = ["HeldLock", "LockBusyError", "LockLostError", "Locker", "describe", "our_expiry"]
