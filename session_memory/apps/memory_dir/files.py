"""Opening files that someone else may have swapped: regular files only, never followed.

Transcripts, outputs and state live in directories other programs write to. A path that held
a regular file a moment ago may now be a symbolic link to a file elsewhere, a FIFO (whose
``open`` blocks until a writer comes), a device such as ``/dev/zero`` (endless) or
``/dev/urandom``, or a directory. Every read of the service goes through
:func:`open_regular`: ``O_NOFOLLOW`` (a link at the last component is refused, not
followed), ``O_NONBLOCK`` (a FIFO opens at once instead of blocking), then ``fstat`` of the
descriptor that is read from (a regular file, or nothing). :func:`fd_path` tells where the
opened file really is, so a swapped *directory* further up the path is caught too, and
:func:`read_regular` reads with a size cap.

A hard link is not a swap: a second name of a regular file is that file, wherever its other
names are. A hard link planted in a watched directory to a file outside it is read like any
transcript there (hard links cannot cross file systems, and making one needs write access to
the watched directory); see ``docs/service-guarantees.md``.
"""

from __future__ import annotations

import errno
import os
import stat
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

__all__ = ["OPEN_FLAGS", "fd_path", "open_regular", "read_regular"]

OPEN_FLAGS: Final = (
    os.O_RDONLY
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_CLOEXEC", 0)
)
"""Read-only, the last component never followed, never blocking on a FIFO, not inherited."""

# What open(2) says for a path that is not a regular file we may read: a symlink under
# O_NOFOLLOW (ELOOP; EMLINK on the BSDs), a socket (ENXIO), a FIFO opened elsewhere (ENXIO).
_NOT_REGULAR: Final = frozenset({errno.ELOOP, errno.EMLINK, errno.ENXIO, errno.EISDIR})


def open_regular(
    path: str | os.PathLike[str], *, dir_fd: int | None = None
) -> tuple[int, os.stat_result] | None:
    """A descriptor of the regular file at ``path`` and its ``fstat``, or None.

    None when ``path`` is a symbolic link, FIFO, socket, device or directory. A missing file
    raises :class:`FileNotFoundError`; other failures raise their :class:`OSError`. The
    caller closes the descriptor. ``dir_fd`` makes a relative ``path`` relative to an open
    directory.
    """
    try:
        fd = os.open(path, OPEN_FLAGS, dir_fd=dir_fd)
    except OSError as exc:
        if exc.errno in _NOT_REGULAR:
            return None
        raise
    try:
        st = os.fstat(fd)
    except OSError:
        os.close(fd)
        raise
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        return None
    return fd, st


def fd_path(fd: int) -> str | None:
    """The real path of an open file, or None where the platform cannot tell.

    Linux answers through ``/proc/self/fd``, macOS through ``F_GETPATH``. A deleted file
    gives a path that exists nowhere (``... (deleted)``), which matches no transcript.
    """
    if sys.platform == "linux":
        try:
            return os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            return None
    if sys.platform == "darwin":  # pragma: no cover - exercised on macOS only
        import fcntl

        try:
            raw = fcntl.fcntl(fd, fcntl.F_GETPATH, bytes(1024))
        except OSError:
            return None
        return os.fsdecode(raw.split(b"\0", 1)[0])
    return None  # pragma: no cover


def read_regular(
    path: str | os.PathLike[str], cap: int, *, dir_fd: int | None = None
) -> bytes | None:
    """The bytes of the regular file at ``path`` when it holds at most ``cap`` bytes.

    None when the path is missing, is not a regular file (see :func:`open_regular`), cannot
    be read, or is larger than ``cap``: a file planted as ``/dev/zero`` or grown to gigabytes
    is never read into memory.
    """
    try:
        opened = open_regular(path, dir_fd=dir_fd)
    except OSError:
        return None
    if opened is None:
        return None
    fd, st = opened
    try:
        if st.st_size > cap:
            return None
        chunks: list[bytes] = []
        left = cap + 1  # one byte more than allowed tells a file that grew past the cap
        while left > 0:
            chunk = os.read(fd, left)
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
    except OSError:
        return None
    finally:
        os.close(fd)
    data = b"".join(chunks)
    return data if len(data) <= cap else None
