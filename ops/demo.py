"""What the run command, the benchmarks and the end-to-end tests do alike: link a fake item,
read back every row the refiner wrote for a user, and show what the insight service made of it
(its Pave insights, and its cash-flow forecast as a small text chart)."""

from __future__ import annotations

import json
import threading
import time
import urllib.request
from collections.abc import Callable
from datetime import UTC, date, datetime
from typing import TYPE_CHECKING, Any

from boto3.dynamodb.conditions import Key

from chalicelib.data import items, keys, tables

if TYPE_CHECKING:
    from ops.fakes.plaid import FakeItem, FakePlaid


def link_fake_item(
    plaid: FakePlaid, user_id: str, *, mining_mode: items.MiningMode = items.MiningMode.GET, **options: Any
) -> FakeItem:
    """An item created at the fake Plaid and saved as an ITEM row, as adding an item does."""
    fake = plaid.create_item(**options)
    now = datetime.now(UTC)
    items.create_item(
        items.Item(
            user_id=user_id,
            item_id=fake.item_id,
            access_token=fake.access_token,
            institution_id=fake.institution_id,
            institution_name=fake.institution_name,
            created_at=now.isoformat(),
            main_account_id=fake.roles().get("checking"),
            link_accounts=items.link_accounts_from(list(fake.accounts.values())),
            mining_mode=mining_mode,
        ),
        now,
    )
    return fake


def refined_rows(user_id: str) -> list[dict[str, Any]]:
    """A user's ACCOUNT, BALANCE and (live) TRANSACTION rows, read by key and GSI1."""
    table = tables.transactions()
    rows: list[dict[str, Any]] = []
    for pk in (keys.accounts_pk(user_id), keys.balances_pk(user_id)):
        rows += table.query(KeyConditionExpression=Key("PK").eq(pk), ConsistentRead=True)["Items"]
    kwargs: dict[str, Any] = {
        "IndexName": "GSI1",
        "KeyConditionExpression": Key("GSI1PK").eq(keys.user_transactions_pk(user_id)),
    }
    while True:
        page = table.query(**kwargs)
        rows += page["Items"]
        if "LastEvaluatedKey" not in page:
            return rows
        kwargs["ExclusiveStartKey"] = page["LastEvaluatedKey"]


def show_pave_insights(
    app_url: str,
    token: str,
    user_id: str,
    say: Callable[[str], None],
    stop: threading.Event,
    timeout: float = 300.0,
    *,
    explain_score: Callable[[], str | None] | None = None,
) -> None:
    """Wait until every Pave upload of the user has been mined (or given up), then print the
    recurring expenses and the cash-advance score as the API serves them to the user, and what
    ``explain_score`` says drives that score."""
    from chalicelib.insight.data import insights, last_pages

    say("demo: Pave: each batch of new transactions is uploaded to the fake Pave, polled, and its insights cached")
    deadline = time.monotonic() + timeout
    while not stop.is_set():
        pages = last_pages.last_pages(user_id)
        if pages and all(p.outcome for p in pages):
            break
        if time.monotonic() > deadline:
            say(f"demo: Pave: {len(pages)} upload(s), not all mined after {timeout:.0f} s; see the runtime lines")
            return
        stop.wait(2.0)
    else:
        return
    mine = insights.latest_insights(user_id)
    if mine is None:
        say(f"demo: Pave: no upload was mined ({', '.join(sorted({str(p.outcome) for p in pages}))})")
        return
    say(
        f"demo: Pave: {len(pages)} upload(s) finished; the latest mine ({mine.last_mine}) has"
        f" {mine.recurring_count} recurring expenses and {mine.ritual_count} rituals"
    )
    found = _get_json(app_url, f"/v1/users/{user_id}/transactions/expenses", token)
    say(f"demo: GET /v1/users/{user_id}/transactions/expenses (answered by {found['source']}):")
    for expense in found["expenses"]:
        say(
            f"  {expense['merchant_name'][:28]:<28} {expense['frequency']:<12} {_dollars(expense['amount']):>10}"
            f"  next {expense['next_date']}"
        )
    score = _get_json(app_url, f"/v1/users/{user_id}/scores/cash_advance", token)
    bands = ", ".join(
        f"${b['lowest_amount'] // 100}-{b['highest_amount'] // 100}: {b['score']}" for b in score["bands"]
    )
    say(f"demo: GET /v1/users/{user_id}/scores/cash_advance (score per advance range): {bands}")
    explanation = explain_score() if explain_score else None
    if explanation:
        say(f"demo: what drives the score (the fake Pave's rule): {explanation}")


def _get_json(app_url: str, path: str, token: str) -> Any:
    request = urllib.request.Request(app_url + path, headers={"Authorization": f"Bearer {token}"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())


def _dollars(cents: int) -> str:
    return f"${cents / 100:,.2f}"


#: The width of the forecast chart's longest bar, in characters.
CHART_WIDTH = 40


def show_forecast(app_url: str, token: str, user_id: str, say: Callable[[str], None], days: int = 14) -> None:
    """The user's cash-flow forecast as the API serves it, drawn as a text chart."""
    body = _get_json(app_url, f"/v1/users/{user_id}/forecast?days={days}", token)
    say(f"demo: GET /v1/users/{user_id}/forecast?days={days}:")
    for line in forecast_chart(body):
        say(f"  {line}")


def forecast_chart(body: dict[str, Any]) -> list[str]:
    """One line per projected day, a bar for its balance, the lowest day marked; then the events
    and the risks. Negative balances draw to the left of the zero line."""
    if body["confidence"] == "none":
        return [f"no forecast: {body['reason']}"]
    balances = [d["balance_cents"] for d in body["days"]]
    low, high = min(0, *balances), max(0, *balances)
    scale = CHART_WIDTH / max(1, high - low)
    zero = round(-low * scale)
    lowest = body["lowest"]
    lines = [
        f"{body['account_rule'].replace('_', ' ')} {body['account_id'][:8]}..., from"
        f" {_signed(body['starting_balance_cents'])} {body['balance_source']} on {body['as_of']}"
        f" (confidence {body['confidence']})"
    ]
    for day in body["days"]:
        cents = day["balance_cents"]
        bar = round(abs(cents) * scale)
        left = " " * (zero - bar) + "-" * bar if cents < 0 else " " * zero
        right = "" if cents < 0 else "#" * bar
        mark = "  <- lowest" if day["date"] == lowest["date"] else ""
        when = date.fromisoformat(day["date"]).strftime("%a %m-%d")
        lines.append(f"{when} {_signed(cents):>12} {left}|{right}{mark}")
    dated = sorted((e for e in body["events"] if e["date"] is not None), key=lambda e: (e["date"], e["kind"]))
    width = max((len(e["kind"]) for e in dated), default=0)
    for event in dated:
        lines.append(
            f"{event['date']}  {event['kind']:<{width}} {_signed(event['amount_cents']):>12}  {event['name'] or ''}"
            f" ({event['source']})"
        )
    for event in body["events"]:
        if event["kind"] == "everyday_spending":
            lines.append(f"everyday spending {_dollars(-event['amount_cents'])} a day ({event['source']})")
    risk = f"risk of going below $0 before the next payday ({body['next_payday']}): {body['risk_below_zero']:.0%}"
    if body["risk_below_threshold"] is not None:
        risk += f"; below the {_dollars(body['threshold_cents'])} alert threshold: {body['risk_below_threshold']:.0%}"
    lines.append(risk)
    return lines


def _signed(cents: int) -> str:
    return f"-{_dollars(-cents)}" if cents < 0 else _dollars(cents)
