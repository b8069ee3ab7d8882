"""CPU of reading a user's history response: the service's DynamoDB reading against boto3's own.

``python -m ops.bench_dynamodb_parse`` builds the body of the GSI1 Query that an insight model's
history read receives: 360 transaction rows (120 days of three a day from the fake Plaid
generator, refined and stored as the pipeline stores them), projected to the models' fields,
and the same rows whole. It then times, on each body, turning the response into Python rows:

* **boto3**: botocore's ``json`` parser walking the service model, then boto3's
  ``TypeDeserializer`` (what a stock resource does);
* **service**: :mod:`chalicelib.aws.dynamodb_types`'s parser, straight to Python values in one
  walk (what every resource of the factory does).

It checks that both give equal rows, then prints each side's median CPU and their ratio.
No AWS is involved: both sides read the same bytes.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import botocore.session
from boto3.dynamodb.transform import TransformationInjector
from boto3.dynamodb.types import TypeDeserializer, TypeSerializer
from botocore.parsers import JSONParser

from chalicelib.aws import dynamodb_types
from chalicelib.data import transactions
from chalicelib.pipeline.refine import refine_transaction
from ops.fakes.plaid.generate import build_accounts, build_transactions, seeded

ROWS = 360
NOW = datetime(2026, 1, 15, 12, tzinfo=UTC)


def history_body(fields: tuple[str, ...] | None) -> bytes:
    """The wire body of a Query returning :data:`ROWS` stored rows (only ``fields`` when given)."""
    rng = seeded(11)
    roles = {role: str(account["account_id"]) for role, account in build_accounts(rng, loans=False).items()}
    serialize = TypeSerializer().serialize
    items = []
    for raw in build_transactions(rng, roles, count=ROWS, history_days=120, today=NOW.date()):
        row = transactions.transaction_item(refine_transaction("user-bench", raw, "item-bench"), NOW)
        items.append({name: serialize(value) for name, value in row.items() if fields is None or name in fields})
    return json.dumps({"Items": items, "Count": len(items), "ScannedCount": len(items)}).encode()


def reader(parser: Any, deserializer: TypeDeserializer | None) -> Callable[[bytes], Any]:
    """Turn a Query body into Python rows, as a resource's client does (``deserializer``: boto3's
    second walk after the parser's; None when the parser makes the Python values itself)."""
    operation: Any = botocore.session.get_session().get_service_model("dynamodb").operation_model("Query")
    injector = TransformationInjector(deserializer=deserializer) if deserializer is not None else None

    def read(body: bytes) -> Any:
        parsed = parser.parse({"body": body, "headers": {}, "status_code": 200}, operation.output_shape)
        if injector is not None:
            injector.inject_attribute_value_output(parsed, operation)
        return parsed["Items"]

    return read


def cpu_ms(read: Callable[[bytes], Any], body: bytes) -> float:
    started = time.process_time()
    read(body)
    return (time.process_time() - started) * 1000


def report(repeats: int = 40) -> list[str]:
    """The figures' lines: each body's size, each side's median CPU and their ratio."""
    stock = reader(JSONParser(), TypeDeserializer())
    ours = reader(dynamodb_types.DynamoDBPythonParser(), None)
    lines = [f"Reading a {ROWS}-row history Query response, CPU per response (median of {repeats}):"]
    for label, fields in (("models' fields", transactions.MODEL_FIELDS), ("whole rows", None)):
        body = history_body(fields)
        if repr(stock(body)) != repr(ours(body)):
            raise SystemExit(f"{label}: the two readings differ")
        # Alternate the sides so that a busy machine slows both alike.
        timings: dict[str, list[float]] = {"boto3": [], "service": []}
        for _ in range(repeats):
            timings["boto3"].append(cpu_ms(stock, body))
            timings["service"].append(cpu_ms(ours, body))
        boto3_ms, service_ms = (statistics.median(timings[side]) for side in ("boto3", "service"))
        lines.append(
            f"   {label:15} {len(body) / 1024:4.0f} KiB   boto3 {boto3_ms:6.1f} ms   service {service_ms:6.1f} ms"
            f"   ratio boto3 / service {boto3_ms / service_ms:4.1f}x"
        )
    return lines


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--repeats", type=int, default=40)
    print("\n".join(report(parser.parse_args(argv).repeats)))


if __name__ == "__main__":
    main()
