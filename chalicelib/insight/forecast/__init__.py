"""Cash-flow forecast: the main checking account's balance, day by day, until after payday.

:func:`forecast` is pure (no I/O) like ``payday.predict`` and ``recurring.detect``, so it is
evaluated offline on the same inputs the service gives it. It projects one account (the
main checking account, :mod:`.accounts`) from its balance today:

* **paydays** (:mod:`.income`): the payday model's dates, the payer's own paycheck amounts;
* **bills** (:mod:`.bills`): the recurring streams (given, e.g. Pave's; else the service's own
  detector), each on its next charge days, when this account pays them;
* **flows tied to payday** (:mod:`.payday_flows`): another app's advance a few days before
  payday, collected the day the paycheck lands, at their lead before the projected paydays;
* **flows on a rhythm** (:mod:`.rhythms`): deposits of other payers and transfers that come on
  a rhythm of their own, on their days;
* **everyday money** (:mod:`.spending`): a daily spending rate with a weekday pattern
  (without bills, transfers and one-off large purchases), and the other flows' net rate;
* **uncertainty** (:mod:`.simulate`): a seeded Monte Carlo that draws spending days from the
  history's own, paychecks and varying bills from their recent amounts, and the payday from
  the payday model's confidence, which gives ``risk``.

No forecast is made (``confidence: none`` and the ``reason``) for a user with less than
``MIN_HISTORY_DAYS`` of history, without a payday prediction, without a spending account or
without a balance on it: a forecast needs to know when the money comes in.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any

from chalicelib.errors import ValidationError
from chalicelib.insight import recurring
from chalicelib.insight.forecast.accounts import AccountBalance, choose, parse_accounts
from chalicelib.insight.forecast.bills import Bill, BillCharge, bill_of, project
from chalicelib.insight.forecast.income import alternative_readings, income, payday_dates, shifted
from chalicelib.insight.forecast.payday_flows import LEAD_DAYS, PaydayFlow, tied_to_payday
from chalicelib.insight.forecast.rhythms import Rhythm, rhythms
from chalicelib.insight.forecast.simulate import PATHS, simulate
from chalicelib.insight.forecast.spending import DailyFlows, daily_flows
from chalicelib.insight.payday import ChainResult, predict_visible
from chalicelib.insight.transactions import Txn, parse, visible_of

__all__ = ["Bill", "DayBalance", "Event", "Forecast", "InvalidForecastError", "bill_of", "forecast", "forecast_txns"]

DEFAULT_DAYS = 14
MAX_DAYS = 35
#: Less history than this gives no forecast.
MIN_HISTORY_DAYS = 30
#: Confidence levels: (name, least payday confidence, least days of history), best first.
CONFIDENCE_LEVELS = (("high", 0.8, 90), ("medium", 0.5, 60))
NONE = "none"
#: The payday model's other readings are drawn when their first payday is at most this far ahead.
_READINGS_AHEAD = timedelta(days=45)
#: The source of what the forecast reads from the account's own history (rates, rhythms).
RHYTHM_SOURCE = "history"
_WEEKDAYS = ("MON", "TUE", "WED", "THU", "FRI", "SAT", "SUN")


class InvalidForecastError(ValidationError):
    """A forecast asked for with arguments outside the contract."""


@dataclass(frozen=True, slots=True)
class DayBalance:
    date: date
    balance_cents: int

    def to_dict(self) -> dict[str, Any]:
        return {"date": self.date.isoformat(), "balance_cents": self.balance_cents}


@dataclass(frozen=True, slots=True)
class Event:
    """Something expected behind the projection. ``amount_cents`` is its effect on the
    balance (a paycheck positive, a bill negative); everyday money has no date: it is a daily
    rate (``weekday_cents``: the spending rate of each weekday, Monday first)."""

    kind: str  # payday, payday_deposit, payday_debit, bill, deposit, transfer, everyday_spending, other_flows
    source: str
    amount_cents: int
    date: date | None = None
    name: str | None = None
    frequency: str | None = None
    weekday_cents: tuple[int, ...] | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "source": self.source,
            "date": self.date.isoformat() if self.date else None,
            "amount_cents": self.amount_cents,
            "name": self.name,
            "frequency": self.frequency,
            "weekday_cents": dict(zip(_WEEKDAYS, self.weekday_cents, strict=True)) if self.weekday_cents else None,
        }


@dataclass(frozen=True)
class Forecast:
    """A forecast; with ``confidence`` ``none`` only ``reason`` (and what was known) is set."""

    as_of: date
    confidence: str
    reason: str | None = None
    days: tuple[DayBalance, ...] = ()
    lowest: DayBalance | None = None
    #: The 10th and 90th percentiles of the simulated lowest balance over ``days``.
    lowest_range: tuple[int, int] | None = None
    risk_below_zero: float | None = None
    risk_below_threshold: float | None = None
    #: The probability of going below the threshold on some day of ``days`` (whatever the payday).
    risk_below_threshold_in_days: float | None = None
    threshold_cents: int | None = None
    account_id: str | None = None
    account_rule: str | None = None
    starting_balance_cents: int | None = None
    balance_source: str | None = None
    next_payday: date | None = None
    payday_confidence: float | None = None
    events: tuple[Event, ...] = field(default_factory=tuple)

    def to_dict(self) -> dict[str, Any]:
        return {
            "as_of": self.as_of.isoformat(),
            "confidence": self.confidence,
            "reason": self.reason,
            "account_id": self.account_id,
            "account_rule": self.account_rule,
            "starting_balance_cents": self.starting_balance_cents,
            "balance_source": self.balance_source,
            "days": [d.to_dict() for d in self.days],
            "lowest": self.lowest.to_dict() if self.lowest else None,
            "lowest_range": list(self.lowest_range) if self.lowest_range else None,
            "risk_below_zero": self.risk_below_zero,
            "risk_below_threshold": self.risk_below_threshold,
            "risk_below_threshold_in_days": self.risk_below_threshold_in_days,
            "threshold_cents": self.threshold_cents,
            "next_payday": self.next_payday.isoformat() if self.next_payday else None,
            "payday_confidence": self.payday_confidence,
            "events": [e.to_dict() for e in self.events],
        }


def forecast(
    transactions: list[dict[str, Any]],
    accounts: list[dict[str, Any]],
    as_of: date,
    days: int = DEFAULT_DAYS,
    threshold_cents: int | None = None,
    *,
    bills: Iterable[Bill] | None = None,
    main_account_id: str | None = None,
    payday: ChainResult | None = None,
    paths: int = PATHS,
) -> Forecast:
    """The projected balance of the user's main checking account for ``days`` days after
    ``as_of`` (see the module docstring).

    ``transactions``: API-shaped dicts, as for ``payday.predict`` (only those dated on or
    before ``as_of`` are read); ``accounts``: dicts with ``account_id``, ``type``,
    ``subtype``, ``available`` and ``current`` (integer cents as of ``as_of``, or None);
    ``threshold_cents``: the user's alert threshold (None: no ``risk_below_threshold``);
    ``bills``: the recurring streams to project (None: the service's own detector runs on
    ``transactions``); ``main_account_id``: the account the service designates as main;
    ``payday``: ``payday.predict(transactions, as_of)`` when the caller already has it.
    Raises :class:`InvalidForecastError` for ``days`` outside 1-35, and the input contracts'
    errors for malformed transactions or accounts.
    """
    _check(days, threshold_cents)
    parsed = parse_accounts(accounts)
    return _forecast(
        [parse(raw) for raw in transactions],  # once, for the payday model and the detector too
        parsed,
        as_of,
        days,
        threshold_cents,
        bills=bills,
        main_account_id=main_account_id,
        payday=payday,
        paths=paths,
    )


def forecast_txns(
    txns: Sequence[Txn],
    accounts: list[dict[str, Any]],
    as_of: date,
    days: int = DEFAULT_DAYS,
    threshold_cents: int | None = None,
    *,
    bills: Iterable[Bill] | None = None,
    main_account_id: str | None = None,
    payday: ChainResult | None = None,
    paths: int = PATHS,
) -> Forecast:
    """:func:`forecast` of transactions already parsed: the service's own path, which makes the
    models' :class:`Txn` values from its stored rows without an API-shaped dict between."""
    _check(days, threshold_cents)
    return _forecast(
        txns,
        parse_accounts(accounts),
        as_of,
        days,
        threshold_cents,
        bills=bills,
        main_account_id=main_account_id,
        payday=payday,
        paths=paths,
    )


def _check(days: object, threshold_cents: object) -> None:
    if isinstance(days, bool) or not isinstance(days, int) or not 1 <= days <= MAX_DAYS:
        raise InvalidForecastError(f"days must be an integer from 1 to {MAX_DAYS}, got {days!r}")
    if threshold_cents is not None and (isinstance(threshold_cents, bool) or not isinstance(threshold_cents, int)):
        raise InvalidForecastError(f"threshold_cents must be integer cents or None, got {threshold_cents!r}")


def _forecast(
    txns: Sequence[Txn],
    parsed: Sequence[AccountBalance],
    as_of: date,
    days: int,
    threshold_cents: int | None,
    *,
    bills: Iterable[Bill] | None,
    main_account_id: str | None,
    payday: ChainResult | None,
    paths: int,
) -> Forecast:
    seen = visible_of(txns, as_of, include_pending=True)
    settled = [t for t in seen if not t.pending]
    none = _NoForecast(as_of, threshold_cents)
    history_days = (as_of - min(t.day for t in settled)).days + 1 if settled else 0
    if history_days < MIN_HISTORY_DAYS:
        return none(f"{history_days} days of history, {MIN_HISTORY_DAYS} needed")
    for_models = visible_of(txns, as_of)
    chain = payday or predict_visible(for_models, as_of)
    if chain.next_payday is None:
        return none(f"no payday prediction: {chain.reason or 'no income found'}")
    choice = choose(parsed, settled, chain.filtered_txns, as_of, main_account_id)
    if choice is None:
        return none("no checking account to project")
    balance = choice.account.balance
    if balance is None:
        return none(f"no balance reported for account {choice.account.account_id}", choice.account.account_id)
    account_id = choice.account.account_id
    start, source = balance
    # Simulated until the answer's payday a business day late, or another reading's first one.
    firsts = [d[0] for _, d in alternative_readings(chain, chain.confidence, as_of + _READINGS_AHEAD)]
    last_landing = max([shifted(chain.next_payday, 1), *firsts])
    horizon = max(days, (last_landing - as_of).days)
    until = as_of + timedelta(days=horizon)
    pay = income(chain, account_id, as_of, until)
    streams = (
        list(bills)
        if bills is not None
        else [bill_of(s, "ours") for s in recurring.detect_visible(for_models, as_of, account_id=account_id)]
    )
    projected = project(streams, settled, account_id, as_of, until)
    history_start = as_of - timedelta(days=history_days - 1)
    mine = [t for t in seen if t.account_id == account_id]
    landed = {t.day for t in mine if t.txn_id in pay.deposit_ids}
    tied = tied_to_payday(mine, landed, pay.deposit_ids | projected.charge_ids)
    explained = pay.deposit_ids.union(projected.charge_ids, *(x.ids for x in tied))
    regular = rhythms(mine, as_of, explained)
    flows = daily_flows(mine, history_start, as_of, explained.union(*(r.ids for r in regular)))
    on_payday = [x for x in tied if x.lead == 0]
    charges = sorted(
        [
            *projected.charges,
            *_rhythm_charges(regular, as_of, until),
            *_led_charges([x for x in tied if x.lead], chain, as_of, until),
        ],
        key=lambda c: (c.day, c.bill.name),
    )
    simulation = simulate(
        as_of=as_of,
        start=start,
        horizon=horizon,
        days=days,
        flows=flows,
        bills=charges,
        paydays=pay.paydays,
        on_payday=[x.amounts for x in on_payday],
        payday_confidence=pay.confidence,
        alternatives=pay.alternatives,
        threshold=threshold_cents,
        seed=f"forecast:{as_of.isoformat()}:{account_id}:{start}:{threshold_cents}",
        paths=paths,
    )
    path = _expected_path(as_of, start, days, flows, charges, pay.paydays, on_payday)
    end = as_of + timedelta(days=days)
    events = [
        *(
            Event("payday", chain.detection_used.value, p.amount, p.day, pay.payer, pay.cadence)
            for p in pay.paydays
            if p.day <= end and p.amount
        ),
        *(
            Event(x.kind, RHYTHM_SOURCE, -round(x.expected), p.day, x.name, pay.cadence)
            for p in pay.paydays
            if p.day <= end
            for x in on_payday
        ),
        *(_bill_event(c) for c in charges if c.day <= end),
        Event(
            "everyday_spending",
            "history",
            -round(flows.spending_rate),
            weekday_cents=tuple(round(r) for r in flows.weekday_spending),
        ),
        Event("other_flows", "history", -round(flows.other_rate)),
    ]
    low, _, high = simulation.lowest_quantiles
    return Forecast(
        as_of=as_of,
        confidence=_confidence(pay.confidence, history_days),
        days=tuple(path),
        lowest=min(path, key=lambda d: (d.balance_cents, d.date)),
        lowest_range=(low, high),
        risk_below_zero=simulation.risk_below_zero,
        risk_below_threshold=simulation.risk_below_threshold,
        risk_below_threshold_in_days=simulation.threshold_within_days,
        threshold_cents=threshold_cents,
        account_id=account_id,
        account_rule=choice.rule.value,
        starting_balance_cents=start,
        balance_source=source,
        next_payday=chain.next_payday,
        payday_confidence=round(pay.confidence, 3),
        events=tuple(events),
    )


@dataclass(frozen=True)
class _NoForecast:
    as_of: date
    threshold_cents: int | None

    def __call__(self, reason: str, account_id: str | None = None) -> Forecast:
        return Forecast(self.as_of, NONE, reason, threshold_cents=self.threshold_cents, account_id=account_id)


def _bill_event(charge: BillCharge) -> Event:
    bill = charge.bill
    kind = bill.kind if bill.source == RHYTHM_SOURCE and bill.kind else "bill"
    return Event(kind, bill.source, -charge.amount, charge.day, bill.name, bill.frequency)


def _rhythm_charges(regular: Sequence[Rhythm], as_of: date, until: date) -> list[BillCharge]:
    """Flows on a rhythm as dated charges (a deposit's amount negative): ``deposit`` or ``transfer`` events."""
    out = []
    for rhythm in regular:
        kind = "deposit" if rhythm.amount < 0 else "transfer"
        bill = Bill(rhythm.name, rhythm.frequency, rhythm.amount, rhythm.last, RHYTHM_SOURCE, kind=kind)
        out += [BillCharge(bill, day, rhythm.amount, (), rhythm.offsets) for day in rhythm.days(as_of, until)]
    return out


def _led_charges(led: Sequence[PaydayFlow], chain: ChainResult, as_of: date, until: date) -> list[BillCharge]:
    """Flows that lead payday as dated charges at their lead before each predicted payday (those
    of paydays just after ``until`` too), one of their recent amounts drawn."""
    if not led:
        return []
    paydays = payday_dates(chain, as_of, until + timedelta(days=LEAD_DAYS))
    out = []
    for flow in led:
        days = [day for day in map(flow.day, paydays) if as_of < day <= until]
        if days:
            amount = round(flow.expected)
            bill = Bill(flow.name, chain.cadence, amount, days[0], RHYTHM_SOURCE, kind=flow.kind)
            out += [BillCharge(bill, day, amount, flow.amounts) for day in days]
    return out


def _expected_path(
    as_of: date,
    start: int,
    days: int,
    flows: DailyFlows,
    bills: Sequence[BillCharge],
    paydays: Sequence[Any],
    on_payday: Sequence[PaydayFlow],
) -> list[DayBalance]:
    """Day by day: everyday money at its rates, bills (and flows at their own days) at their
    averages, paychecks on the predicted day with the flows on payday at their means."""
    due: dict[date, float] = {}
    for charge in bills:
        due[charge.day] = due.get(charge.day, 0) - charge.amount
    for payday in paydays:
        due[payday.day] = due.get(payday.day, 0) + payday.amount
        for flow in on_payday:
            due[payday.day] -= flow.expected
    balance = float(start)
    out: list[DayBalance] = []
    for k in range(1, days + 1):
        day = as_of + timedelta(days=k)
        balance += due.get(day, 0) - flows.expected(day)
        out.append(DayBalance(day, round(balance)))
    return out


def _confidence(payday_confidence: float, history_days: int) -> str:
    for name, least_confidence, least_days in CONFIDENCE_LEVELS:
        if payday_confidence >= least_confidence and history_days >= least_days:
            return name
    return "low"
