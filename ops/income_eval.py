"""Income detection against ground truth: labelled payer streams and stream-level scores.

A user's streams are the ones detection builds (:func:`chalicelib.insight.income.profile.profiles`)
from the history the service would hold; a stream **is income** when at least half of its
transactions are income by the generator's labels. Income the exclusion rules removed, so
that no stream carries it, is counted as missed by every method (``lost``): recall is over
every income stream the user has, not only over the streams detection saw.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import date

from chalicelib.insight.income.profile import Profile, profiles
from chalicelib.insight.payday.candidates import payer_key
from chalicelib.insight.transactions import visible
from ops.synthetic.income_labels import LabelledUser

#: The share of a stream's transactions that must be income for the stream to be income.
INCOME_SHARE = 0.5


@dataclass(frozen=True)
class Example:
    profile: Profile
    income: bool


@dataclass(frozen=True)
class UserStreams:
    user_id: str
    as_of: date
    examples: tuple[Example, ...]
    lost: int


def user_streams(person: LabelledUser, days: int) -> UserStreams:
    """``person``'s streams with ``days`` of history, labelled."""
    user = person.user
    txns = visible(user.history(days), user.as_of)
    found = profiles(txns, user.as_of)
    examples = []
    seen: set[str] = set()
    for p in found:
        ids = [t.txn_id for t in p.stream.txns]
        seen.update(ids)
        share = sum(1 for i in ids if i in person.income_ids) / len(ids)
        examples.append(Example(p, share >= INCOME_SHARE))
    lost = {(payer_key(t), t.account_id) for t in txns if t.txn_id in person.income_ids and t.txn_id not in seen}
    return UserStreams(user.user_id, user.as_of, tuple(examples), len(lost))


@dataclass
class Score:
    """Stream-level counts of one method."""

    tp: int = 0
    fp: int = 0
    fn: int = 0

    def add(self, predicted: bool, actual: bool) -> None:
        self.tp += predicted and actual
        self.fp += predicted and not actual
        self.fn += actual and not predicted

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 1.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 1.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0


Classifier = Callable[[Profile], bool]


def score(users: Iterable[UserStreams], methods: dict[str, Classifier]) -> dict[str, Score]:
    """Each method's stream-level counts over ``users``."""
    scores: dict[str, Score] = defaultdict(Score)
    for user in users:
        for name, method in methods.items():
            s = scores[name]
            for example in user.examples:
                s.add(method(example.profile), example.income)
            s.fn += user.lost
    return dict(scores)


def counts(users: Sequence[UserStreams]) -> tuple[int, int, int]:
    """(streams, income streams, income streams no stream carries)."""
    streams = sum(len(u.examples) for u in users)
    income = sum(1 for u in users for e in u.examples if e.income)
    lost = sum(u.lost for u in users)
    return streams, income + lost, lost
