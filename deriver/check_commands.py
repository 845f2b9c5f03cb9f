"""The command that runs a check (tests, a build, a linter, a project gate), found in a shell
command line by the rows of the check table (:mod:`deriver.check_runners`).

Total, deterministic, free of I/O and bounded on long command lines.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Final, NamedTuple

from deriver.check_forms import Found, Runs
from deriver.check_runners import CHECK_RUNNERS, RUN_BY_PATH, CheckKind, CheckRunner
from deriver.check_scope import CheckScope, scope_of
from deriver.shell import and_chain, basename, nested_script, segments, strip_wrappers

__all__ = [
    "CHECKS",
    "CheckRun",
    "CheckTable",
    "detect_check",
    "detect_check_uncached",
    "hooks_passed",
    "parser_of",
    "shown_command",
    "shown_command_uncached",
]


@dataclass(frozen=True, slots=True)
class CheckRun:
    """A test, build or lint command: its normalised ``name``, the ``command`` (of a script,
    the line that runs it), what it covers, and whether the command line's exit status is the
    check's own (not when its output is piped into ``tail`` or other commands follow it)."""

    name: str
    command: str
    scope: CheckScope = field(default_factory=CheckScope)
    own_exit: bool = True
    kind: CheckKind = CheckKind.TEST
    before: tuple[CheckRun, ...] = ()
    """The other checks of a line of ``&&`` not piped into anything (``go build ./...`` of
    ``go build ./... && go test ./...``): each passed when the line exited 0."""


_NO_RUN_FLAGS: Final = frozenset({"--version", "--help", "-h"})
_INTERPRETER_RE: Final = re.compile(r"^(?:python[\d.]*|py|pypy[\d.]*)$")
_SCRIPT_EXTENSION_RE: Final = re.compile(r"\.[cm]?js$")


class _Hit(NamedTuple):
    """A check found in one simple command: its row, name and the words given to it."""

    runner: CheckRunner
    name: str
    args: list[str]


class _Last(NamedTuple):
    """The last check of a command line, the directory a ``cd`` before it went to, and
    whether it is the line's last command."""

    hit: _Hit
    directory: str
    last: bool


def _program(word: str) -> str:
    """A program's name as the table knows it: ``python3.11``, ``py`` and ``pypy3`` are
    ``python``; a package's script run from ``node_modules`` is named without its extension
    (``node_modules/mocha/bin/mocha.js``: ``mocha``)."""
    name = basename(word)
    if "node_modules/" in word:
        name = _SCRIPT_EXTENSION_RE.sub("", name)
    return "python" if _INTERPRETER_RE.match(name) else name


def _python_module(rest: list[str]) -> list[str] | None:
    """``python [-X opt] -m module args``: the module (its top package) and its args."""
    i = 0
    while i < len(rest) and rest[i].startswith("-") and rest[i] != "-c":
        word = rest[i]
        if word == "-m" and i + 1 < len(rest):
            return [rest[i + 1].split(".", 1)[0], *rest[i + 2 :]]
        if word.startswith("-m") and len(word) > 2:
            return [word[2:].split(".", 1)[0], *rest[i + 1 :]]
        i += 2 if word in ("-X", "-W") else 1
    return None


class CheckTable:
    """Finds checks in command lines by the rows of a check table, tried per program."""

    def __init__(self, runners: Iterable[CheckRunner]) -> None:
        self.runners = tuple(runners)
        by_program: dict[str, list[CheckRunner]] = {}
        for runner in self.runners:
            for program in runner.programs:
                by_program.setdefault(program, []).append(runner)
        self._by_program: Mapping[str, tuple[CheckRunner, ...]] = {
            program: tuple(runners) for program, runners in by_program.items()
        }
        self._parsers: Mapping[str, str] = {
            runner.name: runner.parser for runner in self.runners if runner.parser is not None
        }

    def parser_of(self, name: str) -> str | None:
        """The parser to trust first for the output of the check ``name``."""
        return self._parsers.get(name)

    def detect(self, command: str) -> CheckRun | None:
        """The check a command line runs (see :func:`detect_check`)."""
        found = self._last(command, 0)
        if found is None:
            return None
        hit = found.hit
        args = hit.args if hit.runner.scoped else []
        scope = scope_of(args, found.directory)
        return CheckRun(
            name=hit.name,
            command=" ".join(self._line_of(command, hit.name).split()),
            scope=scope,
            own_exit=found.last,
            kind=hit.runner.kind,
            before=tuple(
                c for c in self._chained(command) if (c.name, c.scope) != (hit.name, scope)
            ),
        )

    def _chained(self, command: str) -> list[CheckRun]:
        """The checks of a line of ``&&`` (:func:`~deriver.shell.and_chain`) not piped into
        anything."""
        found: list[CheckRun] = []
        directory = ""
        for piped, words in and_chain(command):
            if words[0] == "cd":
                directory = words[1] if len(words) > 1 else ""
                continue
            hit = None if piped else self._command(words, 0)
            if hit is not None:
                args = hit.args if hit.runner.scoped else []
                found.append(CheckRun(hit.name, " ".join(words), scope_of(args, directory),
                                      kind=hit.runner.kind))  # fmt: skip
        return found

    def _line_of(self, command: str, name: str) -> str:
        """The line of a script that runs the check ``name`` (its last), or the whole
        command: ``cat >> a.css <<'EOF'`` … ``EOF`` then ``npm run build`` shows the build."""
        if "\n" not in command:
            return command
        for line in reversed(command.replace("\\\n", " ").split("\n")):
            found = self._last(line, 0) if line.strip() else None
            if found is not None and found.hit.name == name:
                return line
        return command

    def _last(self, command: str, depth: int) -> _Last | None:
        found: _Last | None = None
        directory = ""
        lines = segments(command)
        for index, words in enumerate(lines):
            if words[0] == "cd":
                directory = words[1] if len(words) > 1 else ""
                continue
            hit = self._command(words, depth)
            if hit is not None:
                found = _Last(hit, directory, index == len(lines) - 1)
        return found

    def _command(self, words: list[str], depth: int) -> _Hit | None:
        """The check one simple command runs: through wrappers, shells and interpreters."""
        words = strip_wrappers(words)
        if not words:
            return None
        program, rest = _program(words[0]), words[1:]
        script = nested_script(program, rest, depth)
        if script is not None:
            found = self._last(script, depth + 1)
            return found.hit if found is not None else None
        if any(word in _NO_RUN_FLAGS for word in rest):
            return None
        if program == "python" and (module := _python_module(rest)) is not None:
            return self._run(module[0], module[1:], depth)
        if "/" in words[0] and program not in self._by_program:
            return self._run(RUN_BY_PATH, words, depth)  # ./scripts/check.sh
        return self._run(program, rest, depth)

    def _run(self, program: str, rest: list[str], depth: int) -> _Hit | None:
        """The check a program run with ``rest`` is, by the program's rows."""
        for runner in self._by_program.get(program, ()):
            result = runner.form.match(runner.name, rest)
            if isinstance(result, Runs):
                # What a package manager runs is a command line of its own.
                return self._command(result.words, depth)
            if isinstance(result, Found):
                return _Hit(runner, result.name, result.args)
        return None


CHECKS = CheckTable(CHECK_RUNNERS)
"""The check table the fold reads (not final: a test reads a copy with a row added)."""


def parser_of(name: str) -> str | None:
    """The output parser to trust first for the check ``name`` (None: all of them)."""
    return CHECKS.parser_of(name)


def detect_check(command: str) -> CheckRun | None:
    """Recognise a test, build or lint run anywhere in a shell command line.

    Looks through ``cd x &&``, env assignments, ``timeout``, ``uv run``, ``npx``,
    ``python -m``, ``bash -lc '...'`` and pipes. When a line runs several checks, the last
    one names it (its summary is the one at the end of the output). ``command`` is the whole
    line with its whitespace collapsed, so runs of different files stay distinguishable; of
    a script of several lines, the line that runs the check (not a heredoc written before).
    """
    if not isinstance(command, str):
        return None
    return _detect_check(command)


def detect_check_uncached(command: str) -> CheckRun | None:
    """:func:`detect_check` without its memo: what tests compare the memo against."""
    return CHECKS.detect(command) if isinstance(command, str) else None


# Memoised: agents run the same few commands again and again, and parsing a command line
# into shell words is the most expensive step of a tool call.
_detect_check = functools.lru_cache(maxsize=4096)(detect_check_uncached)


_STDERR_MERGE_RE: Final = re.compile(r"(?<!\S)\d?>&\d(?!\S)|(?<!\S)2>/dev/null(?!\S)")
_OUTPUT_FILTER_RE: Final = re.compile(
    r"\s*\|&?\s*(?:tail|head|grep|egrep|rg|cat|tee|less|more|cut|sort|uniq|wc|sed|awk)"
    r"(?:\s[^|;&'\"]*)?$"
)
_LEADING_CD_RE: Final = re.compile(r"^cd [^\s;&|'\"]+ ?(?:&&|;) ?")


# The pre-commit framework's table of the hooks it ran, in the output of the command that ran
# them (``git commit``): "ruff.....Passed", "black....(no files to check)Skipped".
_HOOK_PASSED_RE: Final = re.compile(r"^([A-Za-z][\w+-]*)[^\n]*?\.{3,}Passed$", re.MULTILINE)
_HOOK_KINDS: Final = frozenset({CheckKind.LINT, CheckKind.FORMAT, CheckKind.TYPECHECK})
_HOOKS_SCAN: Final = 8192


def hooks_passed(output: str) -> tuple[CheckRun, ...]:
    """The linters, formatters and type checkers a pre-commit framework's hooks ran and
    passed, as its table in a command's output says (``git commit``: "ruff......Passed"):
    each hook named for a checker the check table knows (``black`` as ``black --check``)."""
    if "Passed" not in output:
        return ()
    found: dict[str, CheckRun] = {}
    for name in _HOOK_PASSED_RE.findall(output[-_HOOKS_SCAN:]):
        word = name.lower()
        check = detect_check(word) or detect_check(f"{word} --check")
        if check is not None and check.kind in _HOOK_KINDS:
            found[check.name] = check
    return tuple(found.values())


def shown_command(command: str) -> str:
    """A check's command as the memory shows it: without the ``cd`` into the project, the
    stderr merge and the output filters it was piped into (``2>&1 | tail -30``), which do
    not change what ran."""
    return _shown_command(command)


def shown_command_uncached(command: str) -> str:
    """:func:`shown_command` without its memo: what tests compare the memo against."""
    shown = " ".join(command.split())
    for _ in range(4):  # ``| grep -v x | tail -5``: a few filters, not more
        trimmed = _OUTPUT_FILTER_RE.sub("", shown)
        if trimmed == shown:
            break
        shown = trimmed
    shown = " ".join(_STDERR_MERGE_RE.sub("", shown).split())
    shown = _LEADING_CD_RE.sub("", shown)
    return shown or " ".join(command.split())


# Memoised: a session runs the same few checks again and again (measured on the bench
# generator's 200,000 events: 4,467 runs of 24 commands, ~18 µs each to trim; serves the
# target that `apply` per event be at most 1.1x of 2836343, issue 35).
_shown_command = functools.lru_cache(maxsize=1024)(shown_command_uncached)
