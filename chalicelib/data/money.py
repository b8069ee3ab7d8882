"""Money is integer cents; Decimal only at the DynamoDB boundary, never float.

Plaid reports amounts as JSON numbers in dollars. They are parsed to ``Decimal`` from
their text (never through binary float arithmetic) and rounded half-even to cents.
Each stored amount keeps a ``_string`` copy in dollars (``"-12.30"``) for readers that
want the exact decimal text.
"""

from __future__ import annotations

from decimal import ROUND_HALF_EVEN, Decimal, InvalidOperation

from chalicelib.errors import ValidationError

_CENT = Decimal("0.01")


def to_decimal(amount: object) -> Decimal:
    if isinstance(amount, bool):
        raise ValidationError(f"not an amount: {amount!r}")
    if isinstance(amount, Decimal):
        value = amount
    elif isinstance(amount, (int, float, str)):
        try:
            value = Decimal(str(amount))
        except InvalidOperation as exc:
            raise ValidationError(f"not an amount: {amount!r}") from exc
    else:
        raise ValidationError(f"not an amount: {amount!r}")
    if not value.is_finite():
        raise ValidationError(f"not a finite amount: {amount!r}")
    return value


def dollars_to_cents(amount: object) -> int:
    """``12.345`` -> ``1234`` (half-even), ``"-0.10"`` -> ``-10``."""
    return int((to_decimal(amount) / _CENT).quantize(Decimal(1), rounding=ROUND_HALF_EVEN))


def cents_to_string(cents: int) -> str:
    """``-1230`` -> ``"-12.30"``: the ``_string`` copy of a stored amount."""
    return str((Decimal(cents) * _CENT).quantize(_CENT))


def from_dynamo(value: object) -> int:
    """A stored cents amount (boto3 gives ``Decimal``) back to ``int``."""
    if isinstance(value, bool) or not isinstance(value, (int, Decimal)):
        raise ValidationError(f"stored amount is not a number: {value!r}")
    if isinstance(value, Decimal) and value != value.to_integral_value():
        raise ValidationError(f"stored amount is not whole cents: {value!r}")
    return int(value)
