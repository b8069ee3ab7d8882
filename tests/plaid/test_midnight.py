"""A run that crosses midnight UTC passes: the fake Plaid, the client and the tests read one clock.

The process clock (:mod:`chalicelib.clock`) is set a few reads before midnight on New
Year's Eve and moves on with every read, so the date (and the year) changes at a different
point of the run in each case: before the item is linked, while the fake generates it,
between linking and reading, while a webhook is signed and verified.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest

from chalicelib import clock
from chalicelib.plaid.client import PlaidClient
from chalicelib.plaid.webhook_verification import WebhookKeyCache, verify_webhook
from ops.fakes.plaid import FakePlaid
from tests.clocks import SteppingClock
from tests.plaid.factories import new_item

MIDNIGHT = datetime(2027, 1, 1, tzinfo=UTC)
STEP = timedelta(milliseconds=100)


@pytest.mark.parametrize("reads_before_midnight", [1, 2, 3, 5, 7])
def test_linking_reading_and_verifying_across_midnight(
    reads_before_midnight: int, client: PlaidClient, fake_plaid: FakePlaid
) -> None:
    # GIVEN the clock a few reads before midnight UTC (23:59:59.x on 31 December)
    ticking = SteppingClock(MIDNIGHT - reads_before_midnight * STEP, STEP)
    with clock.using(ticking):
        # WHEN an item is linked at the fake, its whole history read through the client,
        # and a webhook about it signed by the fake and verified by the service
        item = new_item(fake_plaid, transaction_count=60)
        end = clock.today()  # the miner's window: two years up to "today", read when it mines
        start = end - timedelta(days=730)
        page = client.transactions_get(item.access_token, start, end)
        body, header = fake_plaid.sign_webhook({"webhook_type": "TRANSACTIONS", "item_id": item.item_id})
        keys = WebhookKeyCache(lambda kid: client.webhook_verification_key_get(kid)["key"])
        claims = verify_webhook(body, header, keys=keys)
        finished_on = clock.today()
    # THEN midnight (and the year) passed during the run
    assert ticking.reads > reads_before_midnight
    assert finished_on == date(2027, 1, 1)
    # AND the fake generated the item on the injected clock's date, not the machine's
    assert item.today in (date(2026, 12, 31), date(2027, 1, 1))
    # AND the page holds exactly the item's transactions inside the window, and the webhook verified
    expected = [t["transaction_id"] for t in item.transactions if start.isoformat() <= t["date"] <= end.isoformat()]
    assert [t["transaction_id"] for t in page["transactions"]] == expected
    assert page["total_transactions"] == len(expected) > 0
    assert claims["request_body_sha256"]
