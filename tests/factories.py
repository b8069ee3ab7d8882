"""Factories for Plaid payloads and Lambda events, each with unique ids."""

from __future__ import annotations

import base64
import json
import uuid
from datetime import UTC, date, datetime
from typing import Any

from chalicelib.pipeline.messages import PageRecord, encode_page_record
from chalicelib.pipeline.refiner import KinesisInput


def uid(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:16]}"


def plaid_account(account_id: str | None = None, **overrides: Any) -> dict[str, Any]:
    balances = {
        "available": 100.25,
        "current": 110.5,
        "limit": None,
        "iso_currency_code": "USD",
        "unofficial_currency_code": None,
    }
    balances.update(overrides.pop("balances", {}))
    account = {
        "account_id": account_id or uid("acct"),
        "balances": balances,
        "mask": "0000",
        "name": "Plaid Checking",
        "official_name": "Plaid Gold Standard 0% Interest Checking",
        "type": "depository",
        "subtype": "checking",
    }
    account.update(overrides)
    return account


def plaid_transaction(account_id: str, **overrides: Any) -> dict[str, Any]:
    txn = {
        "transaction_id": uid("txn"),
        "account_id": account_id,
        "amount": 12.34,
        "iso_currency_code": "USD",
        "unofficial_currency_code": None,
        "date": "2026-11-20",
        "authorized_date": "2026-11-19",
        "authorized_datetime": None,
        "datetime": None,
        "name": "Coffee Shop",
        "merchant_name": "Coffee Shop",
        "original_description": "COFFEE SHOP #123",
        "pending": False,
        "pending_transaction_id": None,
        "category": ["Food and Drink", "Restaurants", "Coffee Shop"],
        "category_id": "13005043",
        "personal_finance_category": {"primary": "FOOD_AND_DRINK", "detailed": "FOOD_AND_DRINK_COFFEE"},
        "payment_channel": "in store",
        "transaction_code": None,
        "logo_url": "https://plaid-merchant-logos.plaid.com/coffee.png",
        "website": "coffee.example",
    }
    txn.update(overrides)
    return txn


def transactions_response(
    accounts: list[dict[str, Any]], txns: list[dict[str, Any]], total: int | None = None
) -> dict[str, Any]:
    return {
        "accounts": accounts,
        "transactions": txns,
        "total_transactions": len(txns) if total is None else total,
        "item": {"item_id": "item", "institution_id": "ins_1"},
        "request_id": uid("req"),
    }


def page_record(
    user_id: str,
    item_id: str,
    response: dict[str, Any] | None = None,
    removed: list[str] | None = None,
    *,
    last_page: bool = True,
    mine_id: str | None = None,
) -> PageRecord:
    return PageRecord(user_id, item_id, mine_id or uid("mine"), last_page, response, removed)


class Sequence:
    """Monotonic Kinesis sequence numbers for hand-built batches."""

    def __init__(self) -> None:
        self.n = 49_000_000_000_000_000_000

    def next(self) -> str:
        self.n += 1
        return str(self.n)


def kinesis_inputs(*records: PageRecord | bytes, seq: Sequence | None = None) -> list[KinesisInput]:
    seq = seq or Sequence()
    inputs: list[KinesisInput] = []
    for record in records:
        payloads = [record] if isinstance(record, bytes) else encode_page_record(record)
        inputs += [KinesisInput(seq.next(), p) for p in payloads]
    return inputs


def kinesis_event(
    inputs: list[KinesisInput], stream_arn: str = "arn:aws:kinesis:us-east-1:123456789012:stream/s"
) -> dict[str, Any]:
    return {
        "Records": [
            {
                "kinesis": {
                    "kinesisSchemaVersion": "1.0",
                    "partitionKey": "item",
                    "sequenceNumber": i.sequence_number,
                    "data": base64.b64encode(i.data).decode(),
                    "approximateArrivalTimestamp": datetime.now(UTC).timestamp(),
                },
                "eventSource": "aws:kinesis",
                "eventVersion": "1.0",
                "eventID": f"shardId-000000000000:{i.sequence_number}",
                "eventName": "aws:kinesis:record",
                "awsRegion": "us-east-1",
                "eventSourceARN": stream_arn,
            }
            for i in inputs
        ]
    }


def sqs_event(bodies: list[str], queue_arn: str = "arn:aws:sqs:us-east-1:123456789012:q") -> dict[str, Any]:
    return {
        "Records": [
            {
                "messageId": str(uuid.uuid4()),
                "receiptHandle": uid("rh"),
                "body": body,
                "attributes": {"ApproximateReceiveCount": "1", "SentTimestamp": "0"},
                "messageAttributes": {},
                "md5OfBody": "",
                "eventSource": "aws:sqs",
                "eventSourceARN": queue_arn,
                "awsRegion": "us-east-1",
            }
            for body in bodies
        ]
    }


def days_ago(n: int, today: date | None = None) -> str:
    from datetime import timedelta

    return ((today or datetime.now(UTC).date()) - timedelta(days=n)).isoformat()


def as_json(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))
