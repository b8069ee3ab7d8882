"""Fit the payday confidence (:mod:`chalicelib.insight.payday.confidence`) on the tuning generator.

Runs the chain on users of generator A (the tuning seeds only: never the held-out generator nor
the seeds the benchmark keeps unseen) at 30, 60, 90 and 120 days of history, keeps each dated
FloatMe V2 answer's confidence inputs with whether the date was exact, fits a logistic
regression (Newton's method with a small ridge penalty, standard library only) and prints the
weights as the module spells them, with the reliability table of the fitted confidence and the
legacy guess's exact rate (its fixed confidence).

Run: ``.venv/bin/python -m ops.calibrate_payday`` (about four minutes), then paste the printed
``WEIGHTS`` and ``INTERCEPT`` into ``chalicelib/insight/payday/confidence.py``.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence

from chalicelib.insight.payday import Detection, predict, v2
from chalicelib.insight.payday.confidence import ConfidenceInputs, features
from chalicelib.insight.transactions import visible
from ops.synthetic import users

TUNING_SEEDS = (1, 2, 4, 5)
USERS_PER_SEED = 300
HISTORIES = (30, 60, 90, 120)
RIDGE = 1.0

Sample = tuple[list[float], bool]


def samples(seeds: Sequence[int] = TUNING_SEEDS, count: int = USERS_PER_SEED) -> tuple[list[Sample], list[bool]]:
    """(features, exact) of every dated V2 answer, and exact of every legacy answer."""
    out: list[Sample] = []
    legacy: list[bool] = []
    for seed in seeds:
        for person in users.generate(seed, count):
            truth = person.truth.next_payday
            if truth is None:
                continue
            for days in HISTORIES:
                transactions = person.history(days)
                result = predict(transactions, person.as_of)
                if result.next_payday is None:
                    continue
                if result.detection_used is not Detection.FLOATME_V2:
                    legacy.append(result.next_payday == truth)
                    continue
                inputs = v2.analyse(visible(transactions, person.as_of), person.as_of).confidence_inputs
                assert isinstance(inputs, ConfidenceInputs)
                out.append((features(inputs), result.next_payday == truth))
    return out, legacy


def _solve(matrix: list[list[float]], vector: list[float]) -> list[float]:
    """Gaussian elimination with partial pivoting."""
    n = len(vector)
    rows = [[*row, value] for row, value in zip(matrix, vector, strict=True)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(rows[r][col]))
        rows[col], rows[pivot] = rows[pivot], rows[col]
        for r in range(n):
            if r != col and rows[col][col]:
                factor = rows[r][col] / rows[col][col]
                rows[r] = [a - factor * b for a, b in zip(rows[r], rows[col], strict=True)]
    return [rows[i][n] / rows[i][i] for i in range(n)]


def fit(data: Sequence[Sample], ridge: float = RIDGE, rounds: int = 25) -> list[float]:
    """Logistic regression weights (the intercept last) by Newton's method."""
    width = len(data[0][0]) + 1
    weights = [0.0] * width
    for _ in range(rounds):
        gradient = [0.0] * width
        hessian = [[0.0] * width for _ in range(width)]
        for x, y in data:
            row = [*x, 1.0]
            p = _sigmoid(sum(w * v for w, v in zip(weights, row, strict=True)))
            for i in range(width):
                gradient[i] += (p - y) * row[i]
                for j in range(width):
                    hessian[i][j] += p * (1 - p) * row[i] * row[j]
        for i in range(width - 1):  # the intercept is not penalised
            gradient[i] += ridge * weights[i]
            hessian[i][i] += ridge
        step = _solve(hessian, gradient)
        weights = [w - s for w, s in zip(weights, step, strict=True)]
        if max(abs(s) for s in step) < 1e-6:
            break
    return weights


def _sigmoid(z: float) -> float:
    return 1 / (1 + math.exp(-max(-30.0, min(30.0, z))))


def table(data: Sequence[Sample], weights: Sequence[float]) -> None:
    scored = [(_sigmoid(sum(w * v for w, v in zip(weights, [*x, 1.0], strict=True))), y) for x, y in data]
    for low in (0.0, 0.2, 0.4, 0.6, 0.8, 0.9):
        high = {0.0: 0.2, 0.2: 0.4, 0.4: 0.6, 0.6: 0.8, 0.8: 0.9}.get(low, 1.01)
        group = [(c, y) for c, y in scored if low <= c < high]
        if group:
            mean, hits = statistics.fmean(c for c, _ in group), statistics.fmean(float(y) for _, y in group)
            print(f"  [{low:.1f}, {min(high, 1.0):.1f}) n {len(group):>5}: mean {mean:.3f}, exact {hits:.3f}")
    print(f"  Brier {statistics.fmean((c - y) ** 2 for c, y in scored):.4f}")


def main() -> int:
    data, legacy = samples()
    weights = fit(data)
    print(f"{len(data)} dated V2 answers on generator A seeds {TUNING_SEEDS}; fitted reliability:")
    table(data, weights)
    print(f"legacy guess: {len(legacy)} dated answers, exact {statistics.fmean(legacy) if legacy else 0:.3f}")
    print("WEIGHTS = (" + ", ".join(f"{w:.4f}" for w in weights[:-1]) + ")")
    print(f"INTERCEPT = {weights[-1]:.4f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
