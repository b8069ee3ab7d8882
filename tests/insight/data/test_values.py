"""Free-form values survive DynamoDB: floats exactly, dates as text, no float ever sent."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime
from decimal import Decimal
from enum import Enum

import pytest

from chalicelib.insight.data.values import UnstorableValueError, from_dynamo, to_dynamo


class Cadence(Enum):
    BIWEEKLY = "BIWEEKLY"


@dataclass(frozen=True)
class Prediction:
    payday: date
    cadence: Cadence
    confidence: float


def test_model_output_goes_in_without_floats_and_comes_back_equal() -> None:
    value = {
        "prediction": Prediction(date(2026, 11, 27), Cadence.BIWEEKLY, 0.1),
        "amounts": (125_000, -3),
        "at": datetime(2026, 11, 20, 12, 0, tzinfo=UTC),
        "nan": float("nan"),
        "tags": {"b", "a"},
        "none": None,
    }
    stored = to_dynamo(value)
    assert stored["prediction"] == {"payday": "2026-11-27", "cadence": "BIWEEKLY", "confidence": Decimal("0.1")}
    assert stored["at"] == "2026-11-20T12:00:00.000000Z"
    assert stored["nan"] is None
    assert stored["tags"] == ["a", "b"]
    back = from_dynamo(stored)
    assert back["prediction"]["confidence"] == 0.1
    assert back["amounts"] == [125_000, -3]
    assert isinstance(back["amounts"][0], int)


def test_arbitrary_objects_are_refused() -> None:
    with pytest.raises(UnstorableValueError, match="object"):
        to_dynamo({"x": object()})
