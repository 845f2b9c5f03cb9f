"""What travels on the log: session keys, partitions, and the three kinds of message.

A message is one JSON object. A record is ``{"k": "e", "ev": {...}}`` (a native event) or
``{"k": "s", "o": offset, "r": reason}`` (a transcript line that was skipped, so the
memory's diagnostics equal a local ``derive``). Messages:

- one record, as published by :class:`~.publisher.Publisher` for an agent;
- ``{"k": "b", "src": ..., "recs": [...]}``: consecutive records of one transcript file,
  each with ``"p"`` (byte offset of its line, index among the line's records). ``src`` is a
  short hash of the file's path: a worker drops every record at or before the last position
  it applied from that source, so a batch published again after a restart (even beyond the
  log's de-duplication window, even cut differently) applies only what is new. Batching is
  what makes the log fast: per-message costs dominate in the client, not per-byte ones;
- ``{"k": "h", "recs": [...]}``: the records a format adapter holds back until a later line
  tells what they were. The memory shows them released, as a complete read would, until
  the next record of the session replaces them.
"""

from __future__ import annotations

import hashlib
import re
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

import msgspec
import orjson

from session_memory.core.event_struct import FoldRecord, Record, event_from_object
from session_memory.core.events import (
    AnyEvent,
    DecodedEvent,
    Int64,
    without_defaults,
)
from session_memory.core.memory_view import SkippedLine

__all__ = [
    "Decoded",
    "Position",
    "decode",
    "encode_batch",
    "encode_held",
    "encode_positioned",
    "encode_record",
    "event_object",
    "partition_of",
    "record_object",
    "record_of",
    "session_key",
    "source_id",
]

Position = tuple[int, int]
"""Where a record was read: byte offset of its line, index among the line's records."""

_SAFE_KEY: Final = re.compile(r"[A-Za-z0-9_-]{1,80}")


def session_key(session: str) -> str:
    """The key of a session in subjects and buckets: itself if plain, else a stable hash.

    Subjects and keys allow few characters (no dots, spaces or wildcards inside a token);
    any other session name maps to ``h-`` and 40 hex digits of its SHA-256.
    """
    if _SAFE_KEY.fullmatch(session):
        return session
    return "h-" + hashlib.sha256(session.encode("utf-8", "surrogatepass")).hexdigest()[:40]


def partition_of(key: str, partitions: int) -> int:
    """The partition a session key belongs to (stable across processes and machines)."""
    return zlib.crc32(key.encode()) % partitions


def source_id(path: str) -> str:
    """A short stable id of a transcript file, for record positions and de-duplication ids."""
    return hashlib.blake2b(path.encode("utf-8", "surrogateescape"), digest_size=6).hexdigest()


def event_object(event: AnyEvent) -> dict[str, Any]:
    """``event.model_dump(exclude_defaults=True)``, for the JSON it is encoded to.

    The same keys in the same order with equal values, read off the model's fields
    instead of through its serializer (which copies the payload and was a third of a
    publisher's cost per record); ``tests/distributed/test_wire_and_state.py`` proves it.
    A :class:`DecodedEvent` gives the object of its :meth:`~DecodedEvent.model`.
    """
    if isinstance(event, DecodedEvent):
        return event.fields_set()
    out = without_defaults(event.__dict__)
    extra = event.__pydantic_extra__
    if extra:
        out.update(extra)
    return out


def record_object(record: FoldRecord) -> dict[str, Any]:
    """A record as a JSON-ready object (the inverse of :func:`record_of`)."""
    if isinstance(record, SkippedLine):
        return {"k": "s", "o": record.offset, "r": record.reason}
    return {"k": "e", "ev": event_object(record)}


def encode_record(record: FoldRecord) -> bytes:
    """The message for one event or skipped line."""
    return orjson.dumps(record_object(record))


def encode_positioned(record: FoldRecord, pos: Position) -> bytes:
    """One record of a batch, with its position (joined by :func:`encode_batch`)."""
    obj = record_object(record)
    obj["p"] = pos
    return orjson.dumps(obj)


def encode_batch(src: str, encoded: list[bytes]) -> bytes:
    """The message for consecutive records of one source, each from :func:`encode_positioned`."""
    return b'{"k":"b","src":' + orjson.dumps(src) + b',"recs":[' + b",".join(encoded) + b"]}"


def encode_held(records: Sequence[FoldRecord]) -> bytes:
    """The message that says which records an adapter holds back now."""
    return orjson.dumps({"k": "h", "recs": [record_object(r) for r in records]})


@dataclass(frozen=True, slots=True)
class Decoded:
    """A message read back: its records (one, or the held ones) and where they came from."""

    held: bool
    records: list[FoldRecord]
    src: str | None = None
    positions: list[Position] | None = None
    """Parallel to ``records`` for a batch read from a file."""


def record_of(obj: object) -> Record:
    """The record an object of :func:`record_object` describes; ValueError if none."""
    if not isinstance(obj, dict):
        raise ValueError("record is not a JSON object")
    kind = obj.get("k")
    if kind == "s":
        offset, reason = obj.get("o"), obj.get("r")
        if type(offset) is not int or not isinstance(reason, str):
            raise ValueError("skipped line without offset and reason")
        return SkippedLine(offset=offset, reason=reason)
    if kind == "e":
        ev = obj.get("ev")
        if type(ev) is not dict:
            raise ValueError("event is not a JSON object")
        record = event_from_object(ev, -1)
        if isinstance(record, SkippedLine):
            raise ValueError(record.reason)
        return record
    raise ValueError(f"unknown record kind {kind!r}")


def _position(obj: object) -> Position:
    pos = obj.get("p") if isinstance(obj, dict) else None
    if type(pos) is list and len(pos) == 2:
        # Checked without a generator: this runs for every record a worker folds.
        offset, index = pos
        if type(offset) is int and type(index) is int:
            return offset, index
    raise ValueError("batch record without a position")


def _batch(obj: dict[str, Any]) -> Decoded:
    src, recs = obj.get("src"), obj.get("recs")
    if not isinstance(src, str) or not isinstance(recs, list):
        raise ValueError("batch without source and records")
    return Decoded(
        held=False,
        records=[record_of(r) for r in recs],
        src=src,
        positions=[_position(r) for r in recs],
    )


# The fast path of decode: msgspec reads a batch or a single event straight into structs
# of the exact shapes the publisher writes, each event a DecodedEvent, its fields' types
# checked as the model's validator checks them (about a third of the cost of orjson then
# the validator, measured). Any message it does not take, for whatever reason (an event
# with fields beyond the model's, a skipped line, held records, anything malformed), goes
# the checked way below, which also words why a message is skipped.


class _PositionedEvent(msgspec.Struct, tag_field="k", tag="e", gc=False):
    ev: DecodedEvent
    p: tuple[Int64, Int64]


class _PositionedSkip(msgspec.Struct, tag_field="k", tag="s", gc=False):
    o: Int64
    r: str
    p: tuple[Int64, Int64]


class _Batch(msgspec.Struct, tag_field="k", tag="b", gc=False):
    src: str
    recs: list[_PositionedEvent | _PositionedSkip]


class _Single(msgspec.Struct, tag_field="k", tag="e", gc=False):
    ev: DecodedEvent


_decode_fast: Final = msgspec.json.Decoder(_Batch | _Single).decode


def _record(rec: _PositionedEvent | _PositionedSkip) -> FoldRecord:
    if isinstance(rec, _PositionedEvent):
        return rec.ev
    return SkippedLine(offset=rec.o, reason=rec.r)


def decode(body: bytes) -> Decoded | SkippedLine:
    """The records a message carries, or a :class:`SkippedLine` saying why it is malformed.

    Never raises: whatever is on the log, a worker counts it and goes on.
    """
    try:
        message = _decode_fast(body)
    except msgspec.DecodeError:
        return _decode_checked(body)
    if isinstance(message, _Single):
        return Decoded(held=False, records=[message.ev])
    recs = message.recs
    return Decoded(
        held=False,
        records=[_record(r) for r in recs],
        src=message.src,
        positions=[r.p for r in recs],
    )


def _decode_checked(body: bytes) -> Decoded | SkippedLine:
    """:func:`decode` through orjson and the model's validator, for any message."""
    try:
        obj = orjson.loads(body)
        if not isinstance(obj, dict):
            raise ValueError("message is not a JSON object")
        kind = obj.get("k")
        if kind == "b":
            return _batch(obj)
        if kind == "h":
            recs = obj.get("recs")
            if not isinstance(recs, list):
                raise ValueError("held message without records")
            return Decoded(held=True, records=[record_of(r) for r in recs])
        return Decoded(held=False, records=[record_of(obj)])
    except (orjson.JSONDecodeError, ValueError) as exc:
        reason = str(exc).split("\n", 1)[0][:200]
        return SkippedLine(offset=-1, reason=f"malformed message on the log: {reason}")
