"""The income model: a logistic regression over a stream's features, weights from a JSON file.

``P(income) = 1 / (1 + exp(-(intercept + sum(coef_i * (x_i - mean_i) / scale_i))))``, in
plain Python. The weights file (``weights.json`` beside this module, written by
``ops/train_income_model.py``) holds the feature names, the standardisation, the
coefficients, the decision threshold and how it was trained. The prediction id names the
model and the SHA-256 of the weights, so every stored prediction says which weights made it.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from chalicelib.errors import ServiceError
from chalicelib.insight.income.features import FEATURES

WEIGHTS_PATH = Path(__file__).with_name("weights.json")
#: The parts of the weights file that decide a prediction (what the prediction id hashes).
_DECIDING = ("model", "features", "mean", "scale", "coef", "intercept", "threshold")


class IncomeModelError(ServiceError):
    """The weights cannot be used: missing, malformed, or trained on other features."""


@dataclass(frozen=True, slots=True)
class IncomeModel:
    name: str
    features: tuple[str, ...]
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    coef: tuple[float, ...]
    intercept: float
    threshold: float
    prediction_id: str

    def score(self, x: Sequence[float]) -> float:
        """The log-odds of income for feature vector ``x``."""
        z = self.intercept
        for value, mean, scale, coef in zip(x, self.mean, self.scale, self.coef, strict=True):
            z += coef * (value - mean) / scale
        return z

    def probability(self, x: Sequence[float]) -> float:
        z = self.score(x)
        if z >= 0:
            return 1.0 / (1.0 + math.exp(-z))
        e = math.exp(z)
        return e / (1.0 + e)


def prediction_id(weights: Mapping[str, Any]) -> str:
    """``<model>:<first 12 hex digits of the SHA-256 of the deciding weights>``."""
    canonical = json.dumps({k: weights[k] for k in _DECIDING}, sort_keys=True, separators=(",", ":"))
    return f"{weights['model']}:{hashlib.sha256(canonical.encode()).hexdigest()[:12]}"


def _numbers(weights: Mapping[str, Any], key: str, length: int) -> tuple[float, ...]:
    values = weights.get(key)
    if (
        not isinstance(values, list)
        or len(values) != length
        or not all(isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v) for v in values)
    ):
        raise IncomeModelError(f"income model weights: {key} must be {length} finite numbers")
    return tuple(float(v) for v in values)


def from_weights(weights: Mapping[str, Any]) -> IncomeModel:
    """The model of a parsed weights file (checked against this code's features)."""
    if not isinstance(weights, Mapping) or any(k not in weights for k in _DECIDING):
        raise IncomeModelError(f"income model weights need {', '.join(_DECIDING)}")
    if list(weights["features"]) != list(FEATURES):
        raise IncomeModelError("income model weights were trained on other features")
    n = len(FEATURES)
    scale = _numbers(weights, "scale", n)
    if any(s <= 0 for s in scale):
        raise IncomeModelError("income model weights: every scale must be positive")
    intercept, threshold = weights["intercept"], weights["threshold"]
    if not isinstance(intercept, int | float) or not isinstance(threshold, int | float) or not 0 < threshold < 1:
        raise IncomeModelError("income model weights: intercept must be a number, threshold in (0, 1)")
    return IncomeModel(
        name=str(weights["model"]),
        features=FEATURES,
        mean=_numbers(weights, "mean", n),
        scale=scale,
        coef=_numbers(weights, "coef", n),
        intercept=float(intercept),
        threshold=float(threshold),
        prediction_id=prediction_id(weights),
    )


@lru_cache(maxsize=4)
def load_model(path: Path = WEIGHTS_PATH) -> IncomeModel:
    """The model in ``path`` (read once per process)."""
    try:
        weights = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise IncomeModelError(f"income model weights unreadable: {exc}") from exc
    return from_weights(weights)
