"""Which transcripts the service knows, and where each is held: in memory, only on disk (its
state, restored when it changes), or found and not yet derived; the cap on those in memory,
and eviction of the least recently active and the idle."""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Mapping
from typing import Final

from session_memory.apps.memory_dir.outputs import state_path
from session_memory.apps.service.logs import FailureLog, logger
from session_memory.apps.service.options import Clock, Options
from session_memory.apps.service.restore import Restorer
from session_memory.apps.service.transcript import Dormant, Transcript
from session_memory.apps.tail import FileTail

__all__ = ["IDLE_SECONDS", "RESIDENT_MAX", "Residency"]

RESIDENT_MAX: Final = 256
"""At most this many transcripts are kept in memory; the least recently active go to disk."""

IDLE_SECONDS: Final = 300.0
"""A transcript without an append for this long is kept only on disk, as its state."""


class Residency:
    """The known transcripts of one service, by real path, and the paths they were found at.

    ``transcripts`` are in memory, least recently active first; ``dormant`` only on disk;
    ``unborn`` found and not derived yet. A transcript is in one of the three at most.
    """

    def __init__(
        self, options: Options, restorer: Restorer, failures: FailureLog, clock: Clock
    ) -> None:
        self._options = options
        self._restorer = restorer
        self._failures = failures
        self._clock = clock
        self.transcripts: dict[str, Transcript] = {}
        self.dormant: dict[str, Dormant] = {}
        self.unborn: set[str] = set()
        self.aliases: dict[str, str] = {}  # every path a transcript was found at: its real one

    def __len__(self) -> int:
        return len(self.transcripts) + len(self.dormant) + len(self.unborn)

    def add(self, path: str, real: str | None = None, *, listed: bool = True) -> str | None:
        """Register a transcript found at ``path`` (``real``: its real path, when the finder
        knows it): its real path, None if already known.

        One with a state is resumed from it (kept on disk when nothing changed since, see
        :meth:`Restorer.dormant`); one without is derived when :meth:`resident` is asked for
        it. Each is named in the log at info level when ``listed``, else at debug level.
        """
        level = logging.INFO if listed else logging.DEBUG
        real = os.path.realpath(path) if real is None else real
        self.aliases[path] = real
        if real in self.transcripts or real in self.dormant or real in self.unborn:
            return None
        dormant = self._restorer.recorded(real)
        if dormant is not None:
            self.dormant[real] = dormant
            logger.debug(
                "tailing %s from byte %d, unchanged since the stop", real, dormant.tail.offset
            )
            return real
        spath = state_path(self._options.state_dir, real)
        if not os.path.lexists(spath):
            self.unborn.add(real)
            logger.log(level, "tailing %s from byte 0", real)
            return real
        dormant = self._restorer.dormant(real, spath)
        if dormant is not None:
            self.dormant[real] = dormant
            logger.debug("tailing %s from byte %d, kept on disk", real, dormant.tail.offset)
            return real
        t = self._restorer.load(real)
        self.admit(t)
        logger.log(
            level,
            "tailing %s from byte %d%s",
            real,
            t.tail.offset,
            f" (session {t.name})" if t.name else "",
        )
        return real

    def resident(self, real: str) -> Transcript | None:
        """The transcript in memory: restored from disk or created when it is not."""
        t = self.transcripts.get(real)
        if t is not None:
            return t
        if real in self.unborn:
            self.unborn.discard(real)
            return self.admit(self._restorer.fresh(real))
        dormant = self.dormant.pop(real, None)
        if dormant is None:
            return None
        t = self._restorer.load(real)
        t.events_read, t.lines_skipped = dormant.events_read, dormant.lines_skipped
        logger.debug("%s changed: restored from its state", real)
        return self.admit(t)

    def admit(self, t: Transcript) -> Transcript:
        """Keep ``t`` in memory as the most recently active; the least active past the cap
        go to disk."""
        t.last_active = self._clock()
        self.transcripts[t.path] = t
        self.enforce_cap()
        return t

    def touch(self, t: Transcript) -> None:
        """``t`` was just active: it goes last in the order of eviction."""
        t.last_active = self._clock()
        if self.transcripts.get(t.path) is t:
            del self.transcripts[t.path]
            self.transcripts[t.path] = t

    def forget(self, path: str) -> None:
        """Stop tailing the transcript at ``path``: out of memory, and no longer known by
        any path it was found at."""
        del self.transcripts[path]
        for alias in [a for a, real in self.aliases.items() if real == path]:
            del self.aliases[alias]

    def on_disk(
        self, names: Mapping[str, list[str]]
    ) -> list[tuple[FileTail, str | None, tuple[int, int] | None]]:
        """Every transcript whose state and outputs hold all it knows: its tail, output name
        and the times its file must have when it was not ``stat``ed since a clean stop
        recorded them (:attr:`Dormant.times`). ``names``: the names each owns, by path; one
        only on disk that owns several, as after its file was replaced, is left out: which
        is its state's is not known."""
        kept = [
            (d.tail, next(iter(names.get(real, [])), None), d.times)
            for real, d in self.dormant.items()
            if len(names.get(real, [])) < 2
        ]
        kept += [(t.tail, t.name, None) for t in self.transcripts.values() if self.evictable(t)]
        return kept

    def evictable(self, t: Transcript) -> bool:
        """Whether the state on disk holds everything ``t`` knows (and its outputs are out)."""
        return not (
            t.outputs_stale or t.state_stale or t.unreadable or self._failures.is_failing(t.path)
        )

    def enforce_cap(self) -> None:
        """To disk, least recently active first, until no more than the cap are in memory
        (or none left there can go)."""
        while len(self.transcripts) > self._options.resident_max:
            victim = next((t for t in self.transcripts.values() if self.evictable(t)), None)
            if victim is None:
                return
            self._evict(victim)

    def evict_idle(self) -> None:
        """Keep on disk only the transcripts idle for ``idle_seconds`` (least active first)."""
        now = self._clock()
        for t in list(self.transcripts.values()):
            if now - t.last_active < self._options.idle_seconds:
                return
            if self.evictable(t):
                self._evict(t)

    def settle(self, t: Transcript) -> None:
        """After catching up on ``t``: to disk when its file has been idle for a while."""
        if self.transcripts.get(t.path) is not t or not self.evictable(t):
            return
        try:
            age = time.time() - os.lstat(t.path).st_mtime
        except OSError:
            return
        if age >= self._options.idle_seconds:
            self._evict(t)

    def _evict(self, t: Transcript) -> None:
        """Keep ``t`` only on disk: its state, and its tail's position for the sweep."""
        del self.transcripts[t.path]
        self.dormant[t.path] = Dormant(t.tail, t.events_read, t.lines_skipped)
