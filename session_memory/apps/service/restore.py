"""What a transcript's state file gives back: a record kept on disk, a transcript restored in
memory, or, on any doubt, a transcript derived again from scratch.

The state is input like a transcript: its header is type- and range-checked as it is read
(:func:`~session_memory.apps.memory_dir.outputs.load_state`), and it must be for this path,
budget, encoding and format, restore to the very memory it was saved with, and name its
outputs as the service would (``docs/service-guarantees.md``).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

import orjson

from deriver import SessionMemoryDeriver
from session_memory.apps.memory_dir.index import (
    Recorded,
    state_inodes,
    take_index,
    write_index,
)
from session_memory.apps.memory_dir.outputs import (
    Outputs,
    TranscriptState,
    load_state,
    memory_hash,
    state_path,
)
from session_memory.apps.memory_dir.state import state_name
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
        self._recorded: dict[str, Recorded] = {}
        self._inodes: dict[str, int] = {}
        self._linked: set[str] = set()

    def take_index(self) -> None:
        """Take what the last clean stop recorded (:mod:`~session_memory.apps.memory_dir.index`),
        for :meth:`recorded`; the index is removed from disk."""
        options = self._options
        self._recorded = take_index(options.state_dir, self._derives())
        if self._recorded:
            self._inodes = state_inodes(options.state_dir)
            self._linked = self._outputs.linked_names()

    def drop_index(self) -> None:
        """The catch-up is over: what the index and the listings said is no longer current."""
        self._recorded, self._inodes, self._linked = {}, {}, set()

    def recorded(self, real: str) -> Dormant | None:
        """The transcript kept on disk, with no state read, when the last clean stop recorded
        it and its state and outputs are as then: its state file is the one of then (its
        inode, from one listing of the state directory) and its outputs' links are in place
        (one listing of the output directory). None otherwise: :meth:`dormant` then checks
        its state in full.

        The file itself is not looked at here: the first ``stat`` of the sweep, once the
        notifications have begun, must find it as recorded (identity, size, modification
        and change times: :attr:`Dormant.times`), else it is restored from its state and
        read on, as any transcript kept on disk that changed. So a restart ``stat``s each
        transcript once, not twice (target: a restart over 10,000 unchanged transcripts
        watching within 1 s, issue 35).
        """
        r = self._recorded.pop(real, None)
        if r is None:
            return None
        if self._inodes.get(state_name(real)) != r.state_ino or (
            r.name is not None
            and (r.name not in self._linked or not self._names.free_for(r.name, real))
        ):
            return None
        if r.name is not None:
            self._names.keep(r.name, real)
        identity = FileIdentity(r.dev, r.ino)
        tail = FileTail(real, r.size, r.fingerprint, identity, resolved=True)
        return Dormant(tail, times=(r.mtime_ns, r.ctime_ns))

    def record(self, kept: Iterable[tuple[FileTail, str | None, tuple[int, int] | None]]) -> int:
        """Leave the index for the next start: each of ``kept`` (a tail whose state and
        outputs are on disk, its output name, and the modification and change times its file
        must have, if any), once a look at its file finds it just as its state says,
        fingerprint included. Returns how many were recorded."""
        state_dir = self._options.state_dir
        inodes = state_inodes(state_dir)
        recorded = []
        for tail, name, times in kept:
            state_ino = inodes.get(state_name(tail.path))
            try:
                with tail.look() as look:
                    st = look.stat
                    if (
                        state_ino is None
                        or st is None
                        or look.status is not TailStatus.UNCHANGED
                        or times not in (None, (st.st_mtime_ns, st.st_ctime_ns))
                    ):
                        continue
            except TranscriptError:
                continue
            recorded.append(
                Recorded(
                    tail.path,
                    st.st_dev,
                    st.st_ino,
                    st.st_size,
                    st.st_mtime_ns,
                    st.st_ctime_ns,
                    tail.fingerprint,
                    name,
                    state_ino,
                )
            )
        try:
            write_index(state_dir, self._derives(), recorded)
        except OSError as exc:
            logger.warning("cannot write the index of transcripts for the next start: %s", exc)
            return 0
        return len(recorded)

    def _derives(self) -> list[object]:
        options = self._options
        return [options.budget_tokens, options.encoding, options.format]

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
