"""Which of a synthetic user's transactions are income, as the generator that made them knows.

The payday generators record the truth about paydays, not a label per transaction. Each of
them, though, posts every income credit through one function: the tuning generator (A) a
paycheck or benefit deposit through ``users._credit`` (bonuses and final paychecks too) and
gig payouts through ``users._gig``; the held-out generator (B) every credit through
``_World.credit`` with its kind (``pay``, ``gig`` or ``benefit`` are income; transfers,
refunds, advances and tax refunds are not). :func:`labelled` runs a generator with those
functions wrapped, and records the ids of the rows each income call added: the labels are
the generator's own knowledge, not a guess from the text a model also reads.

If a generator stops posting income through these functions, :func:`labelled` raises
(:class:`LabelsUnavailableError`) instead of returning users without labels.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from ops.synthetic import holdout, users
from ops.synthetic.users import SyntheticUser

#: The held-out generator's kinds of credit that are income.
HOLDOUT_INCOME_KINDS = frozenset({"pay", "gig", "benefit"})


class LabelsUnavailableError(RuntimeError):
    """A generator no longer posts income where this module records it."""


@dataclass(frozen=True)
class LabelledUser:
    """A synthetic user and the ids of its transactions that are income."""

    user: SyntheticUser
    income_ids: frozenset[str]


def _recording(
    original: Callable[..., Any],
    rows_of: Callable[..., list[dict[str, Any]]],
    keep: Callable[..., bool],
    sink: set[str],
) -> Callable[..., Any]:
    """``original`` wrapped: the ids of the rows a kept call appends go to ``sink``."""
    signature = inspect.signature(original)

    @functools.wraps(original)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        bound = signature.bind(*args, **kwargs)
        rows = rows_of(bound.arguments)
        before = len(rows)
        result = original(*args, **kwargs)
        if keep(bound.arguments):
            sink.update(str(row["txn_id"]) for row in rows[before:])
        return result

    return wrapper


@contextmanager
def _patched(owner: Any, name: str, replacement: Callable[..., Any]) -> Iterator[None]:
    original = getattr(owner, name, None)
    if original is None:
        raise LabelsUnavailableError(f"{owner.__name__}.{name} no longer exists: income labels cannot be recorded")
    setattr(owner, name, replacement)
    try:
        yield
    finally:
        setattr(owner, name, original)


def _tuning_user(seed: int, index: int) -> LabelledUser:
    income: set[str] = set()
    credit = _recording(users._credit, lambda a: a["user"].txns, lambda a: True, income)
    gig = _recording(users._gig, lambda a: a["user"].txns, lambda a: True, income)
    with _patched(users, "_credit", credit), _patched(users, "_gig", gig):
        person = users.make_user(seed, index)
    return LabelledUser(person, frozenset(income))


def _holdout_user(seed: int, index: int) -> LabelledUser:
    income: set[str] = set()
    credit = _recording(
        holdout._World.credit, lambda a: a["self"].rows, lambda a: a["kind"] in HOLDOUT_INCOME_KINDS, income
    )
    with _patched(holdout._World, "credit", credit):
        person = holdout.make_user(seed, index)
    return LabelledUser(person, frozenset(income))


GENERATORS: dict[str, Callable[[int, int], LabelledUser]] = {"A": _tuning_user, "B": _holdout_user}


def labelled(generator: str, seed: int, index: int) -> LabelledUser:
    """User ``index`` of ``generator`` (``A``: tuning, ``B``: held-out) and seed ``seed``, labelled."""
    result = GENERATORS[generator](seed, index)
    if result.user.truth.payer is not None and not result.income_ids:
        raise LabelsUnavailableError(f"user {result.user.user_id} has a payer but no income was recorded")
    return result
