"""The Pave feeder: what an upload sends, the rows it writes, and at-least-once delivery."""

from __future__ import annotations

import time
from datetime import timedelta

import boto3
import pytest

from chalicelib.aws.messaging import queue_url
from chalicelib.data.ttl import epoch, iso_timestamp
from chalicelib.insight import pave_feed
from chalicelib.insight.data import last_pages, pave_labels
from chalicelib.insight.data import tables as insight_tables
from chalicelib.insight.pave_messages import Poll, removals_bodies
from chalicelib.pipeline.refiner import refine_records
from chalicelib.settings import get_settings
from ops.fakes.pave import FakePave
from ops.queues import take_all
from ops.runtime.sqs import sqs_record
from tests.conftest import empty_queue
from tests.factories import kinesis_inputs, page_record, plaid_account, plaid_transaction, transactions_response
from tests.insight.pave.support import (
    NOW,
    TODAY,
    batch_completed,
    feed_event,
    in_window,
    pave_row,
    polls_queued,
    realistic,
    received_event,
    removals_event,
    soft_delete,
    store_user,
)
from tests.pave.conftest import txn

pytestmark = pytest.mark.integration


def test_a_batch_event_uploads_the_users_window_and_records_the_request(pave: FakePave, user_id: str) -> None:
    # GIVEN a user with six months of transactions on an active item, one of them soft-deleted,
    # and a second item the user removed
    stored = store_user(user_id, realistic(user_id))
    live = in_window(stored)
    assert len(live) < len(stored)  # the older ones are past the retained window
    gone = live[0]
    soft_delete(gone)
    removed_item = store_user(
        user_id,
        [txn(user_id, f"{user_id}-old-1", 999, TODAY - timedelta(days=3))],
        item_id="item-old",
        removed_item=True,
    )

    # WHEN the refiner's batch event reaches the feeder
    result = pave_feed.handle_feed_event(feed_event(batch_completed(user_id)), now=NOW)

    # THEN one upload carried the retained live transactions of the active item, and as removals
    # the soft-deleted one and the removed item's
    assert result == {"batchItemFailures": []}
    [request] = pave.requests_of(user_id)
    assert request["transactions_received"] == len(live) - 1
    assert request["removed_received"] == 2
    pave.process(user_id)
    assert set(pave.transactions_of(user_id)) == {t.txn_id for t in live[1:]}
    assert pave.removed_of(user_id) == {gone.txn_id, removed_item[0].txn_id}
    # AND the last_page row is keyed by the request, expires in 5 days, and names the upload
    request_id = request["request_id"]
    page = pave_row(f"USERS#{user_id}", f"LAST_PAGE#REQUEST_ID#{request_id}")
    assert page is not None and page["type"] == "LAST_PAGE"
    assert page["created_date"] == iso_timestamp(NOW) and page["ttl"] == epoch(NOW + timedelta(days=5))
    assert page["processed"] is False and page["transaction_count"] == len(live) - 1
    # AND the label names the request and fingerprints what was sent
    label = pave_row(f"LABEL#{user_id}", "PAVE#REFRESH_INSIGHTS")
    assert label is not None and label["type"] == "PAVE_LABEL" and "ttl" not in label
    assert label["pave_request_id"] == request_id and label["details"]["upload_fingerprint"]
    # AND the first poll is queued for the miner
    assert polls_queued(user_id) == [Poll(user_id, request_id, 1)]


def test_a_redelivered_event_uploads_nothing_twice(pave: FakePave, user_id: str) -> None:
    # GIVEN an event that was handled once
    store_user(user_id, realistic(user_id))
    event = feed_event(batch_completed(user_id))
    pave_feed.handle_feed_event(event, now=NOW)
    first = polls_queued(user_id)

    # WHEN it is delivered again
    result = pave_feed.handle_feed_event(event, now=NOW + timedelta(minutes=1))

    # THEN Pave was not called again and no second poll started
    assert result == {"batchItemFailures": []}
    assert len(pave.requests_to("POST", f"/v1/users/{user_id}/transactions")) == 1
    assert len(pave.requests_of(user_id)) == 1
    assert polls_queued(user_id) == [] and len(first) == 1


def test_a_redelivery_after_a_crash_before_the_label_repeats_the_upload_into_the_same_request(
    pave: FakePave, user_id: str
) -> None:
    # GIVEN an upload whose handler died after recording the request but before the label
    store_user(user_id, realistic(user_id))
    first = pave_feed.feed_window(user_id, now=NOW)
    assert pave_row(f"LABEL#{user_id}", "PAVE#REFRESH_INSIGHTS") is not None
    insight_tables.pave().delete_item(Key={"PK": f"LABEL#{user_id}", "SK": "PAVE#REFRESH_INSIGHTS"})

    # WHEN the message comes back later
    again = pave_feed.feed_window(user_id, now=NOW + timedelta(minutes=5))

    # THEN Pave answered with the request it already had (nothing new at Pave)
    assert again.replayed and again.request_id == first.request_id
    assert len(pave.requests_of(user_id)) == 1
    # AND the request keeps its first upload instant (it names the mine), the label is back
    page = last_pages.get_last_page(user_id, first.request_id or "")
    assert page is not None and page.created_date == NOW
    label = pave_labels.get_pave_label(user_id)
    assert label is not None and label.pave_request_id == first.request_id


def test_events_of_one_user_in_one_batch_make_one_upload(pave: FakePave, user_id: str) -> None:
    # GIVEN two users, the first with three batch events (three items mined) in one SQS batch
    other = f"{user_id}-b"
    store_user(user_id, realistic(user_id))
    store_user(other, realistic(other))
    bodies = [batch_completed(user_id, mine_id=f"m{i}") for i in range(3)] + [batch_completed(other)]

    # WHEN the batch is handled
    result = pave_feed.handle_feed_event(feed_event(*bodies), now=NOW)

    # THEN each user had exactly one upload
    assert result == {"batchItemFailures": []}
    assert len(pave.requests_of(user_id)) == 1 and len(pave.requests_of(other)) == 1


def test_a_new_transaction_makes_a_new_upload_of_the_changed_window(pave: FakePave, user_id: str) -> None:
    store_user(user_id, realistic(user_id))
    first = pave_feed.feed_window(user_id, now=NOW)
    # GIVEN a new transaction refined since
    store_user(user_id, [txn(user_id, f"{user_id}-new-1", 1234, TODAY, merchant="Corner Store")])
    # WHEN the next batch event is fed
    second = pave_feed.feed_window(user_id, now=NOW + timedelta(hours=1))
    # THEN it is a new request (earlier pages replayed; Pave keeps one copy per transaction)
    assert second.result == "uploaded" and second.request_id != first.request_id
    pave.process(user_id)
    assert f"{user_id}-new-1" in pave.transactions_of(user_id)


def test_replay_feeder_removals_reach_pave_and_a_redelivery_repeats_nothing(pave: FakePave, user_id: str) -> None:
    # GIVEN a user already at Pave
    stored = store_user(user_id, realistic(user_id))
    pave_feed.feed_window(user_id, now=NOW)
    pave.process(user_id)
    polls_queued(user_id)
    ids = [stored[0].txn_id, stored[1].txn_id]

    # WHEN a {user_id, removed} message (re-tombstoned ids) is handled, twice
    [body] = removals_bodies(user_id, ids)
    event = removals_event(body)
    assert pave_feed.handle_removals_event(event, now=NOW) == {"batchItemFailures": []}
    assert pave_feed.handle_removals_event(event, now=NOW) == {"batchItemFailures": []}

    # THEN Pave received one removals-only request and forgot the transactions once processed
    requests = pave.requests_of(user_id)
    assert [(r["transactions_received"], r["removed_received"]) for r in requests[1:]] == [(0, 2)]
    pave.process(user_id)
    assert set(ids) <= pave.removed_of(user_id)
    assert not set(ids) & set(pave.transactions_of(user_id))
    # AND the removals are polled and mined like any upload
    assert [p.request_id for p in polls_queued(user_id)] == [requests[1]["request_id"]]


def test_an_ordinary_removal_travels_from_the_refiner_to_pave(pave: FakePave, user_id: str) -> None:
    # GIVEN a transaction refined, uploaded and processed at Pave
    account = plaid_account()
    dated = {"date": TODAY.isoformat(), "authorized_date": TODAY.isoformat()}
    kept, gone = plaid_transaction(account["account_id"], **dated), plaid_transaction(account["account_id"], **dated)
    store_user(user_id, [])
    refine_records(kinesis_inputs(page_record(user_id, "item-1", transactions_response([account], [kept, gone]))))
    pave_feed.feed_window(user_id, now=NOW)
    pave.process(user_id)
    assert set(pave.transactions_of(user_id)) == {kept["transaction_id"], gone["transaction_id"]}

    # WHEN Plaid's TRANSACTIONS_REMOVED is refined, and the message it left on the replay-feeder
    # queue is delivered to the feeder
    refine_records(kinesis_inputs(page_record(user_id, "item-1", removed=[gone["transaction_id"]])))
    event = received_event_from_queue(user_id)
    assert pave_feed.handle_removals_event(event, now=NOW) == {"batchItemFailures": []}

    # THEN Pave forgets it once processed
    pave.process(user_id)
    assert set(pave.transactions_of(user_id)) == {kept["transaction_id"]}
    assert gone["transaction_id"] in pave.removed_of(user_id)


def received_event_from_queue(user_id: str) -> dict[str, object]:
    """The refiner's replay-feeder messages for the user, received as Lambda would get them."""
    arn = f"arn:aws:sqs:us-east-1:123456789012:{get_settings().replay_feeder_queue}"
    records = [
        sqs_record(message, arn, "us-east-1")
        for message in take_all(get_settings().replay_feeder_queue)
        if f'"{user_id}"' in message["Body"]
    ]
    assert records, "the refiner sent nothing to the replay-feeder queue"
    return {"Records": records}


def test_a_message_that_is_not_an_event_is_dropped_and_the_batch_continues(pave: FakePave, user_id: str) -> None:
    store_user(user_id, realistic(user_id))
    result = pave_feed.handle_feed_event(
        feed_event("not json", '{"detail-type": "something_else", "detail": {}}', batch_completed(user_id)), now=NOW
    )
    assert result == {"batchItemFailures": []}
    assert len(pave.requests_of(user_id)) == 1


def test_a_user_without_transactions_uploads_nothing(pave: FakePave, user_id: str) -> None:
    store_user(user_id, [])
    assert pave_feed.feed_window(user_id, now=NOW).result == "empty"
    assert pave.requests_of(user_id) == [] and polls_queued(user_id) == []


def test_pave_failing_fails_only_that_users_messages(pave: FakePave, user_id: str) -> None:
    # GIVEN two users, and Pave answering the first upload with a 500
    other = f"{user_id}-b"
    store_user(user_id, realistic(user_id))
    store_user(other, realistic(other))
    event = feed_event(batch_completed(user_id), batch_completed(other))
    pave.fail_next(1, status=500)

    # WHEN the batch is handled
    result = pave_feed.handle_feed_event(event, now=NOW)

    # THEN only the first user's message is reported for retry; the other was uploaded
    assert result == {"batchItemFailures": [{"itemIdentifier": event["Records"][0]["messageId"]}]}
    assert pave.requests_of(user_id) == [] and len(pave.requests_of(other)) == 1
    # AND nothing was recorded for the failed user, so the retry starts clean
    assert pave_labels.get_pave_label(user_id) is None and last_pages.last_pages(user_id) == []


def test_a_rate_limited_upload_comes_back_after_retry_after(pave: FakePave, user_id: str) -> None:
    # GIVEN a batch event received from the feed queue, and Pave answering 429 Retry-After: 1
    store_user(user_id, realistic(user_id))
    name = get_settings().pave_feed_queue
    empty_queue(name)  # events other tests' refines routed here
    event = received_event(name, batch_completed(user_id))
    pave.rate_limit_next(1, retry_after=1)

    # WHEN the feeder handles it
    started = time.monotonic()
    result = pave_feed.handle_feed_event(event, now=NOW)

    # THEN it is reported failed and stays invisible until Retry-After has passed, then comes back
    assert result == {"batchItemFailures": [{"itemIdentifier": event["Records"][0]["messageId"]}]}
    sqs, url = boto3.client("sqs"), queue_url(name)
    assert sqs.receive_message(QueueUrl=url, WaitTimeSeconds=0).get("Messages", []) == []
    back = sqs.receive_message(QueueUrl=url, WaitTimeSeconds=5, VisibilityTimeout=30).get("Messages", [])
    assert [m["Body"] for m in back] == [batch_completed(user_id)]
    assert time.monotonic() - started >= 0.9
    sqs.delete_message(QueueUrl=url, ReceiptHandle=back[0]["ReceiptHandle"])
    assert pave.requests_of(user_id) == []


def test_with_too_little_time_left_a_batch_is_deferred_untried(pave: FakePave, user_id: str) -> None:
    store_user(user_id, realistic(user_id))
    event = feed_event(batch_completed(user_id))
    result = pave_feed.handle_feed_event(event, remaining_ms=lambda: 10_000, now=NOW)
    assert result == {"batchItemFailures": [{"itemIdentifier": event["Records"][0]["messageId"]}]}
    assert pave.requests_of(user_id) == []
