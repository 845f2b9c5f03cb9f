"""What a check run covers: the directory it ran in, the paths (or test names) it was given,
and the options that select part of a suite (``-k expr``, ``--filter pkg``).

A run of the whole suite covers a run of one file of it; a later run that covers more
settles the lines of narrower ones (:mod:`deriver.checks`). Total, deterministic.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass
from typing import Final

__all__ = ["CheckScope", "names_path", "scope_of"]


@dataclass(frozen=True, slots=True)
class CheckScope:
    """What a check run covers: the directory it ran in, the paths (or test names) it was
    given, and the selecting options (``-k expr``, ``--filter pkg``); all empty for a run of
    the whole suite."""

    directory: str = ""
    paths: tuple[str, ...] = ()
    filters: tuple[str, ...] = ()

    def covers(self, other: CheckScope) -> bool:
        """Whether a run with this scope runs everything a run with ``other`` runs. A run
        without a ``cd`` is taken to run where the other did, or from the session's directory
        (``go test ./pkg/a/x`` then ``cd pkg/a && go test ./x``)."""
        if self.directory and other.directory and self.directory != other.directory:
            return False
        narrows, widens = _split(self.filters)
        other_narrows, other_widens = _split(other.filters)
        covered = narrows <= other_narrows and other_widens <= widens
        mine = self.paths
        if self.directory and not other.directory:
            mine += tuple(posixpath.join(self.directory, path) for path in self.paths)
        return covered and _covers_paths(mine, other.paths)


def names_path(scope: CheckScope, path: str) -> bool:
    """Whether a run's paths, from the session's directory, name ``path`` or a directory it
    is under (``./internal/...``, ``lib/**/*.dart``: the directory before the pattern; any
    path when it names none, or names the whole tree)."""
    roots = [_ROOT_RE.sub("", p.removeprefix("./")).rstrip("/") for p in scope.paths]
    if not roots or any(r in ("", ".") for r in roots):
        return True
    path = path.removeprefix("./")
    return any(_under(path, r) or _under(path, posixpath.join(scope.directory, r)) for r in roots)


_ROOT_RE: Final = re.compile(r"/?[^/]*[*?\[{].*$|/?\.\.\.$")
"""What follows a run path's directory: a glob or Go's ``...``."""


def _covers_paths(mine: tuple[str, ...], paths: tuple[str, ...]) -> bool:
    """Whether a run's paths ``mine`` hold all of ``paths`` (none: the whole suite)."""
    if not mine or "" in mine:
        return True
    return bool(paths) and all(any(_under(path, broader) for broader in mine) for path in paths)


def _split(filters: tuple[str, ...]) -> tuple[set[str], set[str]]:
    """A run's selecting options: those that narrow it, and those that widen it (``+``)."""
    widens = {f for f in filters if f.startswith("+")}
    return set(filters) - widens, widens


def _under(path: str, broader: str) -> bool:
    return (
        path == broader
        or not broader
        or path.startswith((broader + "/", broader + "::", broader + ":"))
    )


_REDIRECT_WORD_RE: Final = re.compile(r"^\d*[<>]{1,2}&?[\w/.-]*$")
# Options that narrow which tests run: a run with them is covered by one without them.
_SELECTING_FLAGS: Final = frozenset(
    {"-k", "-m", "--deselect", "--ignore", "--ignore-glob", "-run", "--run", "-t",
     "--testNamePattern", "--testPathPattern", "--grep", "-g", "--filter", "-F", "--only",
     "--include", "--exclude", "--test", "--bin", "--example", "--package", "-p", "--workspace",
     "-w", "--prefix", "--dir", "-C", "--cwd", "--project", "--only-group", "--tag",
     "-only-testing", "-skip-testing"}
)  # fmt: skip
_SELECTING_SWITCHES: Final = frozenset(
    {"--lf", "--last-failed", "--failed", "--only-failures", "--stale", "--onlyChanged",
     "--changed", "--lib", "--doc", "--bins", "--tests", "--examples", "--benches"}
)  # fmt: skip
# Options that add tests or code to a run (``go test -tags=integration``, ``cargo test
# --features x``): a run without them does not cover one with them.
_WIDENING_FLAGS: Final = frozenset({"-tags", "--tags", "--features", "--all-features",
                                    "--include-ignored"})  # fmt: skip
# Options that take a value without narrowing the run (``--seed 0``, ``--cov src``).
_SCOPE_VALUE_FLAGS: Final = frozenset(
    {"--seed", "--color", "--colour", "--reporter", "--format", "--formatter", "--tb",
     "--cov", "--cov-report", "--junitxml", "-o", "--override-ini", "-c", "--config",
     "--rootdir", "--timeout", "--maxfail", "--max-failures", "-n", "--numprocesses", "-j",
     "--jobs", "--output-format", "--target-dir", "--profile", "--durations",
     "--log-level", "-W", "--max-cases", "--slowest", "--fail-under-lines", "--fail-under",
     "--cov-fail-under", "--reporters", "-project", "-workspace", "-scheme", "-destination",
     "-configuration", "-sdk", "-derivedDataPath", "-testPlan", "--ui", "--require"}
)  # fmt: skip


def scope_of(args: list[str], directory: str) -> CheckScope:
    """The scope of a run given ``args``, in ``directory`` (where a ``cd`` before it went, or
    ""): its paths and selecting options (flags that take a value and do not select, like
    ``--seed 0``, and redirections are left out)."""
    paths: list[str] = []
    filters: list[str] = []
    i = 0
    while i < len(args):
        word = args[i]
        i += 1
        if word == "--" or _REDIRECT_WORD_RE.match(word):
            continue
        if word.startswith("-") and len(word) > 1:
            i = _option(word, args, i, filters)
        else:
            paths.append(_normalised_path(word))
    where = _normalised_path(directory) if directory else ""
    return CheckScope(where, tuple(dict.fromkeys(paths)), tuple(sorted(set(filters))))


def _option(word: str, args: list[str], i: int, filters: list[str]) -> int:
    """Read the option ``word`` (its value, if any, at ``args[i]``): a selecting one goes to
    ``filters``. Returns where the next word starts."""
    flag, eq, value = word.partition("=")
    if not eq and word.partition(":")[0] in _SELECTING_FLAGS:
        flag, eq, value = word.partition(":")  # xcodebuild's -only-testing:VaultTests/A
    takes_next = not eq and i < len(args) and not args[i].startswith("-")
    if flag in _SELECTING_FLAGS:
        if takes_next:
            value, i = args[i], i + 1
        filters.append(f"{flag}={value}")
    elif flag in _SELECTING_SWITCHES:
        filters.append(flag)
    elif flag in _WIDENING_FLAGS:
        if takes_next and flag not in ("--all-features", "--include-ignored"):
            value, i = args[i], i + 1
        filters.append(f"+{flag}={value}" if value else f"+{flag}")
    elif takes_next and (flag in _SCOPE_VALUE_FLAGS or args[i].isdigit()):
        i += 1
    return i


def _normalised_path(word: str) -> str:
    path = word
    while path.startswith("./"):
        path = path[2:]
    for suffix in ("/...", "..."):
        if path.endswith(suffix):
            path = path[: -len(suffix)]
    path = path.rstrip("/")
    return "" if path == "." else path
