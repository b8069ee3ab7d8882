"""Writers of balances announce them on the balance-updates queue, after the rows are stored."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from chalicelib.aws.messaging import queue_url
from chalicelib.data import accounts
from chalicelib.insight.balance_updates import BalanceUpdateSource, parse_balance_update
from chalicelib.pipeline.refiner import refine_records
from chalicelib.settings import get_settings
from tests.conftest import Capture
from tests.factories import kinesis_inputs, page_record, plaid_account, plaid_transaction, transactions_response
from tests.faults import aws_fault

pytestmark = pytest.mark.integration

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


@pytest.fixture(scope="module")
def balance_updates(aws_endpoint: str) -> Capture:
    return Capture(queue_url(get_settings().balance_updates_queue))


def test_a_refined_page_announces_its_users_balances(user_id: str, balance_updates: Capture) -> None:
    account = plaid_account()
    txn = plaid_transaction(account["account_id"])
    # WHEN a page is refined, and a record with only removals after it
    refine_records(
        kinesis_inputs(
            page_record(user_id, "item-1", transactions_response([account], [txn])),
            page_record(user_id, "item-1", removed=["txn-gone"]),
        ),
        now=NOW,
    )
    # THEN one update names the user and the item, from the refiner (removals alone store no balance)
    [sent] = balance_updates.matching(lambda m: m.get("user_id") == user_id)
    update = parse_balance_update(json.dumps(sent))
    assert (update.source, update.item_id, update.sent_at) == (
        BalanceUpdateSource.REFINER,
        "item-1",
        "2026-11-30T12:00:00.000000Z",
    )
    assert accounts.get_account(user_id, account["account_id"]) is not None


def test_a_failed_announcement_fails_the_record_so_it_is_retried(user_id: str, balance_updates: Capture) -> None:
    account = plaid_account()
    inputs = kinesis_inputs(page_record(user_id, "item-1", transactions_response([account], [])))
    # GIVEN SQS refuses the announcement once
    with aws_fault("sqs", "SendMessage", code="InternalError"):
        response = refine_records(inputs, now=NOW)
    # THEN the record is reported for a retry, and the retry announces it
    assert response == {"batchItemFailures": [{"itemIdentifier": inputs[0].sequence_number}]}
    assert refine_records(inputs, now=NOW) == {"batchItemFailures": []}
    assert len(balance_updates.matching(lambda m: m.get("user_id") == user_id)) == 1
