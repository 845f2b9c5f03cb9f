"""What a :class:`~session_memory.apps.service.MemoryService` is asked to do, checked once at
construction: what it watches, where it writes, how it derives, and its limits."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from deriver import SessionMemoryDeriver
from session_memory.apps.memory_dir.outputs import JSON_SUFFIX, MD_SUFFIX, TranscriptState
from session_memory.apps.tail import find_transcripts, resolves_inside
from session_memory.core.arguments import check_argument, check_paths
from session_memory.core.errors import ConfigError
from session_memory.formats import AdapterBase, make_adapter

__all__ = ["DEFAULT_STATE_DIRNAME", "Clock", "Options", "check_options", "output_paths"]

DEFAULT_STATE_DIRNAME: Final = ".session-memory-state"
"""The state directory, inside the output directory unless one is given."""

Clock = Callable[[], float]
"""Seconds on a monotonic scale: ``time.monotonic`` unless a test drives time itself."""


def output_paths(out_dir: Path, name: str) -> tuple[Path, Path]:
    """The ``.memory.json`` and ``.memory.md`` of a session name inside ``out_dir``."""
    return out_dir / f"{name}{JSON_SUFFIX}", out_dir / f"{name}{MD_SUFFIX}"


@dataclass(frozen=True, slots=True)
class Options:
    """The checked options of one service (see :meth:`Options.of`)."""

    dirs: tuple[str, ...]  # watched recursively, absolute
    dir_reals: tuple[str, ...]  # the same, resolved
    files: tuple[str, ...]  # named one by one, resolved
    out_dir: Path
    state_dir: Path
    budget_tokens: int
    encoding: str
    format: str
    sweep_seconds: float
    resident_max: int
    idle_seconds: float
    farm_min: int

    @classmethod
    def of(
        cls,
        paths: Sequence[str | os.PathLike[str]],
        out_dir: str | os.PathLike[str],
        state_dir: str | os.PathLike[str] | None,
        *,
        budget_tokens: int,
        encoding: str,
        format: str,
        sweep_seconds: float,
        resident_max: int,
        idle_seconds: float,
        farm_min: int,
    ) -> Options:
        """ConfigError for nothing to watch, a path that is neither file nor directory, an
        impossible budget, an unknown encoding or format, or a cap below one."""
        if resident_max < 1:
            raise ConfigError(f"resident_max must be at least 1, not {resident_max}")
        if not paths:
            raise ConfigError("nothing to watch: give at least one transcript or directory")
        dirs: list[str] = []
        files: list[str] = []
        for p in paths:
            absolute = os.path.abspath(p)
            if os.path.isdir(absolute):
                dirs.append(absolute)
            elif os.path.isfile(absolute):
                # A file named on the command line is pinned to where it is now: a link
                # swapped in later is not followed elsewhere.
                files.append(os.path.realpath(absolute))
            else:
                raise ConfigError(f"no such transcript or directory: {os.fspath(p)}")
        # Fail at construction on an impossible budget, an unknown encoding or format.
        SessionMemoryDeriver(budget_tokens=budget_tokens, encoding=encoding)
        make_adapter(format)
        out = Path(out_dir).absolute()
        return cls(
            dirs=tuple(dirs),
            dir_reals=tuple(os.path.realpath(d) for d in dirs),
            files=tuple(files),
            out_dir=out,
            state_dir=Path(state_dir).absolute() if state_dir else out / DEFAULT_STATE_DIRNAME,
            budget_tokens=budget_tokens,
            encoding=encoding,
            format=format,
            sweep_seconds=sweep_seconds,
            resident_max=resident_max,
            idle_seconds=idle_seconds,
            farm_min=farm_min,
        )

    @property
    def watched(self) -> list[str]:
        """The directories, then the files, as given."""
        return [*self.dirs, *self.files]

    def new_deriver(self) -> SessionMemoryDeriver:
        return SessionMemoryDeriver(budget_tokens=self.budget_tokens, encoding=self.encoding)

    def new_adapter(self) -> AdapterBase:
        return make_adapter(self.format)

    def derives_like(self, state: TranscriptState) -> bool:
        """Whether ``state`` was derived with this budget, encoding and format."""
        return (state.budget_tokens, state.encoding, state.transcript_format) == (
            self.budget_tokens,
            self.encoding,
            self.format,
        )

    def transcripts(self, known: Mapping[str, str]) -> list[tuple[str, str]]:
        """Every transcript there is now, as the path it was found at and its real path: the
        files that are still regular files, then each directory's (``known`` paths found in
        a directory are left out)."""
        found = [(f, f) for f in self.files if _is_regular(f)]
        for root in self.dirs:
            found.extend(find_transcripts(root, known=known))
        return found

    def covers(self, path: str) -> bool:
        """A new file under a watched directory, resolving inside it (symlinks included)."""
        for root, real_root in zip(self.dirs, self.dir_reals, strict=True):
            if os.path.commonpath([path, root]) == root and resolves_inside(path, real_root):
                return not os.path.basename(path).startswith(".")
        return False


def check_options(
    paths: object,
    out_dir: object,
    state_dir: object,
    stop_event: object,
    sweep_seconds: object,
    force_polling: object,
    clock: object,
    resident_max: object,
    idle_seconds: object,
    farm_min: object,
) -> None:
    """ConfigError naming the first of the service's options of the wrong type (the budget,
    encoding and format are checked by the deriver and the adapter)."""
    check_paths("paths", paths)
    check_argument("out_dir", out_dir, (str, os.PathLike))
    check_argument("state_dir", state_dir, (str, os.PathLike), optional=True)
    check_argument("sweep_seconds", sweep_seconds, float)
    check_argument("force_polling", force_polling, bool, optional=True)
    check_argument("resident_max", resident_max, int)
    check_argument("idle_seconds", idle_seconds, float)
    check_argument("farm_min", farm_min, int)
    if stop_event is not None and not callable(getattr(stop_event, "is_set", None)):
        raise ConfigError(f"stop_event must have is_set() or be None, not {stop_event!r}")
    if not callable(clock):
        raise ConfigError(f"clock must be a function, not {clock!r}")


def _is_regular(path: str) -> bool:
    """A regular file itself (``lstat``: a link is not followed)."""
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False
