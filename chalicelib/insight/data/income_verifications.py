"""``income_verification`` rows (``USERS#<user_id>`` / ``VERIFICATION``): one per user.

The row holds the income stream of the current cycle, its ``verification_status``
(``pending``, ``approved``, ``denied``), ``is_valid``, ``last_updated``, ``notes`` (every
transition appends one; nothing ever rewrites or removes a note) and ``verification_source``
(``ollie``, ``mx`` or empty). ``version`` counts the writes: each write is conditioned on
the version it was planned from, so two concurrent transitions cannot both apply. Which
transitions are legal is decided in :mod:`chalicelib.insight.verification`; this module only
reads and writes rows.

**Rows of the previous system** carry only the stream, ``verification_status``, ``is_valid``,
``last_updated``, ``notes`` (plain strings) and ``verification_source``; the user comes from
the key. Such a row reads as version 1 (one write, by that system), ``submitted_at`` as its
``last_updated``, each string note as a note with only its text, and what is missing as empty
(text), 0 (amount), ``UNKNOWN`` (frequency), ``pending`` (status) or unknown (times). A write
to it is conditioned on its version as stored (absent included), so it is replaced like any
row. An attribute that cannot be read takes the same default, and the row is read as
conservatively as that allows: a status that cannot be read is ``pending`` and not valid, so a
reviewer decides again; notes stored as something other than a list are rewritten whole (as
read) by the next transition instead of appended to. Such a row is logged and counted
(:mod:`chalicelib.data.tolerant`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Any

from chalicelib.aws.errors import translated
from chalicelib.data.tolerant import Reading, RowReader, choice_of, parse_timestamp_text
from chalicelib.data.ttl import iso_timestamp
from chalicelib.insight.data import keys, tables
from chalicelib.insight.data.values import from_dynamo


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
    """One transition: who made it, when, the status it led to, and what they wrote.

    A note the previous system stored as plain text knows only its text (the rest None).
    """

    at: datetime | None
    author: str | None
    role: NoteRole | None
    status: VerificationStatus | None
    text: str


@dataclass(frozen=True)
class IncomeVerification:
    user_id: str
    stream: IncomeStream
    status: VerificationStatus
    is_valid: bool
    #: None only for a row of the previous system that did not record it.
    last_updated: datetime | None
    verification_source: VerificationSource
    notes: tuple[VerificationNote, ...]
    #: Writes so far; the next write must be planned from this one.
    version: int
    submitted_at: datetime | None
    #: ``version`` exactly as stored (None: not stored), which the next write is conditioned on.
    stored_version: Any = field(default=None, compare=False, repr=False)
    #: Whether the stored ``notes`` can be appended to (a list, or none yet).
    notes_appendable: bool = field(default=True, compare=False, repr=False)


def note_item(note: VerificationNote) -> dict[str, Any]:
    return {
        "at": iso_timestamp(note.at) if note.at else None,
        "author": note.author,
        "role": note.role.value if note.role else None,
        "status": note.status.value if note.status else None,
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
        "last_updated": _stamp(verification.last_updated),
        "verification_source": verification.verification_source.value,
        "version": verification.version,
        "submitted_at": _stamp(verification.submitted_at),
    }


def _stamp(moment: datetime | None) -> str | None:
    return iso_timestamp(moment) if moment else None


def income_verification_item(verification: IncomeVerification) -> dict[str, Any]:
    """The whole row for ``verification`` (pure)."""
    return {
        **keys.income_verification_key(verification.user_id),
        **_state(verification),
        "notes": [note_item(n) for n in verification.notes],
    }


def _note(stored: object, reader: RowReader) -> VerificationNote:
    """One stored note: a map as this service writes it, or the previous system's plain text."""
    if isinstance(stored, str):
        return VerificationNote(None, None, None, None, stored)
    if not isinstance(stored, Mapping):
        reader.problem("notes", "a note is neither text nor a map")
        return VerificationNote(None, None, None, None, str(from_dynamo(stored)))
    author, text = stored.get("author"), stored.get("text")
    return VerificationNote(
        at=parse_timestamp_text(stored.get("at")),
        author=author if isinstance(author, str) else None,
        role=choice_of(NoteRole, stored.get("role")),
        status=choice_of(VerificationStatus, stored.get("status")),
        text=text if isinstance(text, str) else "",
    )


def _stored_notes(stored: object, reader: RowReader) -> tuple[list[Any], bool]:
    """The stored notes as a list, and whether a transition may append to them: a list (or
    none yet) as stored; anything else, a problem, is one note, rewritten whole next time."""
    if stored is None or isinstance(stored, list):
        return list(stored or []), True
    reader.problem("notes", "not a list")
    return (sorted(stored, key=repr) if isinstance(stored, (set, frozenset)) else [stored]), False


def from_item(row: Mapping[str, Any]) -> IncomeVerification:
    """The stored verification, read tolerantly (see the module docstring)."""
    reader = RowReader(keys.INCOME_VERIFICATION, row)
    status = reader.choice("verification_status", VerificationStatus, None)
    last_updated = reader.timestamp("last_updated", None)
    notes, notes_appendable = _stored_notes(row.get("notes"), reader)
    verification = IncomeVerification(
        user_id=reader.text("user_id", "") or reader.key_part("USERS") or "",
        stream=IncomeStream(
            txn_name=reader.text("txn_name", ""),
            txn_id=reader.text("txn_id", ""),
            amount_in_cents=reader.whole("amount_in_cents", 0),
            pay_frequency=reader.choice("pay_frequency", PayFrequency, PayFrequency.UNKNOWN),
            institution_id=reader.text("institution_id", ""),
        ),
        status=status or VerificationStatus.PENDING,
        is_valid=bool(reader.flag("is_valid", False)) and status is VerificationStatus.APPROVED,
        last_updated=last_updated,
        verification_source=reader.choice("verification_source", VerificationSource, VerificationSource.NONE),
        notes=tuple(_note(n, reader) for n in notes),
        version=reader.whole("version", 1),
        submitted_at=reader.timestamp("submitted_at", None) or last_updated,
        stored_version=row.get("version"),
        notes_appendable=notes_appendable,
    )
    reader.report(Reading.CONSERVATIVE)
    return verification


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
    verification: IncomeVerification, added_notes: Sequence[VerificationNote], current: IncomeVerification
) -> IncomeVerification:
    """Replace the state and append ``added_notes``, only if the row is still ``current`` (its
    version as stored; a row without one, of the previous system, is matched by that).

    Raises :class:`ConditionFailedError` when another write got there first (or the row is gone).
    Returns the row as written.
    """
    state = _state(verification)
    names = {f"#a{i}": name for i, name in enumerate(state)}
    values: dict[str, Any] = {f":a{i}": value for i, value in enumerate(state.values())}
    assignments = [f"#a{i} = :a{i}" for i in range(len(state))]
    if current.notes_appendable:
        assignments.append("#notes = list_append(if_not_exists(#notes, :none), :added)")
        values.update({":none": [], ":added": [note_item(n) for n in added_notes]})
    else:  # not a list: rewritten whole, as read
        assignments.append("#notes = :all")
        values[":all"] = [note_item(n) for n in (*current.notes, *added_notes)]
    if current.stored_version is None:
        condition = "attribute_exists(PK) AND attribute_not_exists(#version)"
    else:
        condition, values[":expected"] = "#version = :expected", current.stored_version
    with translated():
        response = tables.pave().update_item(
            Key=keys.income_verification_key(verification.user_id),
            UpdateExpression="SET " + ", ".join(assignments),
            ConditionExpression=condition,
            ExpressionAttributeNames={**names, "#notes": "notes", "#version": "version"},
            ExpressionAttributeValues=values,
            ReturnValues="ALL_NEW",
        )
    return from_item(response["Attributes"])
