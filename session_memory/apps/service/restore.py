"""What a transcript's state file gives back: a record kept on disk, a transcript restored in
memory, or, on any doubt, a transcript derived again from scratch.

The state is input like a transcript: its header is type- and range-checked as it is read
(:func:`~session_memory.apps.memory_dir.outputs.load_state`), and it must be for this path,
budget, encoding and format, restore to the very memory it was saved with, and name its
outputs as the service would (``docs/service-guarantees.md``).
"""

from __future__ import annotations

import os
from pathlib import Path

import orjson

from deriver import SessionMemoryDeriver
from session_memory.apps.memory_dir.outputs import (
    Outputs,
    TranscriptState,
    load_state,
    memory_hash,
    state_path,
)
from session_memory.apps.service.logs import logger
from session_memory.apps.service.names import Names, names_for
from session_memory.apps.service.options import Clock, Options
from session_memory.apps.service.transcript import DOUBT, Dormant, Transcript, memory_so_far
from session_memory.apps.tail import FileIdentity, FileTail, TailStatus
from session_memory.core.errors import StateError, TranscriptError
from session_memory.formats import AdapterBase, make_adapter, restore_adapter

__all__ = ["Restorer", "restore"]


class Restorer:
    """Reads states back for one service: its options, its outputs, its names."""

    def __init__(self, options: Options, outputs: Outputs, names: Names, clock: Clock) -> None:
        self._options = options
        self._outputs = outputs
        self._names = names
        self._clock = clock

    def fresh(self, real: str) -> Transcript:
        """A transcript to derive from byte 0."""
        return Transcript(
            path=real,
            tail=FileTail(real, resolved=True),
            deriver=self._options.new_deriver(),
            adapter=self._options.new_adapter(),
        )

    def dormant(self, real: str, spath: Path) -> Dormant | None:
        """The transcript as a record on disk, when its state is exactly what is published
        and the file has not changed since: no restore needed. None on any doubt
        (:meth:`load` then restores and checks it in full).

        The state's header passes :func:`load_state`'s checks, is for this path, budget,
        encoding and format; the file has the state's identity, its size is the offset and
        the fingerprint of the consumed prefix matches; the published pair has the hashes
        the state kept; and the state's output name is one this service would give (the
        session id read from that very JSON).
        """
        try:
            state = load_state(spath)
        except StateError:
            return None
        if (
            state.path != real
            or not self._options.derives_like(state)
            or (state.name is not None and not self._published_as(real, state))
        ):
            return None
        identity = FileIdentity(state.dev, state.ino)
        tail = FileTail(real, state.offset, state.fingerprint, identity, resolved=True)
        try:
            if tail.check() is not TailStatus.UNCHANGED:
                return None
            with tail.look() as look:
                if look.status is not TailStatus.UNCHANGED:
                    return None
        except TranscriptError:
            return None
        if state.name is not None:
            self._names.keep(state.name, real)
        return Dormant(tail)

    def _published_as(self, real: str, state: TranscriptState) -> bool:
        """Whether the state's name is free or its own, one of its names, and published with
        exactly the pair the state was saved with."""
        name = state.name
        if name is None or not state.markdown_hash or not self._names.free_for(name, real):
            return False
        pair = self._outputs.published(name)
        if pair is None or (memory_hash(pair.markdown), memory_hash(pair.json)) != (
            state.markdown_hash,
            state.memory_hash,
        ):
            return False
        try:
            session = orjson.loads(pair.json).get("session_id")
        except (orjson.JSONDecodeError, AttributeError):
            return False
        return name in names_for(real, session if isinstance(session, str) else None)

    def load(self, real: str) -> Transcript:
        """Resume from the state when every check of it passes; else derive from scratch.

        Its snapshot must restore to the very memory it was saved with, and its output name
        must be one this service would give the transcript. Any doubt: one WARNING, and the
        transcript is rebuilt.
        """
        spath = state_path(self._options.state_dir, real)
        if not os.path.lexists(spath):
            return self.fresh(real)
        try:
            state = load_state(spath)
            if state.path != real:
                raise StateError(f"state {spath} belongs to another transcript")
            if not self._options.derives_like(state):
                raise StateError("state was derived with another budget, encoding or format")
            deriver, adapter = restore(state)
            if state.name is not None and not self._names.free_for(state.name, real):
                raise StateError(f"state names its outputs {state.name!r}, taken by another")
            if state.name is not None and state.name not in names_for(real, deriver.session_id):
                raise StateError(
                    f"state names its outputs {state.name[:80]!r}, not a name of its own"
                )
        except DOUBT as exc:
            logger.warning("rebuilding %s from scratch: %s", real, exc)
            return self.fresh(real)
        if state.name is not None:
            self._names.keep(state.name, real)
        return Transcript(
            path=real,
            tail=FileTail(
                real,
                state.offset,
                state.fingerprint,
                FileIdentity(state.dev, state.ino),
                resolved=True,
            ),
            deriver=deriver,
            adapter=adapter,
            name=state.name,
            restored=True,
            state_saved=self._clock(),  # what it holds is on disk: a burst need not save it
        )


def restore(state: TranscriptState) -> tuple[SessionMemoryDeriver, AdapterBase]:
    """The deriver and adapter of a state, proven to give the memory it was saved with.

    A snapshot edited into wrong types may restore without complaint: it must also be a
    fixed point (restored and snapshotted again, the same bytes) and give the memory whose
    hash the state kept, else :class:`StateError`.
    """
    deriver = SessionMemoryDeriver.restore(state.snapshot)
    adapter = (
        make_adapter(state.transcript_format)
        if state.adapter is None
        else restore_adapter(state.adapter)
    )
    if deriver.snapshot() != state.snapshot:
        raise StateError("the snapshot does not restore to itself")
    if adapter.snapshot() != state.adapter and state.adapter is not None:
        raise StateError("the adapter state does not restore to itself")
    partial = Transcript(
        path=state.path,
        tail=FileTail(state.path, resolved=True),
        deriver=deriver,
        adapter=adapter,
    )
    if memory_hash(memory_so_far(partial).to_json()) != state.memory_hash:
        raise StateError("the snapshot gives another memory than the one it was saved with")
    return deriver, adapter
