"""``user-balance-settings`` rows: a user's low-balance alert threshold (another service's table).

Keyed ``user_id``; ``low_balance_alert`` is in **dollars** (a number; null or absent means
alerts are off). The owner writes it; this service only reads it (its functions may only
GetItem/Query here) and converts the threshold to cents. :func:`balance_settings_item` builds
the owner's row shape for local seeding and tests.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from chalicelib.aws.errors import translated
from chalicelib.data.money import dollars_to_cents, to_decimal
from chalicelib.insight.data import keys, tables


@dataclass(frozen=True)
class BalanceSettings:
    user_id: str
    #: The threshold in cents; ``None`` = alerts off.
    low_balance_alert: int | None


def from_item(row: Mapping[str, Any]) -> BalanceSettings:
    raw = row.get("low_balance_alert")
    return BalanceSettings(str(row["user_id"]), None if raw is None else dollars_to_cents(raw))


def balance_settings_item(user_id: str, low_balance_alert_dollars: Decimal | int | str | None) -> dict[str, Any]:
    """The owner's row: ``low_balance_alert`` in dollars (``None`` = off)."""
    dollars = None if low_balance_alert_dollars is None else to_decimal(low_balance_alert_dollars)
    return {**keys.balance_settings_key(user_id), "low_balance_alert": dollars}


def get_balance_settings(user_id: str) -> BalanceSettings | None:
    """The user's settings (strongly consistent GetItem); ``None`` when the owner has no row."""
    with translated():
        row = (
            tables.user_balance_settings()
            .get_item(Key=keys.balance_settings_key(user_id), ConsistentRead=True)
            .get("Item")
        )
    return from_item(row) if row else None


def low_balance_threshold(user_id: str) -> int | None:
    """The alert threshold in cents, or ``None`` when alerts are off (or never set)."""
    found = get_balance_settings(user_id)
    return found.low_balance_alert if found else None
