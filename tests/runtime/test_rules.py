"""``on_cw_event`` handlers, fed through a local rule -> queue tap on the default bus."""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest
from chalice import Chalice

from chalicelib.aws.clients import client
from ops.runtime import EventRuntime
from tests.runtime.factories import declaration_for

pytestmark = pytest.mark.integration


def test_matching_events_on_the_default_bus_invoke_the_handler(aws_endpoint: str) -> None:
    # GIVEN an app with an on_cw_event handler for one source (unique per test run)
    source = f"rt.test.{uuid.uuid4().hex[:8]}"
    received: list[dict[str, Any]] = []
    failures = [1]
    app = Chalice(app_name="rt-rules", configure_logs=False)

    @app.on_cw_event({"source": [source], "detail": {"kind": [{"prefix": "order"}]}}, name=f"on_{source[-8:]}")
    def on_event(event: Any) -> None:
        received.append({"detail": event.detail, "account": event.account, "source": event.source})
        if failures:
            failures.pop()
            raise RuntimeError("first attempt fails")

    runtime = EventRuntime(app, declaration_for("rules"), visibility_timeout=0)
    # WHEN a matching and a non-matching event are put on the default bus and the runtime drains
    client("events").put_events(
        Entries=[
            {"Source": source, "DetailType": "t", "Detail": json.dumps({"kind": "order.created"})},
            {"Source": source, "DetailType": "t", "Detail": json.dumps({"kind": "refund"})},
        ]
    )
    result = runtime.drain(timeout=10)
    # THEN only the matching event reached the handler, again after its failed first attempt
    assert [r["detail"] for r in received] == [{"kind": "order.created"}] * 2
    assert received[0]["account"] == "123456789012"
    assert result.errors == 1
