"""Reading a stored row attribute by attribute, so that no row can stop a user.

The service took over tables another system wrote, with fewer attributes and other spellings
than its own rows carry. An entity's reader (its module's ``from_item``) reads through a
:class:`RowReader`:

* an attribute that is **missing** takes the default the entity documents
  (``docs/access-patterns.md``), silently: rows of the previous system lack many;
* an attribute that is **present but cannot be read** (another type, text that is no
  timestamp, a value outside its set) takes that default too, and is recorded as a problem.

A row with a problem is *unreadable*. What the reader then answers is the entity's decision:
a cache reads as a miss (computed again and overwritten), a state row gets its most
conservative reading, a row of a listing may be left out. In every case :func:`report` logs
the row's key and the names of the attributes at fault (never their values) and counts
``data.row.unreadable``; nothing deletes the row.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from datetime import UTC, date, datetime
from decimal import Decimal
from enum import Enum, StrEnum
from typing import TYPE_CHECKING, Any, TypeVar

from chalicelib.aws.errors import translated
from chalicelib.data.keys import key_part
from chalicelib.errors import ConditionFailedError, DataError
from chalicelib.observability import count, logger

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.service_resource import Table

#: Counted once per unreadable row read: the total (which the alarm watches) and, as a finer
#: series, per ``entity`` and ``reading``.
UNREADABLE_METRIC = "data.row.unreadable"

#: What an instant a row does not record reads as, where a reader needs one: the Unix epoch,
#: earlier than every cooldown and cache. Go's zero time (year 1) means "not recorded" too.
LONG_AGO = datetime(1970, 1, 1, tzinfo=UTC)

#: The instants this service writes (``chalicelib.data.ttl.iso_timestamp``): fixed width, so
#: text order is time order.
_SERVICE_TIMESTAMP = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$")

T = TypeVar("T")
E = TypeVar("E", bound=Enum)


class Reading(StrEnum):
    """What a reader made of an unreadable row."""

    #: A cache: served as absent; the next computation overwrites it.
    MISS = "miss"
    #: A state row: read in the way that loses nothing (the entity documents which).
    CONSERVATIVE = "conservative"
    #: A row of a listing, left out of it.
    LEFT_OUT = "left_out"


class UnreadableRowError(DataError):
    """A stored row that cannot be read as its entity (raised by cache readers)."""

    def __init__(self, entity: str, key: Mapping[str, str], problems: list[str]) -> None:
        super().__init__(f"unreadable {entity} row {dict(key)}: {'; '.join(problems)}")
        self.entity = entity
        self.key = dict(key)
        self.problems = list(problems)


def report(entity: str, key: Mapping[str, str], problems: list[str], reading: Reading) -> None:
    """Log the row's key and what is wrong with it, and count it (see the module docstring)."""
    logger.warning(
        "unreadable row",
        extra={"entity": entity, "key": dict(key), "problems": problems, "reading": reading.value},
    )
    count(UNREADABLE_METRIC, detail={"entity": entity, "reading": reading.value})


def report_error(error: UnreadableRowError, reading: Reading) -> None:
    report(error.entity, error.key, error.problems, reading)


def read_or_none(parse: Callable[[Mapping[str, Any]], T], row: Mapping[str, Any] | None, reading: Reading) -> T | None:
    """``parse(row)``; None when there is no row, and when it cannot be read (reported as ``reading``)."""
    if not row:
        return None
    try:
        return parse(row)
    except UnreadableRowError as exc:
        report_error(exc, reading)
        return None


def readable_by(parse: Callable[[Mapping[str, Any]], object], reading: Reading) -> Callable[[Mapping[str, Any]], bool]:
    """A filter over stored rows: True for a row ``parse`` reads, False (reported) for an unreadable one."""
    return lambda row: read_or_none(parse, row, reading) is not None


def parse_timestamp_text(value: object) -> datetime | None:
    """RFC 3339 text (any number of fraction digits, ``Z`` or an offset) as aware UTC; None if not."""
    if not isinstance(value, str):
        return None
    try:
        moment = datetime.fromisoformat(value.strip())
    except ValueError:
        return None
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def is_service_timestamp(value: object) -> bool:
    """Whether ``value`` is an instant as this service writes them (it compares in time order)."""
    return (
        isinstance(value, str)
        and _SERVICE_TIMESTAMP.match(value) is not None
        and parse_timestamp_text(value) is not None
    )


def parse_day_text(value: object) -> date | None:
    """``YYYY-MM-DD``, or the day an RFC 3339 timestamp is written on (Go stores days as midnight)."""
    if not isinstance(value, str):
        return None
    text = value.strip()
    try:
        return date.fromisoformat(text[:10]) if len(text) == 10 or text[10:11] in ("T", "t", " ") else None
    except ValueError:
        return None


def _whole(value: object) -> int | None:
    if isinstance(value, bool) or not isinstance(value, (int, Decimal)):
        return None
    if isinstance(value, Decimal) and (not value.is_finite() or value != value.to_integral_value()):
        return None
    return int(value)


class RowReader:
    """One stored row of ``entity``, read attribute by attribute (see the module docstring)."""

    def __init__(self, entity: str, row: Mapping[str, Any]) -> None:
        self.entity = entity
        self.row = row
        self.problems: list[str] = []

    @property
    def key(self) -> dict[str, str]:
        """The row's primary key (the only part of it a report names)."""
        return {name: str(self.row[name]) for name in ("PK", "SK") if name in self.row}

    @property
    def readable(self) -> bool:
        return not self.problems

    def has(self, name: str) -> bool:
        """Whether the row stores ``name`` (a stored null counts as missing)."""
        return self.row.get(name) is not None

    def problem(self, name: str, reason: str) -> None:
        self.problems.append(f"{name}: {reason}")

    def key_part(self, label: str, key: str = "PK") -> str | None:
        """The segment after ``label`` in key attribute ``key`` (``USERS#<user>`` -> the user)."""
        return key_part(self.row.get(key), label)

    def _read(self, name: str, default: T, parse: Any, reason: str) -> Any:
        value = self.row.get(name)
        if value is None:
            return default
        parsed = parse(value)
        if parsed is None:
            self.problem(name, reason)
            return default
        return parsed

    def text(self, name: str, default: T) -> str | T:
        result: str | T = self._read(name, default, lambda v: v if isinstance(v, str) else None, "not text")
        return result

    def whole(self, name: str, default: T) -> int | T:
        """A whole number (cents, a count, a version)."""
        result: int | T = self._read(name, default, _whole, "not a whole number")
        return result

    def flag(self, name: str, default: T) -> bool | T:
        result: bool | T = self._read(name, default, lambda v: v if isinstance(v, bool) else None, "not a boolean")
        return result

    def timestamp(self, name: str, default: T) -> datetime | T:
        """An RFC 3339 instant; Go's zero time reads as missing."""
        result: datetime | T = self._read(name, default, parse_timestamp_text, "not an RFC 3339 timestamp")
        return default if isinstance(result, datetime) and result < LONG_AGO else result

    def day(self, name: str, default: T) -> date | T:
        result: date | T = self._read(name, default, parse_day_text, "not a day")
        return result

    def choice(self, name: str, kind: type[E], default: T) -> E | T:
        """One of ``kind``'s values, in any letter case."""
        result: E | T = self._read(name, default, lambda v: choice_of(kind, v), f"not one of {kind.__name__}")
        return result

    def mapping(self, name: str) -> dict[str, Any]:
        """A map attribute as stored (``Decimal`` kept); ``{}`` when missing or not a map."""
        result: dict[str, Any] = self._read(
            name, {}, lambda v: dict(v) if isinstance(v, Mapping) else None, "not a map"
        )
        return result

    def sequence(self, name: str) -> list[Any]:
        """A list attribute as stored; a set reads as its sorted members; ``[]`` when missing or neither."""
        result: list[Any] = self._read(name, [], _as_list, "not a list")
        return result

    def unreadable(self) -> UnreadableRowError:
        return UnreadableRowError(self.entity, self.key, self.problems)

    def require_readable(self) -> None:
        """Raise :class:`UnreadableRowError` if any attribute could not be read (cache readers)."""
        if self.problems:
            raise self.unreadable()

    def report(self, reading: Reading) -> None:
        """Report the row (:func:`report`) if it had problems."""
        if self.problems:
            report(self.entity, self.key, self.problems, reading)


def choice_of(kind: type[E], value: object) -> E | None:
    """The member of ``kind`` whose value is ``value`` in any letter case; None if none is."""
    if not isinstance(value, str):
        return None
    wanted = value.strip().casefold()
    return next((member for member in kind if str(member.value).casefold() == wanted), None)


def _as_list(value: object) -> list[Any] | None:
    if isinstance(value, (list, tuple)):
        return list(value)
    if isinstance(value, (set, frozenset)):
        return sorted(value, key=repr)
    return None


def put_unless_newer(table: Table, item: Mapping[str, Any], order: str, readable: Callable[[object], bool]) -> bool:
    """Put ``item`` unless the stored row's ``order`` attribute (an instant or a day, as text)
    is later than ``item``'s: the newest computation wins. ``False`` when a later row is kept.

    A stored row whose ``order`` is missing or not text is replaced. One whose text is not
    ``readable`` (no instant or day in the service's format) might refuse every write compared
    with it, so it is replaced too, by a second put conditioned on that text being unchanged
    (and reported).
    """
    names = {"#order": order}
    try:
        with translated():
            table.put_item(
                Item=dict(item),
                ConditionExpression="attribute_not_exists(PK) OR NOT attribute_type(#order, :text) OR #order <= :order",
                ExpressionAttributeNames=names,
                ExpressionAttributeValues={":text": "S", ":order": item[order]},
            )
    except ConditionFailedError:
        key = {"PK": item["PK"], "SK": item["SK"]}
        with translated():
            stored = table.get_item(
                Key=key, ConsistentRead=True, ProjectionExpression="#order", ExpressionAttributeNames=names
            )
        seen = stored.get("Item", {}).get(order)
        if seen is None or readable(seen):
            return False  # a later row (or one written meanwhile: the next computation decides)
        report(str(item.get("type", "")), key, [f"{order}: not comparable with the service's"], Reading.MISS)
        try:
            with translated():
                table.put_item(
                    Item=dict(item),
                    ConditionExpression="#order = :seen",
                    ExpressionAttributeNames=names,
                    ExpressionAttributeValues={":seen": seen},
                )
        except ConditionFailedError:
            return False
    return True
