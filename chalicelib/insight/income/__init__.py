"""Income detection: which of a user's inflows are income, as payer streams.

:func:`detect` (pure) takes the models' input (API-shaped transaction dicts, see
:mod:`chalicelib.insight.transactions`) and ``as_of``. Inflows that pass the exclusion rules
are grouped into payer streams (:mod:`.profile`); four rule methods (:mod:`.methods`: **a**
category, **b** description, **c** schedule, **d** regularity) and the model (**ml**,
:mod:`.model`) each say which streams are income.

**How they combine.** When the model is enabled and its weights load, the model decides: a
stream is income when its probability reaches the model's threshold, and its confidence is
that probability (``ml_results_used``). Otherwise the rules vote: a stream is income when two
methods or more say so, and its confidence is the share of the four that did. Each returned
stream lists every method that called it income.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any

from chalicelib.insight.income import features
from chalicelib.insight.income import model as weights
from chalicelib.insight.income.methods import RULES
from chalicelib.insight.income.model import IncomeModel, IncomeModelError, load_model
from chalicelib.insight.income.profile import Profile, profiles
from chalicelib.insight.payday.streams import ENDED
from chalicelib.insight.transactions import Txn, visible

__all__ = [
    "IRREGULAR",
    "METHODS",
    "UNKNOWN",
    "IncomeDetection",
    "IncomeModel",
    "IncomeModelError",
    "StreamVerdict",
    "detect",
    "load_model",
]

#: Every method in the order results are stored: the rules, then the model.
METHODS = (*RULES, "ml")
#: Without the model, a stream is income when this many rule methods agree.
RULE_VOTES = 2
#: Cadences besides the schedule engine's: deposits on no schedule, or too few to tell.
IRREGULAR, UNKNOWN = "IRREGULAR", "UNKNOWN"
#: A schedule fit good enough to give a stream's cadence and next date.
CADENCE_MATCHES, CADENCE_F1, CADENCE_RESIDUAL = 2, 0.7, 1.0
#: A stream off any schedule has ended when its last deposit is older than this.
ENDED_AFTER_DAYS = 45
ACTIVE = "ACTIVE"


@dataclass(frozen=True, slots=True)
class StreamVerdict:
    """One payer stream and what the methods and their combination say about it."""

    profile: Profile
    methods: tuple[str, ...]
    probability: float | None
    income: bool
    confidence: float

    @property
    def payer(self) -> str:
        return self.profile.stream.display_name

    @property
    def account_id(self) -> str:
        return self.profile.stream.account_id

    @property
    def txns(self) -> list[Txn]:
        return self.profile.stream.txns

    @property
    def latest(self) -> Txn:
        """The newest deposit's largest transaction: what a verifier is pointed at."""
        return max(self.profile.stream.deposits[-1].txns, key=lambda t: (t.cents, t.txn_id))

    @property
    def typical_cents(self) -> int:
        return self.profile.median_cents

    def _scheduled(self) -> bool:
        best = self.profile.best
        return (
            best is not None
            and best.matched >= CADENCE_MATCHES
            and best.f1 >= CADENCE_F1
            and best.residual <= CADENCE_RESIDUAL
        )

    @property
    def cadence(self) -> str:
        best = self.profile.best
        if self._scheduled() and best is not None:
            return best.cadence.value
        return IRREGULAR if self.profile.deposits >= 3 else UNKNOWN

    @property
    def status(self) -> str:
        if self._scheduled():
            return self.profile.fit.status
        last = self.profile.stream.deposits[-1].day
        return ENDED if (self.profile.as_of - last).days > ENDED_AFTER_DAYS else ACTIVE

    @property
    def next_date(self) -> date | None:
        best = self.profile.best
        if best is None or not self._scheduled() or self.status == ENDED:
            return None
        upcoming = [d for d in best.next_dates(3) if d > self.profile.as_of]
        return upcoming[0] if upcoming else None

    @property
    def first_date(self) -> date:
        return self.profile.stream.deposits[0].day

    @property
    def last_date(self) -> date:
        return self.profile.stream.deposits[-1].day


@dataclass(frozen=True)
class IncomeDetection:
    """Every candidate stream with its verdict (largest first), and how the model took part."""

    as_of: date
    streams: tuple[StreamVerdict, ...]
    ml_enabled: bool
    ml_results_used: bool
    ml_prediction_id: str | None = None
    ml_error: str | None = None
    details: dict[str, Any] = field(default_factory=dict)

    @property
    def income_streams(self) -> list[StreamVerdict]:
        return [s for s in self.streams if s.income]

    def method_results(self) -> dict[str, list[Txn]]:
        """Each method's detected transactions: those of the streams it called income (the
        model's only when it ran)."""
        out: dict[str, list[Txn]] = {m: [] for m in METHODS if m != "ml" or self.ml_results_used}
        for verdict in self.streams:
            for method in verdict.methods:
                if method in out:
                    out[method].extend(verdict.txns)
        return out

    @property
    def ml_probabilities(self) -> list[float]:
        return [round(s.probability, 4) for s in self.streams if s.probability is not None]

    def ml_predictions(self) -> list[dict[str, Any]]:
        return [
            {"payer": s.profile.stream.payer, "account_id": s.account_id, "income": s.income}
            for s in self.streams
            if s.probability is not None
        ]


def _verdict(profile: Profile, model: IncomeModel | None) -> StreamVerdict:
    rules = [name for name, rule in RULES.items() if rule(profile)]
    if model is None:
        income = len(rules) >= RULE_VOTES
        return StreamVerdict(profile, tuple(rules), None, income, len(rules) / len(RULES))
    probability = model.probability(features.vector(profile))
    income = probability >= model.threshold
    methods = (*rules, "ml") if income else tuple(rules)
    return StreamVerdict(profile, methods, probability, income, probability)


def detect(
    transactions: Iterable[Mapping[str, Any]],
    as_of: date,
    *,
    ml_enabled: bool = True,
    model: IncomeModel | None = None,
) -> IncomeDetection:
    """Detect income in ``transactions`` as of ``as_of`` (see the module docstring).

    ``model`` defaults to the weights in ``model.WEIGHTS_PATH`` (the committed file);
    weights that cannot be used leave the rules to decide (``ml_error`` says why). Raises
    ``InvalidTransactionError`` on input that breaks the contract.
    """
    txns = visible(transactions, as_of)
    error: str | None = None
    if ml_enabled and model is None:
        try:
            model = load_model(weights.WEIGHTS_PATH)
        except IncomeModelError as exc:
            error = str(exc)
    if not ml_enabled:
        model = None
    verdicts = tuple(_verdict(p, model) for p in profiles(txns, as_of))
    history = (as_of - min((t.day for t in txns), default=as_of) + timedelta(days=1)).days
    return IncomeDetection(
        as_of=as_of,
        streams=verdicts,
        ml_enabled=ml_enabled,
        ml_results_used=model is not None,
        ml_prediction_id=model.prediction_id if model is not None else None,
        ml_error=error,
        details={"history_days": history, "streams": len(verdicts)},
    )
