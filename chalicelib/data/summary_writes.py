"""A TRANSACTION row's recorded contribution and its summaries move together, exactly once.

Each change of what a row contributes is written in one DynamoDB transaction: the row's
write, conditioned on the row still recording the contribution that was read, and the ADDs
of the difference to the SUMMARY rows it touches. Either both happen or neither does. A
redelivered change finds the row already recording the new contribution, so it has nothing
left to apply; a row changed by someone else since it was read fails its condition, and the
change is planned again from the row as it now is (:attr:`RowChange.reload`).

Changes are packed into as few transactions as fit (100 actions, each row and each summary
row at most once, a summary row's ids moving one way per transaction), so a page of new
transactions costs a few requests, not one per transaction. A change that touches no
summary (a pending row, a closed month, summaries off) is a plain conditional write of its
own: in a transaction it would cost twice the write units. A summary row lists
at most ``SUMMARY_ID_LIMIT`` ids per set: a set grows only on condition that it stays
within the limit; when that condition fails, the row's listed ids are counted and the
change is planned again listing what still fits (the amounts and ``txn_count`` stay exact).
The counts learned are kept for the process (:class:`ListedCounts`), so a warm function does
not meet the same full set again; they are only ever too high (ids leaving are not
subtracted), which lists fewer ids, never more than the limit the condition enforces.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, cast

from chalicelib.aws.clients import dynamodb
from chalicelib.aws.errors import translated
from chalicelib.data.batch import MAX_ATTEMPTS, backoff_delay
from chalicelib.data.contributions import Contribution, SummaryDelta, SummaryKey, deltas, first_open_month
from chalicelib.data.summaries import listed_id_counts, summary_update
from chalicelib.errors import ConditionFailedError, TransactionConditionFailedError, TransactionConflictError
from chalicelib.observability import count
from chalicelib.settings import get_settings

#: DynamoDB's limit of actions in one TransactWriteItems.
MAX_ACTIONS = 100
#: Times a change is planned again (its row changed, a set filled up) before the caller retries.
MAX_ROUNDS = 5
CONDITION_FAILED = "ConditionalCheckFailed"
REPLANNED_METRIC = "txn.summary.replanned"

#: A summary row: its user and its key.
Target = tuple[str, SummaryKey]


@dataclass(frozen=True)
class RowChange:
    """One TRANSACTION row write that moves the row from ``recorded`` to ``desired``.

    ``action`` is the row's TransactWriteItems action (``Put`` or ``Update``), conditioned on
    the row still recording ``recorded``. ``reload`` re-reads the row after that condition
    failed and plans the change again (None: nothing is left to do); without it, a failed
    condition raises :class:`ConditionFailedError`.
    """

    txn_id: str
    user_id: str
    recorded: Contribution | None
    desired: Contribution | None
    action: Mapping[str, Any]
    reload: Callable[[], RowChange | None] | None = field(default=None, compare=False)

    def order(self) -> tuple[str, str, str, str]:
        """Changes of the same month, account and category pack together."""
        c = self.desired or self.recorded
        return (c.month, c.acct_id, c.category_id, self.txn_id) if c else ("", "", "", self.txn_id)


@dataclass
class _Group:
    """Changes that go in one transaction, and the summary deltas they add up to."""

    changes: list[RowChange] = field(default_factory=list)
    deltas: dict[Target, SummaryDelta] = field(default_factory=dict)

    def fits(self, moves: Mapping[Target, SummaryDelta]) -> bool:
        new_targets = sum(1 for target in moves if target not in self.deltas)
        if len(self.changes) + 1 + len(self.deltas) + new_targets > MAX_ACTIONS:
            return False
        for target, delta in moves.items():
            have = self.deltas.get(target)
            if have is not None and ((have.entering and delta.leaving) or (have.leaving and delta.entering)):
                return False
        return True

    def add(self, change: RowChange, moves: Mapping[Target, SummaryDelta]) -> None:
        self.changes.append(change)
        for target, delta in moves.items():
            self.deltas.setdefault(target, SummaryDelta()).merge(delta)


class ListedCounts:
    """How many ids summary rows list in each set, as last learned (bounded, per process)."""

    def __init__(self, capacity: int = 10_000) -> None:
        self.capacity = capacity
        self._counts: OrderedDict[Target, tuple[int, int]] = OrderedDict()

    def get(self, target: Target) -> tuple[int | None, int | None]:
        return self._counts.get(target, (None, None))

    def learn(self, target: Target) -> None:
        self._put(target, listed_id_counts(*target))

    def listed(self, target: Target, added: int, removed: int) -> None:
        """Ids just listed by a write that succeeded (only rows whose counts are known)."""
        if target in self._counts:
            known_added, known_removed = self._counts[target]
            self._put(target, (known_added + added, known_removed + removed))

    def _put(self, target: Target, counts: tuple[int, int]) -> None:
        self._counts[target] = counts
        self._counts.move_to_end(target)
        while len(self._counts) > self.capacity:
            self._counts.popitem(last=False)


_listed_counts = ListedCounts()


@dataclass
class _Outcome:
    applied: bool
    stale: list[RowChange] = field(default_factory=list)
    full: list[Target] = field(default_factory=list)


def apply(changes: Iterable[RowChange], now: datetime) -> int:
    """Apply every change exactly once; return how many row writes were applied.

    A row that changed meanwhile is reloaded and planned again; one that keeps changing
    for :data:`MAX_ROUNDS` rounds raises :class:`ConditionFailedError` (the caller retries).
    """
    pending = list({c.txn_id: c for c in changes}.values())
    first_open = first_open_month(now)
    id_limit = get_settings().summary_id_limit
    applied = 0
    for _ in range(MAX_ROUNDS):
        if not pending:
            return applied
        again: list[RowChange] = []
        for group in _pack(pending, first_open):
            outcome = _execute(group, now, id_limit, _listed_counts)
            if outcome.applied:
                applied += len(group.changes)
                continue
            count(REPLANNED_METRIC, stale=str(bool(outcome.stale)).lower(), full=str(bool(outcome.full)).lower())
            for target in outcome.full:
                _listed_counts.learn(target)
            again += _replanned(group.changes, outcome.stale)
        pending = again
    if pending:
        raise ConditionFailedError(f"{len(pending)} transaction rows kept changing while their summaries moved")
    return applied


def _replanned(changes: Sequence[RowChange], stale: Sequence[RowChange]) -> list[RowChange]:
    stale_ids = {id(change) for change in stale}
    again: list[RowChange] = []
    for change in changes:
        if id(change) not in stale_ids:
            again.append(change)  # cancelled with the others, never applied: as it was
            continue
        if change.reload is None:
            raise ConditionFailedError(f"transaction {change.txn_id} changed while being written")
        reloaded = change.reload()
        if reloaded is not None:
            again.append(reloaded)
    return again


def _moves(change: RowChange, first_open: str) -> dict[Target, SummaryDelta]:
    return {
        (change.user_id, key): delta
        for key, delta in deltas(change.txn_id, change.recorded, change.desired, first_open).items()
    }


def _pack(changes: Sequence[RowChange], first_open: str) -> list[_Group]:
    """Greedy packing in month, account and category order (neighbours share summary rows)."""
    groups: list[_Group] = []
    current = _Group()
    for change in sorted(changes, key=RowChange.order):
        moves = _moves(change, first_open)
        if not moves:  # a plain conditional write: a transaction would cost twice the write units
            groups.append(_Group([change]))
            continue
        if current.changes and not current.fits(moves):
            groups.append(current)
            current = _Group()
        current.add(change, moves)
    if current.changes:
        groups.append(current)
    return groups


def _listed(ids: set[str], already: int | None, id_limit: int) -> list[str]:
    """The ids a set can still take: all up to the limit when its size is not known yet."""
    room = id_limit - (already or 0)
    return sorted(ids)[: max(room, 0)]


def _summary_actions(
    group: _Group, now: datetime, id_limit: int, counts: ListedCounts
) -> tuple[list[dict[str, Any]], dict[Target, tuple[int, int]]]:
    """The summary updates of a group, and how many ids each lists into its two sets."""
    actions = []
    listing: dict[Target, tuple[int, int]] = {}
    for target, delta in group.deltas.items():
        added, removed = counts.get(target)
        listed_in = _listed(delta.entering, added, id_limit)
        listed_out = _listed(delta.leaving, removed, id_limit)
        actions.append(
            summary_update(*target, delta, now, listed_in=listed_in, listed_out=listed_out, id_limit=id_limit)
        )
        listing[target] = (len(listed_in), len(listed_out))
    return actions, listing


def _execute(group: _Group, now: datetime, id_limit: int, counts: ListedCounts) -> _Outcome:
    summary_actions, listing = _summary_actions(group, now, id_limit, counts)
    try:
        _send([dict(c.action) for c in group.changes] + summary_actions)
    except TransactionConditionFailedError as exc:
        rows = len(group.changes)
        targets = list(group.deltas)
        failed = [i for i, reason in enumerate(exc.reasons) if reason == CONDITION_FAILED]
        return _Outcome(
            False,
            stale=[group.changes[i] for i in failed if i < rows],
            full=[targets[i - rows] for i in failed if i >= rows],
        )
    except ConditionFailedError:  # the single row write of a group without summaries
        return _Outcome(False, stale=list(group.changes))
    for target, (added, removed) in listing.items():
        counts.listed(target, added, removed)
    return _Outcome(True)


def _send(actions: Sequence[Mapping[str, Any]]) -> None:
    """One transaction (or a plain conditional write for a lone row); conflicts are retried."""
    client = dynamodb().meta.client
    for attempt in range(MAX_ATTEMPTS):
        if attempt:
            time.sleep(backoff_delay(attempt))
        try:
            with translated():
                if len(actions) > 1:
                    client.transact_write_items(TransactItems=cast(Any, list(actions)))
                elif "Put" in actions[0]:
                    client.put_item(**actions[0]["Put"])
                else:
                    client.update_item(**actions[0]["Update"])
            return
        except TransactionConflictError:
            if attempt == MAX_ATTEMPTS - 1:
                raise
