"""The runtime's own state: stream checkpoints and which REMOVE records TTL caused.

Kept in memory; with a path it is also written (atomically) to a small JSON file after
every change, so a restarted runtime resumes where it stopped instead of replaying each
stream from its starting position. A stream's checkpoints are forgotten when the stream
was recreated since (moto restarts): its sequence numbers start again from the bottom,
and an old checkpoint would silently skip the new records.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

_VERSION = 1


@dataclass
class RuntimeState:
    path: Path | None = None
    #: "<function>|<stream arn>|<shard id>" -> last sequence number fully handled.
    checkpoints: dict[str, str] = field(default_factory=dict)
    #: stream arn -> the stream's creation marker when its checkpoints were taken.
    incarnations: dict[str, str] = field(default_factory=dict)
    #: DynamoDB stream arn -> sequence numbers of REMOVE records made by the TTL emulation.
    service_removes: dict[str, set[str]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @classmethod
    def load(cls, path: Path | None) -> RuntimeState:
        state = cls(path)
        if path is None or not path.exists():
            return state
        data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        if data.get("version") != _VERSION:
            return state
        state.checkpoints = {str(k): str(v) for k, v in data.get("checkpoints", {}).items()}
        state.incarnations = {str(k): str(v) for k, v in data.get("incarnations", {}).items()}
        state.service_removes = {str(k): {str(s) for s in v} for k, v in data.get("service_removes", {}).items()}
        return state

    # --- checkpoints ------------------------------------------------------------------

    def adopt_stream(self, stream_arn: str, incarnation: str) -> None:
        """Drop what is known about ``stream_arn`` if it is not the stream it was."""
        with self._lock:
            if self.incarnations.get(stream_arn) == incarnation:
                return
            prefix = f"|{stream_arn}|"
            self.checkpoints = {k: v for k, v in self.checkpoints.items() if prefix not in k}
            self.service_removes.pop(stream_arn, None)
            self.incarnations[stream_arn] = incarnation
        self._save()

    def checkpoint(self, function: str, stream_arn: str, shard_id: str) -> str | None:
        return self.checkpoints.get(_key(function, stream_arn, shard_id))

    def set_checkpoint(self, function: str, stream_arn: str, shard_id: str, sequence: str) -> None:
        key = _key(function, stream_arn, shard_id)
        with self._lock:
            if self.checkpoints.get(key) == sequence:
                return
            self.checkpoints[key] = sequence
        self._save()

    # --- TTL deletions ----------------------------------------------------------------

    def mark_service_remove(self, stream_arn: str, sequence: str) -> None:
        with self._lock:
            self.service_removes.setdefault(stream_arn, set()).add(sequence)
        self._save()

    def is_service_remove(self, stream_arn: str, sequence: str) -> bool:
        return sequence in self.service_removes.get(stream_arn, ())

    # --- persistence ------------------------------------------------------------------

    def _save(self) -> None:
        if self.path is None:
            return
        with self._lock:
            data = {
                "version": _VERSION,
                "checkpoints": dict(sorted(self.checkpoints.items())),
                "incarnations": dict(sorted(self.incarnations.items())),
                "service_removes": {k: sorted(v, key=_seq_order) for k, v in sorted(self.service_removes.items())},
            }
            self.path.parent.mkdir(parents=True, exist_ok=True)
            temporary = self.path.with_suffix(self.path.suffix + ".tmp")
            temporary.write_text(json.dumps(data, indent=1), encoding="utf-8")
            temporary.replace(self.path)


def _key(function: str, stream_arn: str, shard_id: str) -> str:
    return f"{function}|{stream_arn}|{shard_id}"


def _seq_order(sequence: str) -> tuple[int, str]:
    return (int(sequence), "") if sequence.isdigit() else (0, sequence)
