"""Stable keys for peer calls that must happen once under at-least-once delivery.

A redelivered webhook runs the same handler again; the Admin API (``Idempotency-Key``) and
Segment (``messageId``) deduplicate only if the retry sends the same key. So keys derive
from what the call is about, never from the clock or a random id. They are UUID-shaped
(version 5), the form both peers expect, and reveal nothing of their inputs.
"""

from __future__ import annotations

import uuid

#: Fixed namespace so the same parts give the same key in every process and release.
_NAMESPACE = uuid.UUID("6f1c9a52-4c1e-5d0b-9a57-2f0d3c8e7b14")


def derive_key(kind: str, *parts: str) -> str:
    """A UUID naming one fact, e.g. ``derive_key("plaid_item_errored", item_id, webhook_id)``.

    ``kind`` keeps keys of different calls apart even when their parts coincide.
    """
    if not kind or not parts or any(not part for part in parts):
        raise ValueError("derive_key needs a kind and at least one non-empty part")
    return str(uuid.uuid5(_NAMESPACE, "\x1f".join((kind, *parts))))
