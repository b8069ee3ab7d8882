"""``ritual`` rows: a mine's habitual spending (Pave's "rituals").

Key ``USERS#<user_id>`` / ``RITUAL#<last_mine>#MERCHANT#<merchant_id>#<frequency>#<amount>``;
same shape and ``ttl`` (``due_date`` + ``EXPENSE_TTL_DAYS``) as ``recurring`` rows, whose
module builds both.
"""

from __future__ import annotations

from collections.abc import Iterable

from chalicelib.insight.data.recurring_expenses import RITUAL, Expense, MineName, expenses_of_mine, put_expenses

Ritual = Expense


def put_rituals(rituals: Iterable[Ritual]) -> int:
    return put_expenses(rituals, RITUAL)


def rituals(user_id: str, last_mine: MineName) -> list[Ritual]:
    """The rituals of the mine ``last_mine``."""
    return expenses_of_mine(user_id, last_mine, RITUAL)
