"""The output name of each transcript: which session name it claimed, and which it may claim.

A session's outputs are named after the ``session_id`` of its events (sanitised by
:func:`~session_memory.apps.memory_dir.outputs.safe_name`), else after the transcript's file
name, decided when its memory is first written and then kept in its state. When two
transcripts claim the same name, the one that claimed it first keeps it and the other gets
``-<8 hex>`` of the hash of its path appended, so both memories are kept and the choice
survives restarts.
"""

from __future__ import annotations

from hashlib import sha256

from session_memory.apps.memory_dir.outputs import safe_name
from session_memory.apps.service.logs import logger
from session_memory.apps.tail import transcript_stem

__all__ = ["Names", "names_for"]


class Names:
    """Which transcript (by real path) owns each output name."""

    def __init__(self) -> None:
        self._owners: dict[str, str] = {}

    def free_for(self, name: str, path: str) -> bool:
        """Whether ``name`` is unclaimed or claimed by ``path`` itself."""
        return self._owners.get(name, path) == path

    def keep(self, name: str, path: str) -> None:
        """``path``'s state names its outputs ``name``: it keeps it (unless claimed first)."""
        self._owners.setdefault(name, path)

    def claim(self, path: str, session: str | None) -> str:
        """The output name of a transcript first written now (its session's, if free)."""
        base = safe_name(session) if session else safe_name(transcript_stem(path))
        owner = self._owners.get(base)
        if owner is not None and owner != path:
            base = _suffixed(base, path)
            logger.info("session name taken by %s; writing %s as %s", owner, path, base)
        self._owners.setdefault(base, path)
        return base

    def owned(self) -> dict[str, list[str]]:
        """The names each transcript owns, by real path."""
        owned: dict[str, list[str]] = {}
        for name, owner in self._owners.items():
            owned.setdefault(owner, []).append(name)
        return owned

    def release(self, path: str) -> None:
        """``path`` gives up every name it owns (it was deleted)."""
        for name in [n for n, owner in self._owners.items() if owner == path]:
            del self._owners[name]


def names_for(path: str, session: str | None) -> set[str]:
    """Every output name the service could give a transcript: a state's must be one."""
    bases = {safe_name(transcript_stem(path))}
    if session:
        bases.add(safe_name(session))
    return bases | {_suffixed(base, path) for base in bases}


def _suffixed(base: str, path: str) -> str:
    """``base`` made unique to one transcript: ``-<8 hex>`` of the hash of its path."""
    digest = sha256(path.encode("utf-8", "surrogateescape")).hexdigest()[:8]
    return safe_name(f"{base}-{digest}")
