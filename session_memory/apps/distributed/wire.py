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

from session_memory.core.events import (
    Record,
    SkippedLine,
    TranscriptEvent,
    event_fields,
    event_from_object,
)

__all__ = [
    "Decoded",
    "Position",
    "decode",
    "encode_batch",
    "encode_held",
    "encode_positioned",
    "encode_record",
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


def record_object(record: Record) -> dict[str, Any]:
    """A record as a JSON-ready object (the inverse of :func:`record_of`)."""
    if isinstance(record, SkippedLine):
        return {"k": "s", "o": record.offset, "r": record.reason}
    return {"k": "e", "ev": event_fields(record)}


def encode_record(record: Record) -> bytes:
    """The message for one event or skipped line."""
    return orjson.dumps(record_object(record))


def encode_positioned(record: Record, pos: Position) -> bytes:
    """One record of a batch, with its position (joined by :func:`encode_batch`)."""
    obj = record_object(record)
    obj["p"] = pos
    return orjson.dumps(obj)


def encode_batch(src: str, encoded: list[bytes]) -> bytes:
    """The message for consecutive records of one source, each from :func:`encode_positioned`."""
    return b'{"k":"b","src":' + orjson.dumps(src) + b',"recs":[' + b",".join(encoded) + b"]}"


def encode_held(records: Sequence[Record]) -> bytes:
    """The message that says which records an adapter holds back now."""
    return orjson.dumps({"k": "h", "recs": [record_object(r) for r in records]})


@dataclass(frozen=True, slots=True)
class Decoded:
    """A message read back: its records (one, or the held ones) and where they came from."""

    held: bool
    records: list[Record]
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
# of the exact shapes the publisher writes, each event a TranscriptEvent with its fields'
# types checked (about a third of the cost of orjson then the checks, measured). Any
# message it does not take, for whatever reason (an event with unknown fields, a skipped
# line, held records, anything malformed), goes the checked way below, which also words
# why a message is skipped. An integer beyond 64 bits stays an integer here, where orjson
# makes it a float; no encoder of the log (orjson) writes one.


class _PositionedEvent(msgspec.Struct, tag_field="k", tag="e", gc=False):
    ev: TranscriptEvent
    p: tuple[int, int]


class _PositionedSkip(msgspec.Struct, tag_field="k", tag="s", gc=False):
    o: int
    r: str
    p: tuple[int, int]


class _Batch(msgspec.Struct, tag_field="k", tag="b", gc=False):
    src: str
    recs: list[_PositionedEvent | _PositionedSkip]


class _Single(msgspec.Struct, tag_field="k", tag="e", gc=False):
    ev: TranscriptEvent


_decode_fast: Final = msgspec.json.Decoder(_Batch | _Single).decode


def _record(rec: _PositionedEvent | _PositionedSkip) -> Record:
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
    """:func:`decode` through orjson and :func:`event_from_object`, for any message."""
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
