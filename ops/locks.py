"""See, and if need be clear, a user's balance-alert lock and alert state.

``python -m ops.locks show <user_id>`` prints the ``locks`` row (holder, fencing token, when a
lease of ours expires, state) and the user's ``alert`` row. ``python -m ops.locks clear
<user_id>`` releases a lease nobody renews: it watches the row for ``--watch`` seconds (a live
holder renews every second), refuses if the RVN changed, and otherwise marks the row released
(``isReleased = "1"``) on condition that the RVN is still the one it watched. The row is never
deleted, so the fencing counter survives. The AWS account, region and endpoint are the
environment's (``STAGE``, ``AWS_REGION``, ``AWS_ENDPOINT_URL`` for a local AWS).
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any


def _show(user_id: str) -> dict[str, Any]:
    from chalicelib.data.ttl import utcnow
    from chalicelib.insight.data.alerts import COOLDOWN, get_alert
    from chalicelib.insight.data.keys import balance_alert_lock_key
    from chalicelib.insight.data.locks import get_lock
    from chalicelib.insight.locker import describe

    key = balance_alert_lock_key(user_id)
    state = get_alert(user_id)
    alert = None
    if state is not None:
        alert = {
            "alert_sent": state.alert_sent,
            "claimed_at": state.updated_date.isoformat(),
            "cooldown_until": (state.updated_date + COOLDOWN).isoformat(),
            "fence": state.fence,
            "balance_setting": state.balance_setting,
            "available_balance": state.available_balance,
            "current_balance": state.current_balance,
            "account_id": state.account_id,
        }
    return {"key": key, "lock": dict(describe(get_lock(key), utcnow())), "alert": alert}


def _clear(user_id: str, watch: float) -> tuple[bool, str]:
    from chalicelib.aws.errors import translated
    from chalicelib.errors import ConditionFailedError
    from chalicelib.insight.data import tables
    from chalicelib.insight.data.keys import balance_alert_lock_key
    from chalicelib.insight.data.locks import IS_RELEASED, KEY, RECORD_VERSION_NUMBER, RELEASED, get_lock

    key = balance_alert_lock_key(user_id)
    row = get_lock(key)
    if row is None or row.is_released:
        return True, f"{key}: nothing to clear (no row, or already released)"
    time.sleep(watch)
    again = get_lock(key)
    if again is None or again.record_version_number != row.record_version_number or again.is_released:
        return False, f"{key}: renewed or released while watched; its holder is alive, not cleared"
    try:
        with translated():
            tables.locks().update_item(
                Key={KEY: key},
                UpdateExpression="SET #released = :released",
                ConditionExpression="#rvn = :seen",
                ExpressionAttributeNames={"#released": IS_RELEASED, "#rvn": RECORD_VERSION_NUMBER},
                ExpressionAttributeValues={":released": RELEASED, ":seen": row.record_version_number},
            )
    except ConditionFailedError:
        return False, f"{key}: changed just now; not cleared"
    return True, f"{key}: released (held by {row.owner_name}; fence kept)"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ops.locks", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("show", help="the lock row and the alert row").add_argument("user_id")
    clear = commands.add_parser("clear", help="release a lease nobody renews")
    clear.add_argument("user_id")
    clear.add_argument("--watch", type=float, default=3.0, help="seconds to watch for a heartbeat (default 3)")
    args = parser.parse_args(argv)
    if args.command == "show":
        print(json.dumps(_show(args.user_id), indent=2))
        return 0
    cleared, message = _clear(args.user_id, args.watch)
    print(message)
    return 0 if cleared else 1


if __name__ == "__main__":
    raise SystemExit(main())
