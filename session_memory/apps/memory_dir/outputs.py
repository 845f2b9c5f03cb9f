"""Where the service keeps things on disk: the outputs it publishes and the state it saves.

The state file of a transcript is the single source of truth for resuming it: it holds the
deriver snapshot *and* the byte offset that snapshot has consumed, so the two can never
disagree; it is read like any untrusted input (:func:`load_state`). The outputs
(``.memory.json``, ``.memory.md``) are a cache derived from it, published as one generation
by :class:`Outputs` before the state is written, so a kill at any instant leaves either the
old pair or the new one, never half of each. The write order and its guarantees are in
``docs/service-guarantees.md``.

The names and bytes of both, and reading them, are :mod:`session_memory.apps.memory_dir.state`; the
atomic writes and private directories are :mod:`session_memory.apps.memory_dir.writes`. Both are
lean enough for a hook call whose state is current; this module, the writer, re-exports what its
callers use of them.
"""

from __future__ import annotations

import contextlib
import os
import re
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Final

from session_memory.apps.memory_dir.files import read_regular
from session_memory.apps.memory_dir.state import (
    FINGERPRINT_WINDOW,
    GENERATIONS_DIRNAME,
    JSON_FILE,
    JSON_SUFFIX,
    MAX_NAME,
    MAX_OUTPUT_BYTES,
    MAX_STATE_BYTES,
    MD_FILE,
    MD_SUFFIX,
    POINTER_SUFFIX,
    STATE_FORMAT,
    OutputPair,
    TranscriptState,
    compact_json,
    fingerprint,
    load_state,
    memory_hash,
    read_published,
    safe_name,
    state_bytes,
    state_file_name,
)
from session_memory.apps.memory_dir.writes import (
    DIR_MODE,
    FILE_MODE,
    TEMP_SUFFIX,
    StrPath,
    atomic_write,
    ensure_private_dir,
    fsync_dir,
    rename_over,
    temp_beside,
    write_new,
)
from session_memory.core.errors import StateError

__all__ = [
    "DIR_MODE",
    "FILE_MODE",
    "FINGERPRINT_WINDOW",
    "GENERATIONS_DIRNAME",
    "JSON_SUFFIX",
    "MAX_NAME",
    "MAX_OUTPUT_BYTES",
    "MAX_STATE_BYTES",
    "MD_SUFFIX",
    "STATE_FORMAT",
    "TEMP_SUFFIX",
    "OutputPair",
    "Outputs",
    "StateError",
    "TranscriptState",
    "atomic_write",
    "compact_json",
    "ensure_private_dir",
    "fingerprint",
    "fsync_dir",
    "load_state",
    "memory_hash",
    "remove_generation",
    "remove_orphans",
    "safe_name",
    "save_state",
    "state_path",
    "write_new",
]

_TEMP_NAME: Final = re.compile(r"\..+\.[0-9a-f]{8}\.tmp")
_GENERATION_NAME: Final = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9._-]*\.[0-9]+")
_POINTER: Final = POINTER_SUFFIX
_MD_FILE: Final = MD_FILE
_JSON_FILE: Final = JSON_FILE


def remove_orphans(directory: Path) -> int:
    """Delete the temp files a killed writer left in ``directory``; how many went.

    Only names :func:`atomic_write` makes (``.<name>.<8 hex>.tmp``) are touched, and only
    entries themselves (a link is unlinked, never followed).
    """
    removed = 0
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return 0
    for entry in entries:
        if _TEMP_NAME.fullmatch(entry.name) and not entry.is_dir(follow_symlinks=False):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(entry.path)
                removed += 1
    return removed


def state_path(state_dir: StrPath, transcript: str) -> Path:
    """The state file of a transcript: named by the hash of its real path."""
    return Path(state_file_name(state_dir, transcript))


def save_state(state_dir: Path, state: TranscriptState, *, durable: bool = True) -> None:
    """Write the state atomically: a JSON header line, then the raw snapshot bytes
    (``durable=False``: without fsyncs, see :func:`atomic_write`)."""
    atomic_write(state_file_name(state_dir, state.path), state_bytes(state), durable=durable)


# ---------------------------------------------------------------------- published outputs


class Outputs:
    """The memories published in one output directory, each pair as one generation.

    ``<out>/<name>.memory.md`` and ``<out>/<name>.memory.json`` are symbolic links through
    one pointer, ``<out>/.generations/<name>.current``, to the generation directory
    ``<name>.<N>`` that holds both files. A new pair is written whole into generation
    ``N+1`` (each file fsynced, then the directory), and published by renaming a new pointer
    over the old one: one atomic step, so at every instant both names show the same
    generation, whatever moment the writer is killed at. The write order and what it
    guarantees across kills and power loss are in ``docs/service-guarantees.md``.
    """

    def __init__(self, out_dir: Path) -> None:
        self.out_dir = out_dir
        self.generations = out_dir / GENERATIONS_DIRNAME
        # The same as text, which the writes below join: joining paths with pathlib was a
        # fifth of the service's own time in a catch-up of 10,000 transcripts (py-spy).
        self._out = os.fspath(out_dir)
        self._generations = os.fspath(self.generations)

    def paths(self, name: str) -> tuple[Path, Path]:
        """The ``.memory.json`` and ``.memory.md`` names of a session in the output dir."""
        json, md = self._names(name)
        return Path(json), Path(md)

    def matches(self, name: str, pair: OutputPair) -> bool:
        """True when ``name`` is published with exactly these bytes, links included.

        Reads the current generation's files no-follow with a cap of the expected size, so
        an output swapped for ``/dev/zero`` or a huge file costs nothing.
        """
        generation = self._current(name)
        if generation is None or not self._links_ok(name):
            return False
        directory = os.path.join(self._generations, f"{name}.{generation}")
        md, json = os.path.join(directory, _MD_FILE), os.path.join(directory, _JSON_FILE)
        return read_regular(md, len(pair.markdown)) == pair.markdown and (
            read_regular(json, len(pair.json)) == pair.json
        )

    def read(self, name: str) -> OutputPair | None:
        """The published pair of ``name``, both files of one generation; None if there is none.

        The pointer is resolved once (the generation directory is opened), and both files
        are opened relative to that directory: a switch in between cannot mix generations.
        This is how a reader that needs the two files to agree should read them.
        """
        return read_published(self.out_dir, name)

    def published(self, name: str) -> OutputPair | None:
        """Like :meth:`read`, and only when both names in the output directory lead to it."""
        return self.read(name) if self._links_ok(name) else None

    def publish(
        self,
        name: str,
        pair: OutputPair,
        *,
        markdown_unchanged: bool = False,
        durable: bool = True,
        discard: Callable[[str], object] | None = None,
    ) -> None:
        """Publish a new generation of ``name``'s pair; both names switch at once.

        With ``markdown_unchanged`` the Markdown of the current generation is hard-linked
        into the new one instead of written again (it is already durable, or as durable as
        the generation it came from). ``durable=False`` skips every fsync: the switch is
        still atomic for readers and across kills, and durable once the caller syncs.
        The generation replaced is removed here, or handed to ``discard`` (its directory),
        which removes it later with :func:`remove_generation`; no pointer leads to it any
        more, so a kill before then leaves it to :meth:`clean`.
        """
        generations = self._generations
        current = self._current(name)
        generation = (current or 0) + 1
        directory = os.path.join(generations, f"{name}.{generation}")
        _make_generation(directory)
        md = os.path.join(directory, _MD_FILE)
        if not (
            markdown_unchanged
            and current is not None
            and _link(
                os.path.join(generations, f"{name}.{current}", _MD_FILE), md, len(pair.markdown)
            )
        ):
            write_new(md, pair.markdown, durable=durable)
        write_new(os.path.join(directory, _JSON_FILE), pair.json, durable=durable)
        if durable:
            fsync_dir(directory)
        pointer = os.path.join(generations, f"{name}{_POINTER}")
        _replace_link(pointer, f"{name}.{generation}", absent=current is None)
        if durable:
            fsync_dir(generations)
        if not self._links_ok(name):
            for path, file in zip(self._names(name), (_JSON_FILE, _MD_FILE), strict=True):
                _replace_link(path, f"{GENERATIONS_DIRNAME}/{name}{_POINTER}/{file}", absent=True)
            if durable:
                fsync_dir(self._out)
        if current is not None and current != generation:
            (discard or remove_generation)(os.path.join(generations, f"{name}.{current}"))

    def linked_names(self) -> set[str]:
        """The names whose two links and pointer are in place, from one listing of the output
        directory and one of its generations (no ``stat``, no ``readlink``)."""
        links, pointers = _symlinks(self._out), _symlinks(self._generations)
        return {
            name
            for name in (p.removesuffix(_POINTER) for p in pointers if p.endswith(_POINTER))
            if f"{name}{JSON_SUFFIX}" in links and f"{name}{MD_SUFFIX}" in links
        }

    def sync(self, name: str) -> None:
        """fsync everything a published pair rests on (after a restart found it in place)."""
        generation = self._current(name)
        if generation is not None:
            fsync_dir(self.generations / f"{name}.{generation}")
        if self.generations.is_dir():
            fsync_dir(self.generations)
        fsync_dir(self.out_dir)

    def clean(self) -> int:
        """Remove what killed writers left: temp files, pointer temps, unpublished generations.

        Run at start, before anything is written. Returns how many entries went.

        A pointer is read only for a name with other than one generation: a publication
        makes the new generation before it moves the pointer, and removes the old one only
        after, so the one generation of a name with a pointer is the one it leads to (target:
        a restart over 10,000 unchanged transcripts watching within 1 s, issue 35; reading
        every pointer was a tenth of it).
        """
        removed = remove_orphans(self.out_dir)
        try:
            entries = list(os.scandir(self.generations))
        except OSError:
            return removed
        pointers = set()
        by_name: dict[str, list[os.DirEntry[str]]] = {}
        for entry in entries:
            if _TEMP_NAME.fullmatch(entry.name) and not entry.is_dir(follow_symlinks=False):
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(entry.path)
                    removed += 1
            elif entry.name.endswith(_POINTER) and entry.is_symlink():
                pointers.add(entry.name.removesuffix(_POINTER))
            elif _GENERATION_NAME.fullmatch(entry.name) and entry.is_dir(follow_symlinks=False):
                by_name.setdefault(entry.name.rpartition(".")[0], []).append(entry)
        for name, generations in by_name.items():
            if len(generations) == 1 and name in pointers:
                continue
            published = None
            if name in pointers:
                with contextlib.suppress(OSError):
                    published = os.readlink(os.path.join(self._generations, f"{name}{_POINTER}"))
            for entry in generations:
                if entry.name != published:
                    remove_generation(Path(entry.path))
                    removed += 1
        return removed

    def _current(self, name: str) -> int | None:
        """The published generation of ``name``, from its pointer (never followed)."""
        try:
            target = os.readlink(os.path.join(self._generations, f"{name}{_POINTER}"))
        except OSError:
            return None
        stem, dot, number = target.rpartition(".")
        if stem != name or not dot or not number.isdigit() or not number.isascii():
            return None
        return int(number)

    def _names(self, name: str) -> tuple[str, str]:
        """:meth:`paths` as text."""
        return (
            os.path.join(self._out, f"{name}{JSON_SUFFIX}"),
            os.path.join(self._out, f"{name}{MD_SUFFIX}"),
        )

    def _links_ok(self, name: str) -> bool:
        for path, file in zip(self._names(name), (_JSON_FILE, _MD_FILE), strict=True):
            try:
                if os.readlink(path) != f"{GENERATIONS_DIRNAME}/{name}{_POINTER}/{file}":
                    return False
            except OSError:
                return False
        return True


def _symlinks(directory: str) -> set[str]:
    """The names of the symbolic links in ``directory`` (its listing's entry types)."""
    try:
        with os.scandir(directory) as it:
            return {e.name for e in it if e.is_symlink()}
    except OSError:
        return set()


def _make_generation(directory: str) -> None:
    """Create a generation directory; its parent too the first time, and over an orphan of
    a kill before its pointer moved.

    Tried first, rather than checked: the three ``stat``s of making sure the parent exists
    and the ``lstat`` of looking for an orphan were a fifth of a publication's system calls
    when 100 transcripts are appended at once (target: p99 250 ms at 10,000 watched, issue
    35).
    """
    try:
        os.mkdir(directory, DIR_MODE)
    except FileNotFoundError:
        ensure_private_dir(os.path.dirname(directory))
        os.mkdir(directory, DIR_MODE)
    except FileExistsError:
        remove_generation(directory)
        os.mkdir(directory, DIR_MODE)


def _link(source: str, target: str, size: int) -> bool:
    """Hard-link ``source`` as ``target`` if it is still a regular file of ``size`` bytes."""
    try:
        st = os.lstat(source)
        if not stat.S_ISREG(st.st_mode) or st.st_size != size:
            return False
        os.link(source, target, follow_symlinks=False)
    except OSError:
        return False
    return True


def _replace_link(path: str, target: str, *, absent: bool = False) -> None:
    """Point the symbolic link ``path`` at ``target`` in one rename (over any entry).

    ``absent``: ``path`` is likely not there yet (a first publication), and then the link
    is made in place, also one atomic step; if something is there, it is renamed over.
    """
    if absent:
        try:
            os.symlink(target, path)
            return
        except FileExistsError:
            pass
    tmp = temp_beside(path)
    os.symlink(target, tmp)
    rename_over(tmp, path)


def remove_generation(directory: StrPath) -> None:
    """Delete one generation directory, one no pointer leads to: its entries (never
    followed), then itself."""
    with contextlib.suppress(FileNotFoundError):
        for entry in os.scandir(directory):
            if not entry.is_dir(follow_symlinks=False):
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(entry.path)
        with contextlib.suppress(OSError):
            os.rmdir(directory)
