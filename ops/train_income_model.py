"""Train the income model on the project's generator and write its weights.

Data: users ``0 .. users-1`` of generator A (:mod:`ops.synthetic.users`) at seed ``seed``,
each with the income-detection inflows (:mod:`ops.synthetic.inflows`), seen with 60 and 120
days of history; one example per payer stream (:func:`ops.income_eval.user_streams`), labelled
income when at least half of its transactions are income by the generator's own labels.
Generator B (:mod:`ops.synthetic.holdout`) and other seeds are never used here.

Model: L2-regularised logistic regression on standardised features, fitted by Newton's
method (iteratively reweighted least squares) in plain Python: the same data give the same
weights, bit for bit, so the committed file can be re-derived (``--check``).

Run: ``.venv/bin/python -m ops.train_income_model`` (writes ``chalicelib/insight/income/weights.json``);
``--check`` retrains with the settings recorded in the file and fails if the weights differ.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from chalicelib.insight.income import features
from chalicelib.insight.income.model import WEIGHTS_PATH, prediction_id
from ops.income_eval import user_streams
from ops.synthetic import inflows

MODEL_NAME = "income-logreg-1"
SEED, USERS, HISTORIES, L2 = 1, 1500, (60, 120), 1.0
THRESHOLD = 0.5
DIGITS = 6
MAX_ITERATIONS, TOLERANCE = 50, 1e-10


@dataclass(frozen=True)
class Setting:
    seed: int = SEED
    users: int = USERS
    histories: tuple[int, ...] = HISTORIES
    l2: float = L2


def dataset(setting: Setting) -> tuple[list[list[float]], list[int]]:
    """Feature vectors and labels of every stream of the setting's users, in a fixed order."""
    xs: list[list[float]] = []
    ys: list[int] = []
    for index in range(setting.users):
        person = inflows.make_user(setting.seed, index)
        for days in setting.histories:
            for example in user_streams(person, days).examples:
                xs.append(features.vector(example.profile))
                ys.append(int(example.income))
    return xs, ys


def _solve(matrix: list[list[float]], vector: list[float]) -> list[float]:
    """``matrix @ x = vector`` by Gaussian elimination with partial pivoting."""
    n = len(vector)
    rows = [[*matrix[i], vector[i]] for i in range(n)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(rows[r][col]))
        rows[col], rows[pivot] = rows[pivot], rows[col]
        lead = rows[col][col]
        for r in range(col + 1, n):
            factor = rows[r][col] / lead
            if factor:
                rows[r] = [a - factor * b for a, b in zip(rows[r], rows[col], strict=True)]
    out = [0.0] * n
    for r in range(n - 1, -1, -1):
        out[r] = (rows[r][n] - sum(rows[r][c] * out[c] for c in range(r + 1, n))) / rows[r][r]
    return out


def _sigmoid(z: float) -> float:
    if z >= 0:
        return 1.0 / (1.0 + math.exp(-z))
    e = math.exp(z)
    return e / (1.0 + e)


def fit_logistic(xs: Sequence[Sequence[float]], ys: Sequence[int], l2: float) -> tuple[list[float], float]:
    """Coefficients and intercept minimising log loss + ``l2``/2 * |coef|^2 (Newton's method)."""
    d = len(xs[0])
    theta = [0.0] * (d + 1)  # coefficients, then the intercept (not penalised)
    for _ in range(MAX_ITERATIONS):
        grad = [0.0] * (d + 1)
        hess = [[0.0] * (d + 1) for _ in range(d + 1)]
        for x, y in zip(xs, ys, strict=True):
            row = [*x, 1.0]
            p = _sigmoid(sum(t * v for t, v in zip(theta, row, strict=True)))
            w, err = p * (1 - p), p - y
            for i in range(d + 1):
                grad[i] += err * row[i]
                wi = w * row[i]
                hrow = hess[i]
                for j in range(i, d + 1):
                    hrow[j] += wi * row[j]
        for i in range(d + 1):
            for j in range(i):
                hess[i][j] = hess[j][i]
        for i in range(d):
            grad[i] += l2 * theta[i]
            hess[i][i] += l2
        step = _solve(hess, grad)
        theta = [t - s for t, s in zip(theta, step, strict=True)]
        if max(abs(s) for s in step) < TOLERANCE:
            break
    return theta[:d], theta[d]


def train(setting: Setting) -> dict[str, Any]:
    """The weights file's content for ``setting``."""
    xs, ys = dataset(setting)
    columns = list(zip(*xs, strict=True))
    mean = [round(statistics.fmean(c), DIGITS) for c in columns]
    scale = [round(statistics.pstdev(c), DIGITS) or 1.0 for c in columns]
    standard = [[(v - m) / s for v, m, s in zip(x, mean, scale, strict=True)] for x in xs]
    coef, intercept = fit_logistic(standard, ys, setting.l2)
    weights: dict[str, Any] = {
        "model": MODEL_NAME,
        "features": list(features.FEATURES),
        "mean": mean,
        "scale": scale,
        "coef": [round(c, DIGITS) for c in coef],
        "intercept": round(intercept, DIGITS),
        "threshold": THRESHOLD,
        "training": {
            "generator": "A (ops.synthetic.users) with ops.synthetic.inflows",
            "seed": setting.seed,
            "users": setting.users,
            "histories": list(setting.histories),
            "l2": setting.l2,
            "streams": len(ys),
            "income_streams": sum(ys),
        },
    }
    weights["prediction_id"] = prediction_id(weights)
    return weights


def render(weights: dict[str, Any]) -> str:
    return json.dumps(weights, indent=1) + "\n"


def recorded_setting(weights: dict[str, Any]) -> Setting:
    t = weights["training"]
    return Setting(int(t["seed"]), int(t["users"]), tuple(int(h) for h in t["histories"]), float(t["l2"]))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--users", type=int, default=USERS)
    parser.add_argument("--out", type=Path, default=WEIGHTS_PATH)
    parser.add_argument("--check", action="store_true", help="retrain as recorded in --out and compare")
    args = parser.parse_args(argv)
    if args.check:
        committed = json.loads(args.out.read_text(encoding="utf-8"))
        again = train(recorded_setting(committed))
        if render(again) != render(committed):
            print(f"{args.out}: retraining gives different weights ({again['prediction_id']})", file=sys.stderr)
            return 1
        print(f"{args.out}: reproduced ({committed['prediction_id']})")
        return 0
    weights = train(Setting(args.seed, args.users))
    args.out.write_text(render(weights), encoding="utf-8")
    t = weights["training"]
    print(f"{args.out}: {weights['prediction_id']} from {t['streams']} streams ({t['income_streams']} income)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
