"""The pipeline's decisions, as pure functions over plain values.

Each consumer decides here and acts in its own module: the miner's routing and drop rules
(:mod:`.miner`), the ``/transactions/sync`` loop's rules (:mod:`.sync`), the listener's
decision table (:mod:`.listener`) and the feeder's expiry and ``new_account`` rules
(:mod:`.feeder`). Nothing here reads a table, calls a service, reads the clock or the
settings: what a decision needs (the message, the item, the user's status, the WEBHOOK_INFO
history, "now", a setting) is an argument, and what it decides is a returned value. The
consumers carry the decisions out through the one seam to the world,
:class:`chalicelib.pipeline.effects.Effects`. ``tests/unit/test_*_decisions.py`` test every
row of the rules as tables. The rules in prose: ``docs/architecture.md`` and
``docs/item-lifecycle.md``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Drop:
    """The message or step is dropped and never retried: why, and what to log with it."""

    reason: str
    context: Mapping[str, Any] = field(default_factory=dict)
