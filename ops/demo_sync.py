"""The run command's ``--sync`` demo: the demo item is mined by ``/transactions/sync``.

With ``--sync`` the app links new items in sync mode (``NEW_ITEM_MINING_MODE=SYNC``), so the
demo item's first webhooks pull its whole history from no cursor, page by page through the
throttle queue. Once that loop has committed, Plaid (the fake) changes a few transactions,
removes one and adds some, and sends ``SYNC_UPDATES_AVAILABLE``: the next pull reads only those
changes, from the committed cursor. The demo prints what it did and the item's SYNC row.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ops.fakes.plaid import FakeItem, FakePlaid

#: The environment the app reads to mine newly linked items by /transactions/sync.
ENVIRONMENT = {"NEW_ITEM_MINING_MODE": "SYNC"}


def announce_changes(plaid: FakePlaid, fake: FakeItem, app_url: str) -> list[str]:
    """Change the item at the fake Plaid, then send SYNC_UPDATES_AVAILABLE; what happened, as lines."""
    from ops.fakes.plaid import webhooks

    modified = plaid.modify_transactions(fake.access_token, count=3)
    newest = plaid.item(fake.access_token).transactions[0]["transaction_id"]
    removed = plaid.remove_transactions(fake.access_token, [newest])
    added = plaid.add_transactions(fake.access_token, 5)
    delivery = plaid.send_webhook(f"{app_url}/v1/plaid", webhooks.sync_updates_available(fake.item_id))
    return [
        f"sync: Plaid modified {len(modified)}, removed {len(removed)} and added {len(added)} transactions,"
        f" then sent SYNC_UPDATES_AVAILABLE; the app answered {delivery.status}"
    ]


def report(user_id: str, fake: FakeItem, plaid: FakePlaid) -> list[str]:
    """The item's SYNC row and how many sync calls its pulls made."""
    from chalicelib.data.sync_state import get_sync_state

    state = get_sync_state(user_id, fake.item_id)
    calls = [c for c in plaid.calls("/transactions/sync") if c.body.get("access_token") == fake.access_token]
    cursor = f"{state.cursor[:16]}…" if state.cursor else "none"
    running = f"loop {state.loop_id} at page {state.page}" if state.running else "no loop running"
    return [
        f"sync: {len(calls)} /transactions/sync calls so far; committed cursor {cursor}"
        f" (last loop {state.last_loop}, committed at {state.committed_at}); {running}"
    ]
