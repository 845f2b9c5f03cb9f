"""What a clean stop of ``watch`` leaves beside the states: each transcript as it last saw it.

A restart over thousands of transcripts that did not change would otherwise read every
state file and both published files of each, to find them all unchanged. The index lets it
compare one ``lstat`` of each transcript with what the stop recorded instead, and read a
state only for a transcript that changed since (``docs/service-guarantees.md``).

It is input like a state: every field is type-checked as it is read, and any doubt discards
it whole (the restart then checks each state in full). It holds, for each transcript whose
state and outputs were complete at the stop, its file's identity, size (the state's offset),
modification and change times, the state's fingerprint and output name, and the inode of the
state file then. The service removes it as it starts, so a run that is killed leaves none.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Final, NamedTuple

import orjson

from session_memory.apps.memory_dir.files import read_regular
from session_memory.apps.memory_dir.writes import atomic_write, fsync_dir

__all__ = ["INDEX_FILE", "Recorded", "read_index", "state_inodes", "take_index", "write_index"]

INDEX_FILE: Final = "stopped.index"
"""In the state directory; not a ``.state`` file, so no transcript's state is ever named so."""

_FORMAT: Final = 1
_MAX_BYTES: Final = 256 * 1024 * 1024


class Recorded(NamedTuple):
    """One transcript as a clean stop left it: its state covers the file to its end."""

    path: str
    dev: int
    ino: int
    size: int
    mtime_ns: int
    ctime_ns: int
    fingerprint: str | None
    name: str | None
    state_ino: int


_FIELDS: Final = len(Recorded._fields)


def write_index(state_dir: Path, derives: list[object], recorded: list[Recorded]) -> None:
    """Write the index, durably; ``derives`` names how the states were derived (budget,
    encoding, format): an index of other ones is not used."""
    doc = {"format": _FORMAT, "derives": derives, "transcripts": [list(r) for r in recorded]}
    atomic_write(os.path.join(state_dir, INDEX_FILE), orjson.dumps(doc))


def take_index(state_dir: Path, derives: list[object]) -> dict[str, Recorded]:
    """The index a clean stop left, by transcript path, removed from disk; empty when there
    is none or on any doubt about it."""
    path = os.path.join(state_dir, INDEX_FILE)
    found = read_index(path, derives)
    # Durably: an index back after a power cut would describe states rewritten since (each
    # of which shows another inode, and a transcript that grew, but may as well not be read).
    with contextlib.suppress(OSError):
        os.unlink(path)
        fsync_dir(state_dir)
    return found


def read_index(path: str, derives: list[object]) -> dict[str, Recorded]:
    """The index at ``path``, read without removing it (see :func:`take_index`)."""
    data = read_regular(path, _MAX_BYTES)
    if data is None:
        return {}
    try:
        doc = orjson.loads(data)
        if doc["format"] != _FORMAT or doc["derives"] != derives:
            return {}
        recorded = [_recorded(row) for row in doc["transcripts"]]
    except (orjson.JSONDecodeError, KeyError, TypeError, ValueError):
        return {}
    return {r.path: r for r in recorded}


def state_inodes(state_dir: Path) -> dict[str, int]:
    """The inode of each file in the state directory, by name, from one listing (no
    ``stat``): a state written since the stop was renamed into place, a new inode."""
    try:
        with os.scandir(state_dir) as it:
            return {e.name: e.inode() for e in it}
    except OSError:
        return {}


def _recorded(row: object) -> Recorded:
    """One row checked field by field: unpacked at once and each count's type compared
    directly, a third of the time of a helper called for each (a restart reads 10,000 rows;
    target: watching within 1 s, issue 35)."""
    if type(row) is not list or len(row) != _FIELDS:
        raise ValueError("not a row of the index")
    path, dev, ino, size, mtime_ns, ctime_ns, fingerprint, name, state_ino = row
    if (
        type(path) is not str
        or not (fingerprint is None or type(fingerprint) is str)
        or not (name is None or type(name) is str)
    ):
        raise ValueError("a row of the index has a field of the wrong type")
    for value in (dev, ino, size, mtime_ns, ctime_ns, state_ino):
        if type(value) is not int or value < 0:
            raise ValueError(f"{value!r} is not a count")
    return Recorded(path, dev, ino, size, mtime_ns, ctime_ns, fingerprint, name, state_ino)
