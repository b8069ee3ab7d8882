"""A shard read through its iterator: where it starts, resumes, and what an expired iterator costs."""

from __future__ import annotations

from typing import Any

import pytest
from botocore.exceptions import ClientError

from ops.runtime.shards import StreamRecord
from ops.runtime.streams import IteratorReader


class ListShard(IteratorReader):
    """A shard of numbered records in memory; an iterator is the index of the next record."""

    max_records = 2

    def __init__(self, records: int, start: str, after: str | None, *, closed: bool = True) -> None:
        self.records, self.closed = records, closed
        self.asked: list[tuple[str, str | None]] = []
        self.expire_next = False
        super().__init__("shard-1", start, after)

    def _get_iterator(self, kind: str, after: str | None) -> str:
        self.asked.append((kind, after))
        position = {"TRIM_HORIZON": 0, "LATEST": self.records}.get(kind)
        return str(int(after) + 1 if kind == "AFTER_SEQUENCE_NUMBER" and after is not None else position)

    def _get_records(self, iterator: str, limit: int) -> dict[str, Any]:
        if self.expire_next:
            self.expire_next = False
            raise ClientError({"Error": {"Code": "ExpiredIteratorException", "Message": "expired"}}, "GetRecords")
        first = int(iterator)
        last = min(self.records, first + limit)
        done = last == self.records and self.closed
        return {"Records": [{"n": n} for n in range(first, last)], "NextShardIterator": None if done else str(last)}

    def _record(self, raw: dict[str, Any]) -> StreamRecord:
        return StreamRecord.of(str(raw["n"]), {"n": raw["n"]}, 0.0)


def numbers(records: list[StreamRecord] | None) -> list[int] | None:
    return None if records is None else [int(r.sequence) for r in records]


def test_a_closed_shard_is_read_from_its_start_at_most_max_records_at_a_time_then_ends() -> None:
    # GIVEN a closed shard of five records read from the trim horizon
    reader = ListShard(5, "TRIM_HORIZON", None)
    # WHEN read until it ends
    # THEN two at a time (the service's most), then None once exhausted
    assert [numbers(reader.read(100)) for _ in range(4)] == [[0, 1], [2, 3], [4], None]


def test_a_checkpoint_resumes_after_its_sequence_number() -> None:
    # GIVEN a reader given the checkpoint of record 2
    reader = ListShard(5, "TRIM_HORIZON", "2")
    # WHEN read
    # THEN it starts after the checkpoint, not at the starting position
    assert numbers(reader.read(100)) == [3, 4]
    assert reader.asked == [("AFTER_SEQUENCE_NUMBER", "2")]


def test_latest_means_from_when_the_reader_was_made() -> None:
    # GIVEN an open shard of three records, read from LATEST
    reader = ListShard(3, "LATEST", None, closed=False)
    # WHEN two more records arrive and it reads
    reader.records = 5
    # THEN only the records that came after it was made are read
    assert numbers(reader.read(100)) == [3, 4]


@pytest.mark.parametrize("after_reading", [0, 1])
def test_an_expired_iterator_is_renewed_after_the_last_record_read(after_reading: int) -> None:
    # GIVEN a closed shard, some of it read
    reader = ListShard(6, "TRIM_HORIZON", None)
    read = [n for _ in range(after_reading) for n in numbers(reader.read(100)) or []]
    # WHEN its iterator expires before the next read
    reader.expire_next = True
    while (batch := reader.read(100)) is not None:
        read += numbers(batch) or []
    # THEN every record is read once, in order
    assert read == [0, 1, 2, 3, 4, 5]
