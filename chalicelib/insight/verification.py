"""Income verification: who may move a user's verification where, and doing it safely.

The states and their transitions::

    (none) ──submit──▶ pending ──review: approved──▶ approved ──submit──▶ pending (a new cycle)
                           └────review: denied────▶ denied   ──submit──▶ pending (a new cycle)

* **submit** (the user, or a service for them) starts a cycle with a detected income stream:
  status ``pending``, ``is_valid`` false. Submitting while a cycle is pending is illegal, unless
  it is the same stream again (a retried request), which changes nothing.
* **review** (a service only; the API enforces it) decides on one version of the verification,
  the one the reviewer read: it moves that ``pending`` version to ``approved`` (``is_valid``
  true) or ``denied`` (``is_valid`` false) with a note. Reviewing a decided verification is
  illegal; reviewing a version that has since changed (a resubmission, another review) is a
  conflict, so no stream is ever approved unseen. Repeating the review that made the current
  version (same decision, note and reviewer) is a retry and changes nothing.

Every transition appends one note (never rewrites one) and sets ``last_updated``. Each is
planned from the row as read, then written only if the row is still at the version it was
planned from; if another transition got there first, the plan is redone from the new row, so
of two concurrent transitions exactly one applies and the other becomes a replay, an
:class:`IllegalTransitionError` or a :class:`VerificationChangedError` (both HTTP 409).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime

from chalicelib.errors import ConditionFailedError, NotFoundError, ServiceError
from chalicelib.insight.data import income_verifications as rows
from chalicelib.insight.data.income_verifications import (
    IncomeStream,
    IncomeVerification,
    NoteRole,
    VerificationNote,
    VerificationSource,
    VerificationStatus,
)

#: Plans redone after losing a race before giving up (each loss means someone else progressed).
MAX_ATTEMPTS = 5
DECISIONS = (VerificationStatus.APPROVED, VerificationStatus.DENIED)


class IllegalTransitionError(ServiceError):
    """The verification's state forbids this transition: HTTP 409 ``illegal_transition``."""


class VerificationNotFoundError(NotFoundError):
    """The user has no income verification."""


class VerificationChangedError(ConditionFailedError):
    """The verification is no longer at the version the reviewer decided on: HTTP 409 ``conflict``."""


class VerificationContentionError(ServiceError):
    """Other transitions kept winning the race; retry later (HTTP 503)."""

    retryable = True


@dataclass(frozen=True)
class Actor:
    """Who makes a transition: the token's subject and whether it is a user or a service."""

    subject: str
    role: NoteRole


@dataclass(frozen=True)
class Planned:
    """A transition to write: the new state, the note it appends, the row it was planned from."""

    verification: IncomeVerification
    note: VerificationNote
    #: None: there is no row yet.
    current: IncomeVerification | None

    @property
    def expected_version(self) -> int | None:
        """The version the write assumes (None: it creates the row)."""
        return self.current.version if self.current else None


_Planner = Callable[[IncomeVerification | None], Planned | None]


@dataclass(frozen=True)
class Outcome:
    verification: IncomeVerification
    #: False when the request repeated the transition that is already in place.
    changed: bool


# --- the rules (pure) -----------------------------------------------------------------


def plan_submission(
    current: IncomeVerification | None,
    user_id: str,
    stream: IncomeStream,
    source: VerificationSource,
    note: str,
    actor: Actor,
    now: datetime,
) -> Planned | None:
    """The write a submission makes (``None``: it repeats the pending submission)."""
    if current is not None and current.status is VerificationStatus.PENDING:
        if current.stream == stream:
            return None
        raise IllegalTransitionError(
            "an income verification is already pending review; it must be approved or denied"
            " before another stream can be submitted"
        )
    entry = VerificationNote(now, actor.subject, actor.role, VerificationStatus.PENDING, note)
    verification = IncomeVerification(
        user_id=user_id,
        stream=stream,
        status=VerificationStatus.PENDING,
        is_valid=False,
        last_updated=now,
        verification_source=source,
        notes=(*(current.notes if current else ()), entry),
        version=(current.version if current else 0) + 1,
        submitted_at=now,
    )
    return Planned(verification, entry, current)


def plan_review(
    current: IncomeVerification | None,
    user_id: str,
    decision: VerificationStatus,
    note: str,
    source: VerificationSource | None,
    version: int,
    actor: Actor,
    now: datetime,
) -> Planned | None:
    """The write a review of ``version`` makes (``None``: it repeats the review that made the row)."""
    if decision not in DECISIONS:
        raise IllegalTransitionError(f"a review approves or denies; {decision.value!r} is not a decision")
    if current is None:
        raise VerificationNotFoundError(f"user {user_id} has no income verification to review")
    if current.version != version:
        if current.version == version + 1 and _made_by(current, decision, note, actor):
            return None
        raise VerificationChangedError(
            f"the income verification changed since version {version}: it is now version {current.version},"
            f" {current.status.value}; read it again before reviewing"
        )
    if current.status is not VerificationStatus.PENDING:
        raise IllegalTransitionError(
            f"the income verification is already {current.status.value}; only a pending verification can be"
            " reviewed (a new submission starts a new cycle)"
        )
    entry = VerificationNote(now, actor.subject, actor.role, decision, note)
    verification = replace(
        current,
        status=decision,
        is_valid=decision is VerificationStatus.APPROVED,
        last_updated=now,
        verification_source=current.verification_source if source is None else source,
        notes=(*current.notes, entry),
        version=current.version + 1,
    )
    return Planned(verification, entry, current)


def _made_by(current: IncomeVerification, decision: VerificationStatus, note: str, actor: Actor) -> bool:
    """Whether the last transition was this very review."""
    last = current.notes[-1] if current.notes else None
    return last is not None and (current.status, last.status, last.text, last.author) == (
        decision,
        decision,
        note,
        actor.subject,
    )


# --- applying them --------------------------------------------------------------------


def get_verification(user_id: str) -> IncomeVerification:
    found = rows.get_income_verification(user_id)
    if found is None:
        raise VerificationNotFoundError(f"user {user_id} has no income verification")
    return found


def submit(
    user_id: str,
    stream: IncomeStream,
    *,
    actor: Actor,
    now: datetime,
    source: VerificationSource = VerificationSource.NONE,
    note: str = "",
) -> Outcome:
    """Start a new ``pending`` cycle with ``stream`` (see the module docstring for the rules)."""
    return _apply(user_id, lambda current: plan_submission(current, user_id, stream, source, note, actor, now))


def review(
    user_id: str,
    decision: VerificationStatus,
    note: str,
    *,
    version: int,
    actor: Actor,
    now: datetime,
    source: VerificationSource | None = None,
) -> Outcome:
    """Approve or deny ``version`` (which must be pending); ``source`` (if given) names who verified it."""
    return _apply(user_id, lambda current: plan_review(current, user_id, decision, note, source, version, actor, now))


def _apply(user_id: str, plan: _Planner) -> Outcome:
    for _ in range(MAX_ATTEMPTS):
        current = rows.get_income_verification(user_id)
        planned = plan(current)
        if planned is None:
            if current is None:  # a plan only ever repeats a row that exists
                raise VerificationNotFoundError(f"user {user_id} has no income verification")
            return Outcome(current, changed=False)
        try:
            return Outcome(write(planned), changed=True)
        except ConditionFailedError:
            continue  # another transition won: plan again from what it wrote
    raise VerificationContentionError(f"income verification of user {user_id} kept changing; retry")


def write(planned: Planned) -> IncomeVerification:
    """Write one planned transition (:class:`ConditionFailedError` if the row moved meanwhile)."""
    if planned.current is None:
        return rows.create_income_verification(planned.verification)
    return rows.update_income_verification(planned.verification, [planned.note], planned.current)
