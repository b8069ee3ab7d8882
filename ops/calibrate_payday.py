"""Fit the payday confidence (:mod:`chalicelib.insight.payday.confidence`) on the tuning world.

Runs FloatMe V2 on users of world A's tuning seeds (never world B or C, nor the seeds the
benchmark keeps unseen) with 60, 90, 120 and 180 days of history, keeps each dated answer's
confidence inputs with whether the date was exact (a date given to a user without a payday is
not), fits a logistic regression (Newton's method with a small ridge penalty, standard library
only) and prints the weights as the module spells them, with the reliability of the fitted
confidence per decile.

Run: ``.venv/bin/python -m ops.calibrate_payday`` (a few minutes), then paste the printed
``WEIGHTS`` and ``INTERCEPT`` into ``chalicelib/insight/payday/confidence.py``.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence

from chalicelib.insight.payday import v2
from chalicelib.insight.payday.confidence import features
from chalicelib.insight.transactions import visible
from ops.synthetic import users

TUNING_SEEDS = (1, 2, 4, 5)
USERS_PER_SEED = 300
HISTORIES = (60, 90, 120, 180)
RIDGE = 1.0

Sample = tuple[list[float], bool]


def samples(seeds: Sequence[int] = TUNING_SEEDS, count: int = USERS_PER_SEED) -> list[Sample]:
    """(features, exact) of every dated V2 answer."""
    out: list[Sample] = []
    for seed in seeds:
        for person in users.generate(seed, count, max(HISTORIES)):
            truth = person.truth.next_payday
            for days in HISTORIES:
                result = v2.analyse(visible(person.history(days), person.as_of), person.as_of)
                if result.prediction is None or result.confidence_inputs is None:
                    continue
                out.append((features(result.confidence_inputs), result.prediction.next_payday == truth))
    return out


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
    for decile in range(10):
        low = decile / 10
        group = [(c, y) for c, y in scored if low <= c < low + 0.1 or (decile == 9 and c >= 1.0)]
        if group:
            mean, hits = statistics.fmean(c for c, _ in group), statistics.fmean(float(y) for _, y in group)
            print(f"  [{low:.1f}, {low + 0.1:.1f}) n {len(group):>5}: stated {mean:.3f}, observed {hits:.3f}")
    print(f"  Brier {statistics.fmean((c - y) ** 2 for c, y in scored):.4f}")


def main() -> int:
    data = samples()
    weights = fit(data)
    print(f"{len(data)} dated V2 answers on world A seeds {TUNING_SEEDS}; fitted reliability:")
    table(data, weights)
    print("WEIGHTS = (" + ", ".join(f"{w:.4f}" for w in weights[:-1]) + ")")
    print(f"INTERCEPT = {weights[-1]:.4f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
