"""Writing files that readers never see half-written, in directories only their owner enters.

Every file session-memory writes (outputs, state, the hook's records, the tokenizer cache) is
mode 0o600 from its creation and replaces the previous one in a single rename; every
directory it creates is 0o700. Paths are plain strings or path-like objects, handled with
:mod:`os.path`.
"""

from __future__ import annotations

import os
from collections.abc import Callable

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final, TypeAlias, TypeVar

StrPath: TypeAlias = str | os.PathLike[str]
if TYPE_CHECKING:
    _P = TypeVar("_P", bound=StrPath)

__all__ = [
    "DIR_MODE",
    "FILE_MODE",
    "TEMP_SUFFIX",
    "StrPath",
    "atomic_write",
    "ensure_private_dir",
    "fsync_dir",
    "rename_over",
    "temp_beside",
    "write_new",
]

FILE_MODE: Final = 0o600
"""Outputs and state are readable by their owner only: transcripts may hold secrets."""

DIR_MODE: Final = 0o700

TEMP_SUFFIX: Final = ".tmp"

_NOFOLLOW: Final = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC: Final = getattr(os, "O_CLOEXEC", 0)


def ensure_private_dir(path: _P, warn: Callable[[str], None] | None = None) -> _P:
    """Create ``path`` and any missing parents mode 0o700; warn about an open existing one.

    Every directory this creates is 0o700 (``Path.mkdir(parents=True)`` would give the parents the
    umask's mode). An existing ``path`` that its group or others may enter gets one warning: the
    memories in it may hold what the transcripts held. It goes to ``warn`` when given (the hook's
    own log), else to the logger ``session_memory.apps.memory_dir.outputs`` (imported only then: a
    hook call does not load logging).
    """
    missing: list[str] = []
    where = _text(path)
    probe = where or os.curdir
    while not os.path.exists(probe):
        missing.append(probe)
        parent = os.path.dirname(probe.rstrip(os.sep)) or os.curdir
        if parent == probe:
            break
        probe = parent
    for directory in reversed(missing):
        try:
            os.mkdir(directory, DIR_MODE)
        except FileExistsError:
            continue
        os.chmod(directory, DIR_MODE)  # the umask may have taken bits away
    if not os.path.isdir(path):
        raise NotADirectoryError(f"not a directory: {where}")
    if not missing:
        mode = os.stat(path).st_mode & 0o777
        if mode & 0o077:
            message = (
                f"{where} is accessible to its group or others (mode {mode:03o}); "
                "memories may hold secrets from the transcripts: chmod 700 it"
            )
            if warn is None:
                import logging

                warn = logging.getLogger("session_memory.apps.memory_dir.outputs").warning
            warn(message)
    return path


def _text(path: StrPath) -> str:
    return os.fspath(path)


def fsync_dir(path: StrPath) -> None:
    """Make renames inside ``path`` durable."""
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def atomic_write(
    path: StrPath, data: bytes, *, sync_dir: bool = True, durable: bool = True
) -> None:
    """Replace ``path`` with ``data`` so that readers see the old bytes or the new, never a mix.

    Temp file in the same directory (so the rename cannot cross file systems), mode 0o600
    from creation, fsync, ``os.replace``, then fsync of the directory (skip it with
    ``sync_dir=False`` when the caller syncs the directory once for several files). The
    rename replaces whatever entry ``path`` is (a planted symlink included), never its target.
    ``durable=False`` skips both fsyncs: still atomic for readers and across kills, durable
    only once the caller syncs (after a power cut the file may be old, empty or torn).
    """
    tmp = temp_beside(path)
    write_new(tmp, data, durable=durable)
    rename_over(tmp, path)
    if sync_dir and durable:
        fsync_dir(os.path.dirname(os.fspath(path)) or os.curdir)


def write_new(path: StrPath, data: bytes, *, durable: bool = True) -> None:
    """Create ``path`` (it must not exist, not even as a link), write, fsync unless not
    ``durable``; 0o600."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC, FILE_MODE)
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            if durable:
                os.fsync(fd)
        finally:
            os.close(fd)
    except BaseException:
        _remove_quietly(path)
        raise


def temp_beside(path: StrPath) -> str:
    """A fresh hidden temporary name in ``path``'s directory: ``.<name>.<8 hex>.tmp`` (the
    names a clean-up after a killed writer removes)."""
    head, name = os.path.split(os.fspath(path))
    return os.path.join(head, f".{name}.{os.urandom(4).hex()}{TEMP_SUFFIX}")


def rename_over(tmp: StrPath, path: StrPath) -> None:
    """Rename ``tmp`` over ``path`` in one step; on any failure ``tmp`` is removed."""
    try:
        os.replace(tmp, path)
    except BaseException:
        _remove_quietly(tmp)
        raise


def _remove_quietly(path: StrPath) -> None:
    """Unlink what a failed write left, if anything (the failure itself is what is raised;
    :mod:`contextlib` is not imported for this)."""
    try:
        os.unlink(path)
    except OSError:
        return
