"""Income verification: legal and illegal transitions, notes appended, concurrent transitions."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest

from chalicelib.errors import ConditionFailedError
from chalicelib.insight import verification
from chalicelib.insight.data import income_verifications as rows
from chalicelib.insight.data import keys, tables
from chalicelib.insight.data.income_verifications import (
    IncomeStream,
    NoteRole,
    PayFrequency,
    VerificationSource,
    VerificationStatus,
)
from chalicelib.insight.verification import (
    Actor,
    IllegalTransitionError,
    VerificationChangedError,
    VerificationNotFoundError,
    plan_review,
    plan_submission,
    review,
    submit,
)
from tests.insight.data.conftest import NOW

APPROVED, DENIED, PENDING = VerificationStatus.APPROVED, VerificationStatus.DENIED, VerificationStatus.PENDING
REVIEWER = Actor("svc-reviewer@clients", NoteRole.SERVICE)
OTHER_REVIEWER = Actor("svc-other@clients", NoteRole.SERVICE)


def a_stream(**overrides: object) -> IncomeStream:
    fields: dict[str, object] = {
        "txn_name": "ACME PAYROLL DIR DEP",
        "txn_id": "txn-1",
        "amount_in_cents": 125_000,
        "pay_frequency": PayFrequency.BIWEEKLY,
        "institution_id": "ins_1",
    }
    fields.update(overrides)
    return IncomeStream(**fields)  # type: ignore[arg-type]


def user(user_id: str) -> Actor:
    return Actor(f"auth0|{user_id}", NoteRole.USER)


# --- the rules, pure ------------------------------------------------------------------


def test_rules_without_a_row() -> None:
    planned = plan_submission(None, "u1", a_stream(), VerificationSource.NONE, "", user("u1"), NOW)
    assert planned is not None and planned.expected_version is None
    assert (planned.verification.status, planned.verification.is_valid, planned.verification.version) == (
        PENDING,
        False,
        1,
    )
    with pytest.raises(VerificationNotFoundError):
        plan_review(None, "u1", APPROVED, "ok", None, 1, REVIEWER, NOW)


def test_a_review_must_decide() -> None:
    planned = plan_submission(None, "u1", a_stream(), VerificationSource.NONE, "", user("u1"), NOW)
    assert planned is not None
    with pytest.raises(IllegalTransitionError, match="approves or denies"):
        plan_review(planned.verification, "u1", PENDING, "hm", None, 1, REVIEWER, NOW)


# --- transitions against DynamoDB -----------------------------------------------------


@pytest.mark.integration
def test_submit_then_approve(aws_endpoint: str, user_id: str) -> None:
    # GIVEN the user submits a detected stream
    submitted = submit(user_id, a_stream(), actor=user(user_id), now=NOW, note="my paycheck")
    assert submitted.changed
    v1 = submitted.verification
    assert (v1.status, v1.is_valid, v1.version, v1.verification_source) == (PENDING, False, 1, VerificationSource.NONE)
    # WHEN a service approves that version
    later = NOW + timedelta(hours=2)
    approved = review(
        user_id, APPROVED, "matches payroll", version=1, actor=REVIEWER, now=later, source=VerificationSource.MX
    ).verification
    # THEN approved, valid, updated, with both notes in order
    assert (approved.status, approved.is_valid, approved.version, approved.last_updated) == (APPROVED, True, 2, later)
    assert approved.verification_source is VerificationSource.MX
    assert [(n.status, n.role, n.text) for n in approved.notes] == [
        (PENDING, NoteRole.USER, "my paycheck"),
        (APPROVED, NoteRole.SERVICE, "matches payroll"),
    ]
    assert verification.get_verification(user_id) == approved


@pytest.mark.integration
def test_deny_then_a_new_submission_starts_a_new_cycle_on_the_same_row(aws_endpoint: str, user_id: str) -> None:
    submit(user_id, a_stream(), actor=user(user_id), now=NOW)
    review(user_id, DENIED, "not payroll", version=1, actor=REVIEWER, now=NOW + timedelta(hours=1))
    # WHEN the user submits another stream
    second = a_stream(txn_id="txn-2", txn_name="GLOBEX PAYROLL", amount_in_cents=98_000)
    cycle = submit(user_id, second, actor=user(user_id), now=NOW + timedelta(days=1)).verification
    # THEN pending again, invalid, the new stream, and no note lost
    assert (cycle.status, cycle.is_valid, cycle.stream, cycle.version) == (PENDING, False, second, 3)
    assert [n.status for n in cycle.notes] == [PENDING, DENIED, PENDING]
    assert cycle.submitted_at == NOW + timedelta(days=1)
    # AND it is still one row
    row = tables.pave().get_item(Key=keys.income_verification_key(user_id), ConsistentRead=True)["Item"]
    assert (row["type"], row["verification_status"], len(row["notes"])) == ("INCOME_VERIFICATION", "pending", 3)
    # AND the new cycle can be approved
    assert review(user_id, APPROVED, "ok", version=3, actor=REVIEWER, now=NOW + timedelta(days=2)).changed


@pytest.mark.integration
def test_illegal_transitions_are_refused_and_change_nothing(aws_endpoint: str, user_id: str) -> None:
    # a review of nothing
    with pytest.raises(VerificationNotFoundError):
        review(user_id, APPROVED, "x", version=1, actor=REVIEWER, now=NOW)
    submit(user_id, a_stream(), actor=user(user_id), now=NOW)
    # another stream while one is pending
    with pytest.raises(IllegalTransitionError, match="already pending"):
        submit(user_id, a_stream(txn_id="txn-9"), actor=user(user_id), now=NOW)
    review(user_id, APPROVED, "ok", version=1, actor=REVIEWER, now=NOW)
    before = verification.get_verification(user_id)
    # a second decision on the decided version
    with pytest.raises(IllegalTransitionError, match="already approved"):
        review(user_id, DENIED, "changed my mind", version=2, actor=REVIEWER, now=NOW)
    # a decision on a version that is gone
    with pytest.raises(VerificationChangedError, match="since version 1"):
        review(user_id, DENIED, "late", version=1, actor=OTHER_REVIEWER, now=NOW)
    assert verification.get_verification(user_id) == before


@pytest.mark.integration
def test_retried_requests_change_nothing(aws_endpoint: str, user_id: str) -> None:
    first = submit(user_id, a_stream(), actor=user(user_id), now=NOW)
    again = submit(user_id, a_stream(), actor=user(user_id), now=NOW + timedelta(seconds=5))
    assert (first.changed, again.changed) == (True, False)
    assert again.verification == first.verification
    decided = review(user_id, APPROVED, "ok", version=1, actor=REVIEWER, now=NOW)
    retried = review(user_id, APPROVED, "ok", version=1, actor=REVIEWER, now=NOW + timedelta(seconds=5))
    assert (decided.changed, retried.changed) == (True, False)
    assert len(retried.verification.notes) == 2


@pytest.mark.integration
def test_the_loser_of_a_race_is_replanned_from_the_winners_row(aws_endpoint: str, user_id: str) -> None:
    # GIVEN two reviewers who both read version 1 (pending)
    submit(user_id, a_stream(), actor=user(user_id), now=NOW)
    read = rows.get_income_verification(user_id)
    approve = plan_review(read, user_id, APPROVED, "yes", None, 1, REVIEWER, NOW)
    deny = plan_review(read, user_id, DENIED, "no", None, 1, OTHER_REVIEWER, NOW)
    assert approve is not None and deny is not None
    # WHEN the approval is written first
    verification.write(approve)
    # THEN the denial's write is refused by its condition (the row moved on) ...
    with pytest.raises(ConditionFailedError):
        verification.write(deny)
    # ... and replanned from the winner's row it is a conflict, never a second decision
    with pytest.raises(VerificationChangedError):
        review(user_id, DENIED, "no", version=1, actor=OTHER_REVIEWER, now=NOW)
    final = verification.get_verification(user_id)
    assert (final.status, [n.text for n in final.notes]) == (APPROVED, ["", "yes"])


@pytest.mark.integration
def test_two_submissions_racing_from_a_decided_row_start_one_cycle(aws_endpoint: str, user_id: str) -> None:
    submit(user_id, a_stream(), actor=user(user_id), now=NOW)
    review(user_id, DENIED, "no", version=1, actor=REVIEWER, now=NOW)
    read = rows.get_income_verification(user_id)
    mine = plan_submission(read, user_id, a_stream(txn_id="t-a"), VerificationSource.NONE, "", user(user_id), NOW)
    theirs = plan_submission(read, user_id, a_stream(txn_id="t-b"), VerificationSource.MX, "", REVIEWER, NOW)
    assert mine is not None and theirs is not None
    verification.write(mine)
    with pytest.raises(ConditionFailedError):
        verification.write(theirs)
    with pytest.raises(IllegalTransitionError):
        submit(user_id, a_stream(txn_id="t-b"), actor=REVIEWER, now=NOW, source=VerificationSource.MX)
    assert verification.get_verification(user_id).stream.txn_id == "t-a"


@pytest.mark.integration
def test_a_review_never_lands_on_a_cycle_its_reviewer_did_not_see(aws_endpoint: str, user_id: str) -> None:
    # GIVEN reviewer A reads version 1 (pending) and plans an approval
    submit(user_id, a_stream(), actor=user(user_id), now=NOW)
    read = rows.get_income_verification(user_id)
    slow = plan_review(read, user_id, APPROVED, "looks right", None, 1, REVIEWER, NOW)
    assert slow is not None
    # WHEN meanwhile B denies it and the user submits another stream (a new pending cycle)
    review(user_id, DENIED, "no", version=1, actor=OTHER_REVIEWER, now=NOW)
    submit(user_id, a_stream(txn_id="txn-new"), actor=user(user_id), now=NOW + timedelta(minutes=1))
    # THEN A's write is refused, and A's retry is a conflict: the new stream stays pending
    with pytest.raises(ConditionFailedError):
        verification.write(slow)
    with pytest.raises(VerificationChangedError, match="now version 3, pending"):
        review(user_id, APPROVED, "looks right", version=1, actor=REVIEWER, now=NOW)
    assert verification.get_verification(user_id).status is PENDING


# A real race: the session's moto serves DynamoDB requests one at a time (ops/moto_server.py),
# so conditional writes are atomic as in AWS. The interleavings above prove the rule step by step.
@pytest.mark.integration
def test_concurrent_reviews_decide_once(aws_endpoint: str, user_id: str) -> None:
    # GIVEN a pending verification and six reviewers deciding at the same moment
    submit(user_id, a_stream(), actor=user(user_id), now=NOW)
    start = threading.Barrier(6)
    outcomes: list[str] = []

    def decide(n: int) -> None:
        start.wait()
        try:
            review(
                user_id,
                APPROVED if n % 2 else DENIED,
                f"reviewer {n}",
                version=1,
                actor=Actor(f"svc-{n}", NoteRole.SERVICE),
                now=NOW,
            )
            outcomes.append("decided")
        except (VerificationChangedError, IllegalTransitionError):
            outcomes.append("conflict")

    threads = [threading.Thread(target=decide, args=(n,)) for n in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    # THEN exactly one decision was recorded and every other reviewer was told so
    assert sorted(outcomes) == ["conflict"] * 5 + ["decided"]
    final = verification.get_verification(user_id)
    assert (final.version, len(final.notes)) == (2, 2)
