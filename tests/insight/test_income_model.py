"""The income model: the committed weights, the training that makes them, and what it is worth."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest

from chalicelib.insight.income import features, load_model
from chalicelib.insight.income.methods import RULES
from chalicelib.insight.income.model import WEIGHTS_PATH, IncomeModelError, from_weights, prediction_id
from chalicelib.insight.income.profile import Profile
from ops import bench_income
from ops import train_income_model as training
from ops.income_eval import score, user_streams
from ops.synthetic import inflows
from ops.synthetic.income_labels import labelled

#: Users per accuracy sample, and how much better than the best rule method the model must be.
SAMPLE, MARGIN = 25, 0.05


@pytest.fixture(scope="module")
def committed() -> dict[str, Any]:
    return dict(json.loads(WEIGHTS_PATH.read_text(encoding="utf-8")))


def test_the_committed_weights_fit_the_code_and_are_named_by_their_hash(committed: dict[str, Any]) -> None:
    n = len(features.FEATURES)
    assert committed["features"] == list(features.FEATURES)
    assert len(committed["mean"]) == len(committed["scale"]) == len(committed["coef"]) == n
    assert committed["prediction_id"] == prediction_id(committed) == load_model().prediction_id
    assert committed["model"] == training.MODEL_NAME and committed["prediction_id"].startswith(training.MODEL_NAME)
    # trained on generator A only, with the recorded setting
    assert training.recorded_setting(committed) == training.Setting()
    assert WEIGHTS_PATH.stat().st_size < 8_000


@pytest.mark.slow
def test_the_committed_weights_are_what_training_gives_on_this_code(committed: dict[str, Any]) -> None:
    # GIVEN the committed weights and the setting they record
    # WHEN the model is trained again as recorded (about 20 s: 1,500 users at 60 and 120 days)
    again = training.train(training.recorded_setting(committed))
    # THEN the files are identical: a change to what the features read (the payday model's fit of
    # a payer, the candidate rules) is retrained with `.venv/bin/python -m ops.train_income_model`
    assert training.render(again) == training.render(committed)


def test_training_is_deterministic_and_gives_weights_the_model_loads() -> None:
    # GIVEN a small setting / WHEN it is trained twice
    setting = training.Setting(seed=1, users=6, histories=(120,))
    first, second = training.train(setting), training.train(setting)
    # THEN the files are identical, and the model loads them under their hash
    assert training.render(first) == training.render(second)
    assert from_weights(first).prediction_id == first["prediction_id"]
    assert first["training"]["users"] == 6 and first["training"]["streams"] > 6


def test_the_fitter_recovers_a_known_logistic_rule() -> None:
    # GIVEN labels drawn (deterministically) from P(y) = sigmoid(2 x0 - x1)
    xs = [[math.sin(k * 1.7), math.cos(k * 0.9)] for k in range(400)]
    ys = [int((k * 0.61803) % 1 < 1 / (1 + math.exp(-(2 * a - b)))) for k, (a, b) in enumerate(xs)]
    # WHEN fitted with a weak penalty / THEN the coefficients come back near (2, -1), intercept near 0
    (w0, w1), intercept = training.fit_logistic(xs, ys, l2=0.01)
    assert w0 == pytest.approx(2, abs=0.5) and w1 == pytest.approx(-1, abs=0.4) and abs(intercept) < 0.3


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"features": ["x"]}, "other features"),
        ({"coef": [1.0]}, "coef must be"),
        ({"scale": [0.0] * len(features.FEATURES)}, "scale must be positive"),
        ({"threshold": 1.5}, "threshold"),
        ({"mean": ["1"] * len(features.FEATURES)}, "mean must be"),
    ],
)
def test_weights_that_cannot_be_used_are_refused(
    committed: dict[str, Any], change: dict[str, Any], message: str
) -> None:
    with pytest.raises(IncomeModelError, match=message):
        from_weights({**committed, **change})


def test_a_missing_weights_file_is_a_model_error(tmp_path: Any) -> None:
    with pytest.raises(IncomeModelError, match="unreadable"):
        load_model(tmp_path / "missing.json")


def _f1s(people: list[Any]) -> dict[str, float]:
    model = load_model()

    def by_model(p: Profile) -> bool:
        return model.probability(features.vector(p)) >= model.threshold

    scores = score([user_streams(p, 120) for p in people], {**RULES, "ml": by_model})
    return {name: s.f1 for name, s in scores.items()}


@pytest.mark.parametrize(
    "people",
    [
        pytest.param(lambda: [inflows.make_user(2, i) for i in range(SAMPLE)], id="unseen-seed"),
        pytest.param(lambda: [labelled("B", 3, i) for i in range(SAMPLE)], id="held-out-generator"),
    ],
)
def test_the_model_beats_every_rule_method_on_users_it_never_saw(people: Any) -> None:
    f1 = _f1s(people())
    best_rule = max(f1[name] for name in RULES)
    assert f1["ml"] >= best_rule + MARGIN, f1


def test_the_benchmark_prints_every_method_per_history(capsys: pytest.CaptureFixture[str]) -> None:
    figures = bench_income.report("sample", [inflows.make_user(2, i) for i in range(3)])
    printed = capsys.readouterr().out
    assert set(figures) == set(bench_income.HISTORIES)
    for name in ("a category", "d regularity", "rules vote (>= 2)", "ml (the model)", "all after exclusions"):
        assert printed.count(name) == len(bench_income.HISTORIES)
