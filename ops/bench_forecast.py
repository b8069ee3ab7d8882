"""Cash-flow forecast, backtested: the forecast against what each synthetic world's own later
transactions did to the balance, next to a naive baseline.

**Worlds.** The payday generators write a history and ten weeks or more after ``as_of``:
generator A (:mod:`ops.synthetic.users`, the world the forecast was tuned on), generator B
(:mod:`ops.synthetic.holdout`, written separately, never tuned on: no bills, other payers,
other spending) and generator C (:mod:`ops.synthetic.phenomena`, written apart from both from a
list of payroll phenomena, with a feed of its own around them; never run by the forecast
before its figures were printed) and generator D (:mod:`ops.synthetic.blind_payday`, written
blind by an author who saw neither the models nor the other worlds; :func:`blind_generate`).
Each user is forecast from three as-of days: the generator's ``as_of`` and 14 and 28 days after
it (D: 10 and 21, its feed ending 35 days after; history: the 120 days ending there). A card purchase the generator
flagged pending stays pending at the later days; the forecast counts pending purchases as
spending and the payday model and the bill detector ignore them, as they do at any day.

**Accounts and starting balances.** An account is checking unless its id names it savings
(``sav``) or a credit card (``cc``). Each account's balance at the as-of day (its available
balance, pending purchases already deducted) is drawn, per world, user, account and day,
uniformly between 0 and one month of the account's own outflows in the history (its money
out over the history, per 30.4 days; $1,000 for an account with none). The threshold is drawn
from $50, $100 and $250. The true balance on each later day is that balance minus the
account's transactions dated after the as-of day, to that day (pending or not).

**What is compared**, for users the forecast answers (the others are counted):

* the 14-day **lowest balance**: the forecast's ``lowest`` against the true lowest end-of-day
  balance of days 1-14, as an absolute error in dollars and as a share of monthly income (the
  primary payer's deposits in the history, per 30.4 days); the **naive baseline** is today's
  balance minus the average daily net outflow of the history times the days (its lowest of
  days 1-14);
* **crosses the threshold within 14 days**: the forecast says so when its probability of going
  below the threshold on one of the 14 days exceeds the predicted alert's default level
  (``LOW_BALANCE_PREDICTION_LEVEL``; also shown: other levels, when its lowest is below the
  threshold, and the baseline: when its line is); precision and recall against the truth;
* **calibration** of ``risk_below_threshold`` by decile: the forecast's probability against
  how often the true balance went below the threshold from the next day to the true next
  payday (the primary payer's next deposit into the projected account), that day included;
  each observed rate with its 95% interval from resampling the user-days (a user-day's draws
  share its future, so they are not independent cases), and the Brier score of the risk beside
  that of one risk for every forecast. A forecast whose window to that payday
  runs past the end of its world's feed (D writes 35 days after its as-of day, so a monthly
  payday seen from its last as-of day is often beyond it) is left out and counted: what the
  balance did after the feed ends is unknown, and reading the feed's silence as days without
  spending would count crossings that were never observed as ones that did not happen;
* **where the truth fell in the forecast's distribution**, once per user-day (its first draw):
  the forecast's own probability that the balance goes lower before payday than the true
  lowest end-of-day balance before the true next payday did (its ``risk_below_threshold`` with
  that balance as the threshold: the probability integral transform; futures exactly as low
  count half). When the forecast's distribution is right, a tenth of the user-days fall in
  each tenth of it, whatever the thresholds drawn; apart for user-days whose payday the
  forecast has right and wrong, so that a spread too narrow or a mean too low is told from a
  payday missed. A mean above 0.5 says the balance stayed higher than forecast.

Goals: a median lowest-balance error at most half the baseline's, recall >= 0.85 at precision
>= 0.8, and every decile's observed rate within 5 points of its mean predicted risk.

Run: ``.venv/bin/python -m ops.bench_forecast`` (also part of ``make bench``); ``--world X`` for
one world; ``--users N`` for another count of users (``--users 1000``, about 3 minutes a world,
narrows the middle deciles' intervals from about 10 points either side to about 5: the
calibration goal is judged there); ``--choose-level`` chooses the alert level on generator A's
tuning seed: the level whose smaller margin over the two crossing goals is the largest.
"""

from __future__ import annotations

import argparse
import hashlib
import random
import statistics
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import date, timedelta
from functools import partial
from typing import Any

from chalicelib.insight import recurring
from chalicelib.insight.forecast import Forecast, bill_of, forecast
from chalicelib.insight.payday import predict
from chalicelib.settings import LOW_BALANCE_PREDICTION_LEVEL
from ops import bench_payday
from ops.cpu import per_call_ms, yardstick_ms
from ops.synthetic import blind_payday, holdout, phenomena, users
from ops.synthetic.users import SyntheticUser

HISTORY_DAYS = 120
HORIZON = 14
OFFSETS = (0, 14, 28)
THRESHOLDS = (50_00, 100_00, 250_00)
USERS_PER_WORLD = 250
#: Starting balances and thresholds drawn per user-day.
DRAWS = 10
#: The seed of generator A the forecast's few parameters were chosen on (``--world A --seed 5``).
TUNING_SEED = 5
#: Offsets for world D, whose feed ends 35 days after ``as_of``: the last leaves the horizon inside it.
BLIND_OFFSETS = (0, 10, 21)
#: World D's paychecks after ``as_of``: its primary's lines within this share of their median
#: amount (a bonus or a reimbursement under the employer's line is not the payday).
PAYCHECK_SPREAD = 0.5


def blind_generate(seed: int, count: int) -> list[SyntheticUser]:
    """World D's users (:func:`ops.bench_payday.blind_people`) as the forecast bench reads them:
    the main checking account's id names it checking and the others' savings (the only types
    a service would be told, which the world does not write down), and the primary's deposits
    after ``as_of`` known too, as those lines of the main account that print as the primary's
    did, references aside, at a paycheck's amount (the next payday after a later as-of day is
    one of them)."""
    out = []
    for person in bench_payday.blind_people(seed, count):
        facts = person.truth.facts
        main = facts.account if facts else ""
        ids = {
            a: f"{person.user_id}-chk" if a == main else f"{person.user_id}-{n}-sav"
            for n, a in enumerate(sorted({t["account_id"] for t in person.transactions}))
        }
        rows = tuple({**t, "account_id": ids[t["account_id"]]} for t in person.transactions)
        if facts is not None:
            paid = [t for t in person.transactions if t["txn_id"] in facts.primary_ids]
            lines = {_unreferenced(t["name"]) for t in paid}
            usual = statistics.median(-t["amount"] for t in paid) if paid else 0
            primary = frozenset(
                t["txn_id"]
                for t in person.transactions
                if t["account_id"] == main
                and t["amount"] < 0
                and _unreferenced(t["name"]) in lines
                and abs(-t["amount"] / usual - 1) <= PAYCHECK_SPREAD
            )
            facts = replace(facts, primary_ids=primary, account=ids[main])
        out.append(replace(person, transactions=rows, truth=replace(person.truth, facts=facts)))
    return out


def _unreferenced(line: str) -> str:
    return " ".join(w for w in line.upper().split() if not any(c.isdigit() for c in w))


WORLDS = (
    ("A", "generator A, a seed not tuned on (21)", users.generate, 21),
    ("B", "held-out generator B (never tuned on), seed 23", holdout.generate, 23),
    ("C", "held-out generator C (never tuned on), seed 29", phenomena.generate, 29),
    ("D", "generator D (written blind; never run by the forecast before these figures), seed 31", blind_generate, 31),
)
MEDIAN_ERROR_GOAL = 0.5
RECALL_GOAL, PRECISION_GOAL = 0.85, 0.8
CALIBRATION_POINTS = 0.05
#: The forecast says "crosses within 14 days" when its probability exceeds this: the predicted
#: alert's default level, chosen on generator A's tuning seed (``--choose-level``).
CROSSING_PROBABILITY = LOW_BALANCE_PREDICTION_LEVEL
#: Other levels printed beside it: the precision a lower alert level trades for recall.
TRADE_OFF_LEVELS = (0.3, 0.5, 0.6, 0.7)
#: The levels ``--choose-level`` weighs.
CANDIDATE_LEVELS = tuple(round(0.05 * n, 2) for n in range(4, 14))
DAYS_PER_MONTH = 30.4
#: Days after each world's ``as_of`` that its feed writes (B's generator takes A's). World D
#: writes further when the next payday comes later, to the day after it.
FEED_DAYS = {"A": users.FUTURE_DAYS, "B": users.FUTURE_DAYS, "C": phenomena.FUTURE_DAYS, "D": blind_payday.FUTURE_DAYS}


def _unit(*parts: object) -> float:
    """A uniform draw in [0, 1) fixed by ``parts`` (the same parts, the same draw, any process)."""
    digest = hashlib.sha256(":".join(map(str, parts)).encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def account_type(account_id: str) -> tuple[str, str]:
    if account_id.endswith("sav"):
        return "depository", "savings"
    if account_id.endswith("cc"):
        return "credit", "credit card"
    return "depository", "checking"


@dataclass(frozen=True)
class Case:
    """One user seen on one as-of day, with one draw of starting balances and threshold."""

    world: str
    user_id: str
    as_of: date
    draw: int
    transactions: list[dict[str, Any]]
    accounts: list[dict[str, Any]]
    threshold: int
    #: account id -> {day index 1..: cents out that day}
    futures: dict[str, dict[int, int]]
    primary_ids: frozenset[str]
    monthly_income: int
    #: Days after ``as_of`` the world's feed covers: what happens to the balance later is unknown.
    known_days: int


def _monthly_out(rows: Sequence[dict[str, Any]], days: int) -> int:
    out: int = sum(int(t["amount"]) for t in rows if t["amount"] > 0)
    return round(out * DAYS_PER_MONTH / days)


def feed_end(world: str, person: SyntheticUser) -> date:
    """The last day ``person``'s world writes transactions for (a day without any inside it is a
    day the account did not move; after it, nothing is known)."""
    end = person.as_of + timedelta(days=FEED_DAYS.get(world, users.FUTURE_DAYS))
    payday = person.truth.next_payday
    if world == "D" and payday is not None and payday > end:
        end = payday + timedelta(days=1)
    return end


def make_cases(world: str, person: SyntheticUser, offset: int, draws: int) -> list[Case]:
    """``draws`` cases of ``person`` seen ``offset`` days after the generator's as-of day."""
    as_of = person.as_of + timedelta(days=offset)
    known_days = (feed_end(world, person) - as_of).days
    first = as_of - timedelta(days=HISTORY_DAYS - 1)
    rows = [t for t in person.transactions if t["date"] >= first.isoformat()]
    seen = [t for t in rows if t["date"] <= as_of.isoformat()]
    account_ids = sorted({t["account_id"] for t in rows})
    futures: dict[str, dict[int, int]] = {a: {} for a in account_ids}
    for t in rows:
        day = date.fromisoformat(t["date"])
        if day > as_of:
            flows = futures[t["account_id"]]
            flows[(day - as_of).days] = flows.get((day - as_of).days, 0) + t["amount"]
    months = {a: _monthly_out([t for t in seen if t["account_id"] == a], HISTORY_DAYS) or 1_000_00 for a in account_ids}
    facts = person.truth.facts
    primary = facts.primary_ids if facts else frozenset()
    income = round(-sum(t["amount"] for t in seen if t["txn_id"] in primary) * DAYS_PER_MONTH / HISTORY_DAYS)
    cases = []
    for draw in range(draws):
        accounts = []
        for account_id in account_ids:
            kind, subtype = account_type(account_id)
            balance = round(_unit(world, person.user_id, account_id, offset, draw) * months[account_id])
            accounts.append(
                {"account_id": account_id, "type": kind, "subtype": subtype, "available": balance, "current": balance}
            )
        threshold = THRESHOLDS[int(_unit("threshold", world, person.user_id, offset, draw) * len(THRESHOLDS))]
        cases.append(
            Case(world, person.user_id, as_of, draw, rows, accounts, threshold, futures, primary, income, known_days)
        )
    return cases


def start_balance(case: Case, account_id: str) -> int:
    return int(next(a["available"] for a in case.accounts if a["account_id"] == account_id))


def true_balances(case: Case, account_id: str, days: int) -> list[int]:
    """End-of-day balances of days 1..``days`` of ``account_id``."""
    balance = start_balance(case, account_id)
    flows = case.futures[account_id]
    out = []
    for k in range(1, days + 1):
        balance -= flows.get(k, 0)
        out.append(balance)
    return out


def true_payday(case: Case, account_id: str) -> int | None:
    """Days from as_of to the primary payer's next deposit into ``account_id``."""
    days = [
        (date.fromisoformat(t["date"]) - case.as_of).days
        for t in case.transactions
        if t["txn_id"] in case.primary_ids and t["account_id"] == account_id and t["date"] > case.as_of.isoformat()
    ]
    return min(days) if days else None


def naive_lowest(case: Case, account_id: str) -> int:
    """Today's balance minus the history's average daily net outflow times the days (lowest of 1-14)."""
    balance = start_balance(case, account_id)
    first = case.as_of - timedelta(days=HISTORY_DAYS - 1)
    net: int = sum(
        int(t["amount"])
        for t in case.transactions
        if t["account_id"] == account_id and first.isoformat() <= t["date"] <= case.as_of.isoformat()
    )
    rate = net / HISTORY_DAYS
    return round(min(balance - rate * d for d in range(1, HORIZON + 1)))


@dataclass
class Outcome:
    case: Case
    forecast: Forecast
    true_lowest: int | None = None
    model_lowest: int | None = None
    naive_lowest: int | None = None
    #: True when the true balance went below the threshold before the true next payday.
    crossed_before_payday: bool | None = None
    #: The window to the next payday outlasts the world's feed: whether it crossed is unknown.
    censored: bool = False
    #: The forecast's probability of a balance below the true lowest one before the true next
    #: payday (a user-day's first draw only), and whether its next payday was the true one.
    pit: float | None = None
    payday_right: bool | None = None


@dataclass
class Result:
    outcomes: list[Outcome] = field(default_factory=list)
    #: CPU per user-day of the payday model and of our bill detector (run once per user-day,
    #: then given to every draw's forecast), and of each forecast given them.
    predict_seconds: list[float] = field(default_factory=list)
    detect_seconds: list[float] = field(default_factory=list)
    forecast_seconds: list[float] = field(default_factory=list)

    @property
    def answered(self) -> list[Outcome]:
        return [o for o in self.outcomes if o.model_lowest is not None]


def _timed(run: Callable[[], Any]) -> tuple[Any, float]:
    started = time.process_time()
    value = run()
    return value, time.process_time() - started


def score(case: Case, answer: Forecast) -> Outcome:
    outcome = Outcome(case, answer)
    if answer.confidence != "none" and answer.account_id and answer.lowest:
        account = answer.account_id
        balances = true_balances(case, account, 45)
        outcome.true_lowest = min(balances[:HORIZON])
        outcome.model_lowest = answer.lowest.balance_cents
        outcome.naive_lowest = naive_lowest(case, account)
        payday = window_to_payday(case, account, answer)
        if payday is not None and payday > case.known_days:
            outcome.censored = True
        elif payday is not None and payday >= 1:
            outcome.crossed_before_payday = min(balances[:payday]) < case.threshold
    return outcome


def window_to_payday(case: Case, account_id: str, answer: Forecast) -> int | None:
    """Days from as_of to the true next payday into ``account_id`` (the forecast's, when the
    world shows none there)."""
    payday = true_payday(case, account_id)
    if payday is None and answer.next_payday is not None:
        payday = (answer.next_payday - case.as_of).days
    return payday


def probability_integral(outcome: Outcome, ask: Callable[[int], Forecast]) -> Outcome:
    """``outcome`` with where its truth fell in its forecast's distribution (``pit``; module
    docstring); ``ask`` forecasts the case again with another threshold."""
    case, answer = outcome.case, outcome.forecast
    if outcome.model_lowest is None or not answer.account_id or answer.next_payday is None:
        return outcome
    payday = window_to_payday(case, answer.account_id, answer)
    if payday is None or not 1 <= payday <= case.known_days:
        return outcome
    lowest = min(true_balances(case, answer.account_id, payday))
    below, at_most = (ask(threshold).risk_below_threshold or 0.0 for threshold in (lowest, lowest + 1))
    actual = true_payday(case, answer.account_id)
    right = None if actual is None else answer.next_payday == case.as_of + timedelta(days=actual)
    # (the middle of the futures as low as the truth: an account that did not move, and whose
    # history never did, is forecast to stay where it is, and the truth ties every future)
    return replace(outcome, pit=(below + at_most) / 2, payday_right=right)


def evaluate(groups: Sequence[Sequence[Case]]) -> Result:
    """Forecast every case; the draws of one user-day share its payday prediction and bills
    (the forecast's result is the same as computing them inside it)."""
    result = Result()
    for cases in groups:
        first = cases[0]
        seen = [t for t in first.transactions if t["date"] <= first.as_of.isoformat()]
        chain, predicting = _timed(partial(predict, seen, first.as_of))
        detected, detecting = _timed(partial(recurring.detect, seen, first.as_of))
        streams = [bill_of(s, "ours") for s in detected]
        result.predict_seconds.append(predicting)
        result.detect_seconds.append(detecting)
        for case in cases:
            answer, seconds = _timed(
                partial(forecast, seen, case.accounts, case.as_of, HORIZON, case.threshold, bills=streams, payday=chain)
            )
            result.forecast_seconds.append(seconds)
            outcome = score(case, answer)
            if case is first:  # (the threshold is the fifth argument)
                again = partial(forecast, seen, case.accounts, case.as_of, HORIZON, bills=streams, payday=chain)
                outcome = probability_integral(outcome, again)
            result.outcomes.append(outcome)
    return result


def _pct(value: float) -> str:
    return f"{100 * value:5.1f}%"


def _quantile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


@dataclass(frozen=True)
class Figures:
    n: int
    model_median: float
    model_p90: float
    naive_median: float
    naive_p90: float
    model_share_median: float
    naive_share_median: float
    model_share_p90: float
    naive_share_p90: float
    precision: float
    recall: float
    lowest_precision: float
    lowest_recall: float
    naive_precision: float
    naive_recall: float
    #: (level, precision, recall) of "crosses" said from each of ``TRADE_OFF_LEVELS``
    trade_off: tuple[tuple[float, float, float], ...]
    #: (low, high, n, mean predicted, observed, and the observed rate's 95% interval)
    deciles: tuple[tuple[float, float, int, float, float, float, float], ...]
    #: The Brier score of the risk (mean squared error against what happened), and of one
    #: risk for every forecast, the observed rate (the score that knowing nothing earns).
    brier: float = 0.0
    brier_base_rate: float = 0.0
    #: Per "payday right" / "payday wrong": user-days, the share of them in each tenth of the
    #: forecast's distribution, and their mean place in it (see the module docstring).
    placed: tuple[tuple[str, int, tuple[float, ...], float], ...] = ()

    @property
    def calibrated(self) -> bool:
        return all(abs(p - o) <= CALIBRATION_POINTS for _, _, n, p, o, _, _ in self.deciles if n)

    @property
    def outside(self) -> list[str]:
        """The deciles whose mean risk is outside the 95% interval of their observed rate."""
        return [f"[{low:.1f}, {high:.1f})" for low, high, n, p, _, lo, hi in self.deciles if n and not lo <= p <= hi]

    @property
    def meets(self) -> dict[str, bool]:
        return {
            "median error <= half the baseline's": self.model_median <= MEDIAN_ERROR_GOAL * self.naive_median,
            f"recall >= {RECALL_GOAL} at precision >= {PRECISION_GOAL}": self.recall >= RECALL_GOAL
            and self.precision >= PRECISION_GOAL,
            f"risk within {CALIBRATION_POINTS * 100:.0f} points per decile": self.calibrated,
        }


def _says_crossing(answer: Forecast, level: float = CROSSING_PROBABILITY) -> bool:
    """The forecast says the balance crosses the threshold within the days: its probability
    exceeds ``level`` (as the predicted alert's does)."""
    return (answer.risk_below_threshold_in_days or 0.0) > level


def _precision_recall(pairs: Sequence[tuple[bool, bool]]) -> tuple[float, float]:
    tp = sum(1 for said, was in pairs if said and was)
    said = sum(1 for s, _ in pairs if s)
    was = sum(1 for _, w in pairs if w)
    return (tp / said if said else 0.0), (tp / was if was else 0.0)


def level_margin(precision: float, recall: float) -> float:
    """How far a level is from failing either goal: the smaller of its two margins."""
    return min(precision - PRECISION_GOAL, recall - RECALL_GOAL)


def choose_level(
    result: Result, levels: Sequence[float] = CANDIDATE_LEVELS
) -> tuple[float, list[tuple[float, float, float]]]:
    """The level with the largest :func:`level_margin` (the higher one of a tie: fewer alerts),
    and each level's precision and recall."""
    grid = _level_grid(result.answered, levels)
    best = max(grid, key=lambda g: (round(level_margin(g[1], g[2]), 6), g[0]))
    return best[0], grid


def _level_grid(answered: Sequence[Outcome], levels: Sequence[float]) -> list[tuple[float, float, float]]:
    """Each level's precision and recall of "crosses the threshold within the days"."""
    truth = [o.true_lowest < o.case.threshold for o in answered]  # type: ignore[operator]
    return [
        (
            level,
            *_precision_recall(
                [(_says_crossing(o.forecast, level), was) for o, was in zip(answered, truth, strict=True)]
            ),
        )
        for level in levels
    ]


def _decile(risk: float) -> int:
    return min(9, int(risk * 10))


#: Resamples of the user-days for the deciles' intervals.
RESAMPLES = 400


def _decile_intervals(scored: Sequence[tuple[float, bool, object]]) -> list[tuple[float, float]]:
    """Each decile's 95% interval of its observed rate, the user-days resampled with replacement
    (a cluster bootstrap): a user-day's draws share its future, so they are not independent
    cases, and an interval that counted them so would be too narrow."""
    cells: dict[object, list[list[int]]] = {}
    for risk, crossed, user_day in scored:
        cell = cells.setdefault(user_day, [[0, 0] for _ in range(10)])[_decile(risk)]
        cell[0] += 1
        cell[1] += int(crossed)
    clusters = list(cells.values())
    rng = random.Random(len(scored))  # noqa: S311 - a reproducible resampling
    rates: list[list[float]] = [[] for _ in range(10)]
    for _ in range(RESAMPLES):
        counts, crossings = [0] * 10, [0] * 10
        for cluster in rng.choices(clusters, k=len(clusters)):
            for n, (count, hits) in enumerate(cluster):
                counts[n] += count
                crossings[n] += hits
        for n in range(10):
            if counts[n]:
                rates[n].append(crossings[n] / counts[n])
    return [(_quantile(r, 0.025), _quantile(r, 0.975)) if r else (0.0, 1.0) for r in rates]


def figures(result: Result) -> Figures:
    answered = result.answered
    model_errors = [abs(o.model_lowest - o.true_lowest) / 100 for o in answered]  # type: ignore[operator]
    naive_errors = [abs(o.naive_lowest - o.true_lowest) / 100 for o in answered]  # type: ignore[operator]
    paid = [o for o in answered if o.case.monthly_income > 0]
    model_share = [abs(o.model_lowest - o.true_lowest) / o.case.monthly_income for o in paid]  # type: ignore[operator]
    naive_share = [abs(o.naive_lowest - o.true_lowest) / o.case.monthly_income for o in paid]  # type: ignore[operator]
    crossings = [(_says_crossing(o.forecast), o.true_lowest < o.case.threshold) for o in answered]  # type: ignore[operator]
    lowest_says = [(o.model_lowest < o.case.threshold, o.true_lowest < o.case.threshold) for o in answered]  # type: ignore[operator]
    naive_crossings = [(o.naive_lowest < o.case.threshold, o.true_lowest < o.case.threshold) for o in answered]  # type: ignore[operator]
    precision, recall = _precision_recall(crossings)
    lowest_precision, lowest_recall = _precision_recall(lowest_says)
    naive_precision, naive_recall = _precision_recall(naive_crossings)
    trade_off = tuple(_level_grid(answered, TRADE_OFF_LEVELS))
    scored = [
        (o.forecast.risk_below_threshold, o.crossed_before_payday, (o.case.user_id, o.case.as_of))
        for o in answered
        if o.forecast.risk_below_threshold is not None and o.crossed_before_payday is not None
    ]
    intervals = _decile_intervals(scored)
    deciles = []
    for n in range(10):
        low, high = n / 10, (n + 1) / 10
        group = [(p, c) for p, c, _ in scored if _decile(p) == n]
        mean = statistics.fmean(p for p, _ in group) if group else 0.0
        observed = sum(1 for _, c in group if c) / len(group) if group else 0.0
        deciles.append((low, high, len(group), mean, observed, *intervals[n]))
    rate = sum(1 for _, c, _ in scored if c) / len(scored) if scored else 0.0
    return Figures(
        n=len(answered),
        model_median=statistics.median(model_errors),
        model_p90=_quantile(model_errors, 0.9),
        naive_median=statistics.median(naive_errors),
        naive_p90=_quantile(naive_errors, 0.9),
        model_share_median=statistics.median(model_share),
        naive_share_median=statistics.median(naive_share),
        model_share_p90=_quantile(model_share, 0.9),
        naive_share_p90=_quantile(naive_share, 0.9),
        precision=precision,
        recall=recall,
        lowest_precision=lowest_precision,
        lowest_recall=lowest_recall,
        naive_precision=naive_precision,
        naive_recall=naive_recall,
        trade_off=trade_off,
        deciles=tuple(deciles),
        brier=statistics.fmean((p - c) ** 2 for p, c, _ in scored) if scored else 0.0,
        brier_base_rate=rate * (1 - rate),
        placed=placed(answered),
    )


def placed(answered: Sequence[Outcome]) -> tuple[tuple[str, int, tuple[float, ...], float], ...]:
    """Where the truths fell in their forecasts' distributions, apart by whether the payday was right."""
    out = []
    for label, right in (("payday right", True), ("payday wrong", False)):
        values = [o.pit for o in answered if o.pit is not None and o.payday_right is right]
        if values:
            tenths = Counter(min(9, int(v * 10)) for v in values)
            shares = tuple(tenths[n] / len(values) for n in range(10))
            out.append((label, len(values), shares, statistics.fmean(values)))
    return tuple(out)


def report(title: str, result: Result) -> Figures:
    found = figures(result)
    none = Counter(
        (o.forecast.reason or "").split(":")[0].split(",")[0]
        for o in result.outcomes
        if o.forecast.confidence == "none"
    )
    levels = Counter(o.forecast.confidence for o in result.outcomes)
    print(f"\n== {title}: {len(result.outcomes)} forecasts, {found.n} answered ==")
    print(f"   confidence: {', '.join(f'{k} {v}' for k, v in sorted(levels.items()))}")
    if none:
        print(f"   no forecast: {', '.join(f'{k} {v}' for k, v in none.most_common(4))}")
    print("   14-day lowest balance, absolute error      median        p90 | share of monthly income: median    p90")
    print(
        f"   forecast                               ${found.model_median:9,.0f} ${found.model_p90:9,.0f}"
        f" |                          {_pct(found.model_share_median)} {_pct(found.model_share_p90)}"
    )
    print(
        f"   naive baseline                         ${found.naive_median:9,.0f} ${found.naive_p90:9,.0f}"
        f" |                          {_pct(found.naive_share_median)} {_pct(found.naive_share_p90)}"
    )
    print(f"   ratio forecast / baseline (median)     {found.model_median / found.naive_median:9.2f}")
    print("   crosses the threshold within 14 days:")
    print(
        f"     forecast (its probability > {CROSSING_PROBABILITY:g})   precision {found.precision:.3f}"
        f" recall {found.recall:.3f}"
    )
    print(
        "       from other levels (precision / recall): "
        + ", ".join(f"{level:g}: {p:.3f} / {r:.3f}" for level, p, r in found.trade_off)
    )
    print(
        f"     forecast's lowest below it        precision {found.lowest_precision:.3f}"
        f" recall {found.lowest_recall:.3f}"
    )
    print(
        f"     naive baseline's line below it    precision {found.naive_precision:.3f} recall {found.naive_recall:.3f}"
    )
    print("   calibration of risk_below_threshold (below the threshold before the next payday):")
    censored = sum(1 for o in result.answered if o.censored)
    if censored:
        print(f"     left out: {censored} forecasts whose next payday comes after the world's feed ends")
    print("     decile        n  mean risk  observed (95% interval, user-days resampled)  difference")
    for low, high, n, mean, observed, lo, hi in found.deciles:
        if n:
            flag = "" if abs(mean - observed) <= CALIBRATION_POINTS else "  <- over 5 points"
            difference = 100 * (observed - mean)
            print(
                f"     [{low:.1f}, {high:.1f}) {n:5d}   {_pct(mean)}    {_pct(observed)} ({_pct(lo)}-{_pct(hi)})"
                f"  {difference:+6.1f}{flag}"
            )
    print(f"     Brier score {found.brier:.4f} (one risk for all, the observed rate: {found.brier_base_rate:.4f})")
    outside, shown = found.outside, sum(1 for row in found.deciles if row[2])
    print(
        f"     deciles whose mean risk is inside their observed rate's 95% interval: {shown - len(outside)} of {shown}"
        + (f" (outside: {', '.join(outside)})" if outside else "")
    )
    if found.placed:
        print("   where the true lowest before payday fell in the forecast's distribution (a user-day each;")
        print("   10% in each tenth when the distribution is right; mean 0.5):")
        for label, n, shares, mean in found.placed:
            print(f"     {label:13} {n:5d}  " + " ".join(f"{100 * x:4.1f}" for x in shares) + f"   mean {mean:.3f}")
    print("   goals: " + "; ".join(f"{goal} {'met' if ok else 'NOT met'}" for goal, ok in found.meets.items()))
    predicting, detecting, own = (
        1000 * statistics.median(x) for x in (result.predict_seconds, result.detect_seconds, result.forecast_seconds)
    )
    print(
        f"   CPU, medians over {len(result.predict_seconds)} user-days of 120 days: the payday model"
        f" {predicting:.1f} ms, our bill detector {detecting:.1f} ms, the forecast given both {own:.1f} ms"
    )
    return found


def typical_user(people: Sequence[SyntheticUser]) -> SyntheticUser:
    """A salaried biweekly user with the median number of transactions in 120 days."""
    pool = [p for p in people if p.archetype == "salaried" and p.truth.cadence == "BIWEEKLY"]
    median = statistics.median(len(p.visible()) for p in pool)
    return min(pool, key=lambda p: (abs(len(p.visible()) - median), p.user_id))


def cpu(people: Sequence[SyntheticUser], runs: int = 20) -> None:
    """CPU per forecast of a typical user: with our detector, with bills given (as when Pave's
    mine answers), and the forecast's own part (payday prediction and bills given)."""
    person = typical_user(people)
    [case, *_] = make_cases("cpu", person, 0, 1)
    seen = person.visible()
    chain = predict(seen, person.as_of)
    bills = [bill_of(s, "ours") for s in recurring.detect(seen, person.as_of)]
    variants: dict[str, Callable[[], Forecast]] = {
        "with our bill detector": partial(forecast, seen, case.accounts, person.as_of, HORIZON, case.threshold),
        "with bills given (Pave's)": partial(
            forecast, seen, case.accounts, person.as_of, HORIZON, case.threshold, bills=bills
        ),
        "its own part (payday and bills given)": partial(
            forecast, seen, case.accounts, person.as_of, HORIZON, case.threshold, bills=bills, payday=chain
        ),
    }
    figures = [f"{name} {per_call_ms(run, runs):.1f} ms" for name, run in variants.items()]
    print(f"\nCPU per forecast, a typical user of generator A ({len(seen)} transactions in 120 days):")
    print(f"   {'; '.join(figures)} (goal: <= 50 ms for a 120-day history)")
    print(f"   the least of three passes; CPU yardstick (one million squares summed) {yardstick_ms():.0f} ms")


def choose(count: int = USERS_PER_WORLD) -> int:
    """Choose the alert level on generator A's tuning seed and print how each level does there."""
    people = users.generate(TUNING_SEED, count)
    level, grid = choose_level(evaluate([make_cases("A", p, offset, DRAWS) for p in people for offset in OFFSETS]))
    print(f"Alert level on generator A's tuning seed {TUNING_SEED} ({count} users): precision / recall, margin")
    for candidate, precision, recall in grid:
        mark = "  <- chosen" if candidate == level else ""
        print(f"   {candidate:.2f}: {precision:.3f} / {recall:.3f}, {level_margin(precision, recall):+.3f}{mark}")
    same = (
        "the default"
        if level == LOW_BALANCE_PREDICTION_LEVEL
        else f"NOT the default ({LOW_BALANCE_PREDICTION_LEVEL:g})"
    )
    print(f"chosen: {level:g}, {same}")
    return 0


def main(count: int = USERS_PER_WORLD, only: str | None = None, seed: int | None = None) -> int:
    print("Cash-flow forecast backtest (goals: median lowest-balance error <= half the naive baseline's;")
    print(f"recall >= {RECALL_GOAL} at precision >= {PRECISION_GOAL}; risk within 5 points per decile)")
    people: list[SyntheticUser] = []
    for world, title, generate, default_seed in WORLDS:
        if only and world != only:
            continue
        chosen = default_seed if seed is None else seed
        people = generate(chosen, count)
        label = title if seed is None else f"generator {world}, seed {chosen}"
        offsets = BLIND_OFFSETS if world == "D" else OFFSETS
        report(label, evaluate([make_cases(world, p, offset, DRAWS) for p in people for offset in offsets]))
        if world == "A":
            cpu(people)
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--users", type=int, default=USERS_PER_WORLD)
    parser.add_argument("--world", choices=[w for w, *_ in WORLDS])
    parser.add_argument("--seed", type=int, help=f"another seed (generator A's tuning seed is {TUNING_SEED})")
    parser.add_argument("--choose-level", action="store_true", help="choose the alert level on the tuning seed")
    args = parser.parse_args()
    raise SystemExit(choose(args.users) if args.choose_level else main(args.users, args.world, args.seed))
