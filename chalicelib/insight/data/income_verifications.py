"""``income_verification`` rows (``USERS#<user_id>`` / ``VERIFICATION``): one per user.

The row holds the income stream of the current cycle, its ``verification_status``
(``pending``, ``approved``, ``denied``), ``is_valid``, ``last_updated``, ``notes`` (every
transition appends one; nothing ever rewrites or removes a note) and ``verification_source``
(``ollie``, ``mx`` or empty). ``version`` counts the writes: each write is conditioned on
the version it was planned from, so two concurrent transitions cannot both apply. Which
transitions are legal is decided in :mod:`chalicelib.insight.verification`; this module only
reads and writes rows.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any

from chalicelib.aws.errors import translated
from chalicelib.data.money import from_dynamo as cents_from_dynamo
from chalicelib.data.ttl import iso_timestamp
from chalicelib.insight.data import keys, tables
from chalicelib.insight.data.values import parse_timestamp


class VerificationStatus(StrEnum):
    PENDING = "pending"
    APPROVED = "approved"
    DENIED = "denied"


class VerificationSource(StrEnum):
    """Who verified the income (empty: not said)."""

    NONE = ""
    OLLIE = "ollie"
    MX = "mx"


class PayFrequency(StrEnum):
    """A stream's pay frequency, as Plaid's income products name them."""

    WEEKLY = "WEEKLY"
    BIWEEKLY = "BIWEEKLY"
    SEMI_MONTHLY = "SEMI_MONTHLY"
    MONTHLY = "MONTHLY"
    UNKNOWN = "UNKNOWN"


class NoteRole(StrEnum):
    USER = "user"
    SERVICE = "service"


@dataclass(frozen=True)
class IncomeStream:
    """The detected income stream a user (or a service) asks to have verified."""

    txn_name: str
    txn_id: str
    amount_in_cents: int
    pay_frequency: PayFrequency
    institution_id: str


@dataclass(frozen=True)
class VerificationNote:
    """One transition: who made it, when, the status it led to, and what they wrote."""

    at: datetime
    author: str
    role: NoteRole
    status: VerificationStatus
    text: str


@dataclass(frozen=True)
class IncomeVerification:
    user_id: str
    stream: IncomeStream
    status: VerificationStatus
    is_valid: bool
    last_updated: datetime
    verification_source: VerificationSource
    notes: tuple[VerificationNote, ...]
    #: Writes so far; the next write must be planned from this one.
    version: int
    submitted_at: datetime


def note_item(note: VerificationNote) -> dict[str, Any]:
    return {
        "at": iso_timestamp(note.at),
        "author": note.author,
        "role": note.role.value,
        "status": note.status.value,
        "text": note.text,
    }


def _state(verification: IncomeVerification) -> dict[str, Any]:
    """Every attribute but the keys and the notes."""
    stream = verification.stream
    return {
        "type": keys.INCOME_VERIFICATION,
        "user_id": verification.user_id,
        "txn_name": stream.txn_name,
        "txn_id": stream.txn_id,
        "amount_in_cents": stream.amount_in_cents,
        "pay_frequency": stream.pay_frequency.value,
        "institution_id": stream.institution_id,
        "verification_status": verification.status.value,
        "is_valid": verification.is_valid,
        "last_updated": iso_timestamp(verification.last_updated),
        "verification_source": verification.verification_source.value,
        "version": verification.version,
        "submitted_at": iso_timestamp(verification.submitted_at),
    }


def income_verification_item(verification: IncomeVerification) -> dict[str, Any]:
    """The whole row for ``verification`` (pure)."""
    return {
        **keys.income_verification_key(verification.user_id),
        **_state(verification),
        "notes": [note_item(n) for n in verification.notes],
    }


def _note(row: Mapping[str, Any]) -> VerificationNote:
    return VerificationNote(
        at=parse_timestamp(row["at"]),
        author=str(row["author"]),
        role=NoteRole(str(row["role"])),
        status=VerificationStatus(str(row["status"])),
        text=str(row.get("text", "")),
    )


def from_item(row: Mapping[str, Any]) -> IncomeVerification:
    return IncomeVerification(
        user_id=str(row["user_id"]),
        stream=IncomeStream(
            txn_name=str(row["txn_name"]),
            txn_id=str(row["txn_id"]),
            amount_in_cents=cents_from_dynamo(row["amount_in_cents"]),
            pay_frequency=PayFrequency(str(row["pay_frequency"])),
            institution_id=str(row["institution_id"]),
        ),
        status=VerificationStatus(str(row["verification_status"])),
        is_valid=bool(row["is_valid"]),
        last_updated=parse_timestamp(row["last_updated"]),
        verification_source=VerificationSource(str(row.get("verification_source", ""))),
        notes=tuple(_note(n) for n in row.get("notes", [])),
        version=int(row["version"]),
        submitted_at=parse_timestamp(row["submitted_at"]),
    )


def get_income_verification(user_id: str) -> IncomeVerification | None:
    """The user's verification (strongly consistent GetItem)."""
    with translated():
        row = tables.pave().get_item(Key=keys.income_verification_key(user_id), ConsistentRead=True).get("Item")
    return from_item(row) if row else None


def create_income_verification(verification: IncomeVerification) -> IncomeVerification:
    """Write the user's first verification; :class:`ConditionFailedError` if one exists already."""
    with translated():
        tables.pave().put_item(
            Item=income_verification_item(verification), ConditionExpression="attribute_not_exists(PK)"
        )
    return verification


def update_income_verification(
    verification: IncomeVerification, added_notes: Sequence[VerificationNote], expected_version: int
) -> IncomeVerification:
    """Replace the state and append ``added_notes``, only if the row is still at ``expected_version``.

    Raises :class:`ConditionFailedError` when another write got there first (or the row is gone).
    Returns the row as written.
    """
    state = _state(verification)
    names = {f"#a{i}": name for i, name in enumerate(state)}
    values: dict[str, Any] = {f":a{i}": value for i, value in enumerate(state.values())}
    assignments = [f"#a{i} = :a{i}" for i in range(len(state))]
    assignments.append("#notes = list_append(if_not_exists(#notes, :none), :added)")
    with translated():
        response = tables.pave().update_item(
            Key=keys.income_verification_key(verification.user_id),
            UpdateExpression="SET " + ", ".join(assignments),
            ConditionExpression="#version = :expected",
            ExpressionAttributeNames={**names, "#notes": "notes", "#version": "version"},
            ExpressionAttributeValues={
                **values,
                ":none": [],
                ":added": [note_item(n) for n in added_notes],
                ":expected": expected_version,
            },
            ReturnValues="ALL_NEW",
        )
    return from_item(response["Attributes"])
