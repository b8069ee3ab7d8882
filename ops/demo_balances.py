"""The run command's savings and balance-alert demo: a threshold for the demo user, then what came of it.

Before the demo item is linked, the user's ``low_balance_alert`` (the settings another
service owns, ``user-balance-settings``) is set a little above what the item's main
(checking) account holds, so its first mine is due an alert. Afterwards the demo prints the
savings history the API serves and the alerts the (fake) Segment received.
"""

from __future__ import annotations

import json
import math
import urllib.request
from decimal import Decimal
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ops.fakes.peers import FakeSegment
    from ops.fakes.plaid import FakeItem

#: How far above the main account's balance the demo sets the threshold, in dollars.
MARGIN_DOLLARS = 25


def _dollars(cents: int | None) -> str:
    return "—" if cents is None else f"${Decimal(cents) / 100:,.2f}"


def seed_threshold(fake: FakeItem, user_id: str) -> int:
    """Set the user's threshold (whole dollars) just above the main account's balance; returns it."""
    from chalicelib.insight.data import tables
    from chalicelib.insight.data.balance_settings import balance_settings_item

    amounts = fake.accounts["checking"]["balances"]
    spendable = amounts["available"] if amounts["available"] is not None else amounts["current"]
    threshold = math.ceil(Decimal(str(spendable))) + MARGIN_DOLLARS
    tables.user_balance_settings().put_item(Item=balance_settings_item(user_id, threshold))
    return threshold


def report(app_url: str, token: str, user_id: str, segment: FakeSegment) -> list[str]:
    """Lines describing the user's savings history (over the API) and low-balance alerts."""
    from chalicelib.insight.data.alerts import COOLDOWN, get_alert
    from chalicelib.peers import LOW_BALANCE_ALERT

    request = urllib.request.Request(
        f"{app_url}/v1/users/{user_id}/savings", headers={"Authorization": f"Bearer {token}"}
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        body: dict[str, Any] = json.load(response)
    lines = [f"demo: savings progress (GET /v1/users/{user_id}/savings):"]
    for month in body["months"]:
        if month["updated_date"] is None:
            lines.append(f"  {month['month']}  no balances seen that month")
        else:
            lines.append(
                f"  {month['month']}  {_dollars(month['total_available'])} in {len(month['accounts'])} savings"
                f" account(s), as of {month['updated_date']}"
            )
    sent = [t for t in segment.tracks(LOW_BALANCE_ALERT) if t["userId"] == user_id]
    for track in sent:
        props = track["properties"]
        lines.append(
            f"demo: low-balance alert sent to {user_id} (Segment {LOW_BALANCE_ALERT}): {props['balance_source']}"
            f" balance {_dollars(props['balance'])} of account {props['account_id']} is below"
            f" the {_dollars(props['threshold'])} threshold"
        )
    state = get_alert(user_id)
    if not sent and state is not None and state.alert_sent:
        lines.append(
            f"demo: no new low-balance alert: the one sent at {state.updated_date.isoformat()} holds the"
            f" cooldown until {(state.updated_date + COOLDOWN).isoformat()} (a local AWS kept from an earlier run)"
        )
    elif not sent:
        lines.append(f"demo: no low-balance alert was sent to {user_id}")
    return lines
