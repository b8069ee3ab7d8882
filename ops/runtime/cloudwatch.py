"""EventBridge -> handler: scheduled rules (``app.schedule``) and pattern rules (``app.on_cw_event``).

moto accepts scheduled rules but never fires them, and delivers rule matches only to
targets such as SQS, never to Lambda. So:

* schedules are fired by the runtime itself at the times the expression gives (missed
  fires are skipped, as EventBridge does not backfill), with the "Scheduled Event" that
  EventBridge sends; a failed invocation is retried twice, like any asynchronous Lambda
  invocation (after ``async_retry_delays``);
* each ``on_cw_event`` handler gets a local "tap": a rule with the handler's pattern on
  the default bus targeting a queue the runtime owns (``local-runtime-...``). Events put
  on the bus arrive there, and the runtime invokes the handler with each one, one event
  per invocation, retrying a failure twice before dropping it.
"""

from __future__ import annotations

import json
import logging
import re
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from chalicelib.aws.clients import client
from ops.runtime.context import LOCAL_ACCOUNT
from ops.runtime.discovery import EventRuleSpec, ScheduleSpec
from ops.runtime.errors import UnknownFunctionError
from ops.runtime.invoker import Invoker
from ops.runtime.schedules import Schedule, parse_schedule
from ops.runtime.sqs import queue_depth, queue_empty

log = logging.getLogger("ops.runtime")

#: An asynchronous invocation is tried once and retried twice.
ASYNC_ATTEMPTS = 3


def scheduled_event(rule_arn: str, fire_time: datetime, region: str) -> dict[str, Any]:
    """The event EventBridge sends a scheduled rule's Lambda target."""
    return {
        "version": "0",
        "id": str(uuid.uuid4()),
        "detail-type": "Scheduled Event",
        "source": "aws.events",
        "account": LOCAL_ACCOUNT,
        "time": fire_time.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "region": region,
        "resources": [rule_arn],
        "detail": {},
    }


@dataclass
class _Scheduled:
    spec: ScheduleSpec
    schedule: Schedule
    rule_arn: str
    next_fire: datetime | None


@dataclass
class _Retry:
    due: datetime
    function: str
    event: dict[str, Any]
    attempt: int


@dataclass
class ScheduleRunner:
    specs: tuple[ScheduleSpec, ...]
    invoker: Invoker
    region: str
    rule_prefix: str
    started: datetime
    async_retry_delays: tuple[float, ...] = (60.0, 120.0)
    _scheduled: dict[str, _Scheduled] = field(default_factory=dict)
    _retries: list[_Retry] = field(default_factory=list)

    def __post_init__(self) -> None:
        for spec in self.specs:
            schedule = parse_schedule(spec.expression, anchor=self.started)
            arn = f"arn:aws:events:{self.region}:{LOCAL_ACCOUNT}:rule/{self.rule_prefix}-{spec.function}"
            self._scheduled[spec.function] = _Scheduled(spec, schedule, arn, schedule.next_after(self.started))

    def next_fire(self, function: str) -> datetime | None:
        return self._entry(function).next_fire

    def fire(self, function: str, at: datetime) -> Any:
        """Invoke ``function`` now with the event of a fire at ``at``; its error propagates."""
        entry = self._entry(function)
        event = scheduled_event(entry.rule_arn, at, self.region)
        return self.invoker.invoke_event(function, f"schedule:{entry.spec.expression}", event)

    def tick(self, now: datetime) -> list[str]:
        """Fire every schedule (and retry) due at ``now``; the names fired."""
        fired: list[str] = []
        for entry in self._scheduled.values():
            if entry.next_fire is not None and entry.next_fire <= now:
                event = scheduled_event(entry.rule_arn, entry.next_fire, self.region)
                entry.next_fire = entry.schedule.next_after(now)
                self._attempt(entry.spec.function, event, 1, now)
                fired.append(entry.spec.function)
        due, self._retries = [r for r in self._retries if r.due <= now], [r for r in self._retries if r.due > now]
        for retry in due:
            self._attempt(retry.function, retry.event, retry.attempt, now)
            fired.append(retry.function)
        return fired

    def _attempt(self, function: str, event: dict[str, Any], attempt: int, now: datetime) -> None:
        try:
            self.invoker.invoke_event(function, f"schedule:{self._entry(function).spec.expression}", event)
        except Exception:  # an async invocation's error is retried, then dropped
            if attempt >= ASYNC_ATTEMPTS:
                log.exception("%s failed %d times on %s; the event is dropped", function, attempt, event["time"])
                return
            delay = self.async_retry_delays[min(attempt, len(self.async_retry_delays)) - 1]
            log.warning("%s failed on %s; retrying in %.0f s", function, event["time"], delay, exc_info=True)
            self._retries.append(_Retry(now + timedelta(seconds=delay), function, event, attempt + 1))

    def _entry(self, function: str) -> _Scheduled:
        try:
            return self._scheduled[function]
        except KeyError:
            raise UnknownFunctionError(f"no schedule registered for {function!r}") from None


@dataclass
class EventRulePoller:
    """Feeds one ``on_cw_event`` handler through a rule -> queue tap on the default bus."""

    spec: EventRuleSpec
    invoker: Invoker
    tap_name: str
    visibility_timeout: int | None = None
    _url: str = ""

    @property
    def label(self) -> str:
        return f"rule:{self.tap_name}"

    def start(self) -> None:
        if self._url:
            return
        sqs, events = client("sqs"), client("events")
        # The tap's visibility timeout is the delay before a failed event is retried.
        self._url = sqs.create_queue(QueueName=self.tap_name, Attributes={"VisibilityTimeout": "60"})["QueueUrl"]
        arn = sqs.get_queue_attributes(QueueUrl=self._url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
        events.put_rule(Name=self.tap_name, EventPattern=json.dumps(self.spec.pattern), State="ENABLED")
        events.put_targets(Rule=self.tap_name, Targets=[{"Id": "local-runtime", "Arn": arn}])

    def poll(self) -> bool:
        self.start()
        kwargs: dict[str, Any] = {
            "QueueUrl": self._url,
            "MaxNumberOfMessages": 1,
            "MessageSystemAttributeNames": ["ApproximateReceiveCount"],
        }
        if self.visibility_timeout is not None:
            kwargs["VisibilityTimeout"] = self.visibility_timeout
        messages = client("sqs").receive_message(**kwargs).get("Messages", [])
        if not messages:
            return False
        message = messages[0]
        event = json.loads(message["Body"])
        event.setdefault("account", LOCAL_ACCOUNT)  # moto's envelope leaves it out; Chalice requires it
        attempt = int(message["Attributes"]["ApproximateReceiveCount"])
        try:
            self.invoker.invoke_event(self.spec.function, self.label, event)
        except Exception:  # an async invocation's error is retried, then dropped
            if attempt < ASYNC_ATTEMPTS:
                log.warning("%s failed on event %s (attempt %d)", self.spec.function, event.get("id"), attempt)
                return True
            log.exception("%s failed %d times on event %s; dropped", self.spec.function, attempt, event.get("id"))
        client("sqs").delete_message(QueueUrl=self._url, ReceiptHandle=message["ReceiptHandle"])
        return True

    def idle(self) -> bool:
        self.start()
        return queue_empty(self._url)

    def pending(self) -> list[str]:
        return [f"{self.label}: {queue_depth(self._url)}"] if self._url else []


def tap_name(prefix: str, function: str) -> str:
    """A queue/rule name for ``function``'s tap that SQS and EventBridge both accept."""
    return re.sub(r"[^A-Za-z0-9_-]", "-", f"local-runtime-{prefix}-{function}")[:64]
