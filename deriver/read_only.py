"""Read-only commands: the table of shell commands that only look, and the test of a command
line against it.

Agents that read through a shell (Codex) run these where Claude Code would call Read, Grep,
Glob or LS; a line made only of them is folded into one rolling item, not listed as work.
Conservative: a command the table does not name counts as writing, and so does output
redirected to a file. Total, deterministic, free of I/O and bounded on long command lines.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Final

from deriver.shell import basename, nested_script, segments, strip_wrappers
from deriver.user_text import word_set

__all__ = [
    "READ_ONLY_COMMANDS",
    "ReadOnlyCommand",
    "is_read_only_command",
    "is_read_only_command_uncached",
]


@dataclass(frozen=True, slots=True)
class ReadOnlyCommand:
    """One row of the table: ``programs`` that only read, given (when set) one of the
    ``subcommands`` (``git status``; the first word that is not an option), the option
    ``needs`` (``sed -n``), and no word that matches ``writes`` (``sed -i``, ``find
    -delete``)."""

    programs: frozenset[str]
    subcommands: frozenset[str] | None = None
    needs: str | None = None
    writes: re.Pattern[str] | None = None

    def reads_only(self, rest: list[str]) -> bool:
        if self.subcommands is not None:
            sub = next((w for w in rest if not w.startswith("-")), "")
            if sub not in self.subcommands:
                return False
        if self.needs is not None and self.needs not in rest:
            return False
        writes = self.writes
        return writes is None or not any(writes.match(word) for word in rest)


READ_ONLY_COMMANDS: Final[tuple[ReadOnlyCommand, ...]] = (
    ReadOnlyCommand(word_set(
        "cat head tail nl wc ls tree pwd rg grep egrep fgrep ag ack file stat du df diff sort "
        "uniq cut which type basename dirname realpath readlink echo printf true less more jq "
        "column tr fd cd")),
    # What runs and listens on this machine, and who and when it is: asked, nothing changed.
    ReadOnlyCommand(word_set("ps pgrep lsof date whoami id uname hostname printenv sleep")),
    ReadOnlyCommand(word_set("command"), needs="-v"),  # `command -v tool`: where it is
    ReadOnlyCommand(word_set("sed"), needs="-n", writes=re.compile(r"-i|--in-place")),
    ReadOnlyCommand(word_set("git"), subcommands=word_set(
        "status diff log show ls-files grep blame rev-parse describe")),
    ReadOnlyCommand(word_set("find"), writes=re.compile(
        r"-(?:delete|exec|execdir|ok|okdir|fprint|fprintf|fls)$")),
    # What the toolchain is: versions and settings, asked of a tool or a tool manager.
    ReadOnlyCommand(word_set("go"), subcommands=word_set("version env list doc")),
    ReadOnlyCommand(word_set("mise rtx asdf"), subcommands=word_set(
        "current ls list which where version doctor")),
    # A forge's API asked with GET, its default: no method named, no field sent.
    ReadOnlyCommand(word_set("gh"), subcommands=word_set("api"), writes=re.compile(
        r"-X|--method|-f|-F|--field|--raw-field|--input")),
)  # fmt: skip
# A database's shell given only queries (``sqlite3 app.db "SELECT …"``, ``psql -c "EXPLAIN
# …"``, ``sqlite3 app.db .schema``): nothing written. ``ANALYZE`` writes the planner's
# statistics; a pragma with a value sets it; a shell given no query reads its script.
_DATABASE_SHELLS: Final = word_set("sqlite3 duckdb psql mysql")
_QUERY_RE: Final = re.compile(
    r"^\s*(?:select|with|explain|show|describe|desc|pragma\s+[\w.]+\s*(?:\(\s*\w*\s*\))?\s*$|"
    r"\.(?:schema|tables|indexes|indices|headers|mode|dump)\b|\\d)",
    re.IGNORECASE,
)
_DOT_COMMAND_RE: Final = re.compile(r"\.[a-z]")
_SQL_WRITES_RE: Final = re.compile(
    r"\b(?:insert|update|delete|create|drop|alter|replace|attach|detach|vacuum|analyze|"
    r"reindex|truncate|grant|revoke|begin|commit|into)\b|\.(?:read|import|output|once|save)\b",
    re.IGNORECASE,
)


def _queries_only(rest: list[str]) -> bool:
    """Whether a database shell's words give it queries that only read, and at least one."""
    queries = [w for w in rest if " " in w or _DOT_COMMAND_RE.match(w)]
    statements = [s for q in queries for s in q.split(";") if s.strip()]
    return bool(statements) and all(
        _QUERY_RE.match(s) is not None and _SQL_WRITES_RE.search(s) is None for s in statements
    )


# A forge's objects looked at: ``gh pr view 5``, ``gh issue list``, ``gh repo view`` (not its
# CI: ``gh pr checks`` and ``gh run`` fail when the checks do, and that failure says so).
_FORGE_OBJECTS: Final = word_set("pr issue repo release label search gist")
_FORGE_LOOKS: Final = word_set("view list status diff")


# A program asked only for its version (``node --version``, ``cargo -V``) reads.
_VERSION_WORDS: Final = frozenset({"--version", "-v", "-V", "version"})


def _asks_help(rest: list[str]) -> bool:
    """A program asked how to run it (``vercel link --help``, ``tool -h``, ``go help build``)
    prints its usage and runs nothing."""
    first = next((w for w in rest if not w.startswith("-")), "")
    return "--help" in rest or rest[-1:] == ["-h"] or first == "help"


_BRANCH_LISTING: Final = frozenset(
    {"--show-current", "--list", "-a", "--all", "-r", "--remotes", "-v", "-vv", "--verbose"}
)
_BY_PROGRAM: Final = {p: row for row in READ_ONLY_COMMANDS for p in row.programs}
_REDIRECT_RE: Final = re.compile(r"^\d*>>?(?!&)(.*)$")


def is_read_only_command(command: str) -> bool:
    """Whether every part of a shell command line only reads: ``cat``, ``sed -n``, ``rg``,
    ``ls``, ``git status``... with no output redirected to a file (conservative: anything
    unknown counts as writing)."""
    if not isinstance(command, str):
        return False
    return _read_only(command, 0)


def is_read_only_command_uncached(command: str) -> bool:
    """:func:`is_read_only_command` without its memo: what tests compare the memo against."""
    return _reads_only(command, 0) if isinstance(command, str) else False


def _reads_only(command: str, depth: int) -> bool:
    lines = segments(command)
    return bool(lines) and all(_command_reads_only(words, depth) for words in lines)


# Memoised like detect_check: agents run the same few commands again and again.
_read_only = functools.lru_cache(maxsize=4096)(_reads_only)


def _writes_a_file(rest: list[str]) -> bool:
    """Whether the words redirect output to a file (not ``/dev/null``)."""
    for i, word in enumerate(rest):
        redirect = _REDIRECT_RE.match(word)
        if redirect is not None:
            target = redirect.group(1) or (rest[i + 1] if i + 1 < len(rest) else "")
            if target != "/dev/null":
                return True
    return False


def _command_reads_only(words: list[str], depth: int) -> bool:
    words = strip_wrappers(words)
    if not words:
        return False
    head, rest = basename(words[0]), words[1:]
    if _writes_a_file(rest):
        return False
    script = nested_script(head, rest, depth)
    if script is not None:
        return _read_only(script, depth + 1)
    if (len(rest) == 1 and rest[0] in _VERSION_WORDS) or _asks_help(rest):
        return True
    if head == "git" and rest[:1] == ["remote"]:
        return rest[1:2] in ([], ["-v"], ["show"], ["get-url"])  # not add, set-url, remove
    if head in _DATABASE_SHELLS:
        return _queries_only(rest)
    if head == "gh" and rest[:1] and rest[0] in _FORGE_OBJECTS:
        return rest[1:2] != [] and rest[1] in _FORGE_LOOKS
    if head == "git" and rest[:1] == ["branch"]:  # listed, not made, moved or deleted
        return all(word in _BRANCH_LISTING for word in rest[1:])
    row = _BY_PROGRAM.get(head)
    return row is not None and row.reads_only(rest)
