"""How a check runner's words are read: the forms a row of the check table can take.

A form looks at the words after the program (``rest``) and says whether they run the check,
by which name, and with which words given to it (paths, ``-k expr``: what the run covers).
Most runners need one of the first three forms (:class:`Always`, :class:`WithOption`,
:class:`Subcommand`); task runners, build tools and package managers name their checks
after the targets the command line gives (:class:`Gates`, :class:`Tasks`,
:class:`RunTargets`, :class:`Scripts`). The table is :mod:`deriver.check_runners`.

Total, deterministic, free of I/O.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple, Protocol

from deriver.shell import basename, is_assignment, skip_options

__all__ = [
    "Always",
    "Form",
    "Found",
    "Gates",
    "Goal",
    "Result",
    "RunTargets",
    "Runs",
    "Script",
    "ScriptFile",
    "Scripts",
    "Subcommand",
    "Tasks",
    "Unless",
    "WithOption",
    "WithoutOption",
]

_NONE: frozenset[str] = frozenset()


class Found(NamedTuple):
    """A check found: its name and the words given to it."""

    name: str
    args: list[str]


class Runs(NamedTuple):
    """Not a check itself: the check is whatever ``words`` run (``npm exec -- jest``)."""

    words: list[str]


Result = Found | Runs | None


class Form(Protocol):
    """Reads the words after a runner's program; ``name`` is its row's name."""

    def match(self, name: str, rest: list[str]) -> Result: ...


def _first_word(rest: list[str], value_flags: frozenset[str]) -> int:
    """Index of the first word that is not an option or a ``+toolchain`` (``cargo +nightly
    test``), skipping the values of ``value_flags``."""
    i = 0
    while i < len(rest) and rest[i][:1] in ("-", "+"):
        i += 2 if rest[i] in value_flags else 1
    return i


@dataclass(frozen=True, slots=True)
class Always:
    """Every run is the check; a leading ``mode`` word is not an argument (``vitest run``)."""

    mode: str | None = None

    def match(self, name: str, rest: list[str]) -> Result:
        if self.mode is not None and rest[:1] == [self.mode]:
            return Found(name, rest[1:])
        return Found(name, rest)


@dataclass(frozen=True, slots=True)
class WithOption:
    """The check only when given one of ``options`` (``prettier --check``, ``biome ci``)."""

    options: frozenset[str]

    def match(self, name: str, rest: list[str]) -> Result:
        return Found(name, rest) if self.options.intersection(rest) else None


@dataclass(frozen=True, slots=True)
class WithoutOption:
    """The check unless given one of ``options`` (``act``, not ``act --list``); named by the
    value of a ``named_by`` option too (``act -j lint`` and ``act -j test``: two checks)."""

    options: frozenset[str]
    named_by: frozenset[str] = _NONE

    def match(self, name: str, rest: list[str]) -> Result:
        if self.options.intersection(rest):
            return None
        at = next((i for i, w in enumerate(rest[:-1]) if w in self.named_by), None)
        return Found(name if at is None else f"{name} {rest[at]} {rest[at + 1]}", rest)


@dataclass(frozen=True, slots=True)
class Subcommand:
    """The check when the first word past the options is one of ``words`` (``cargo test``),
    and with ``needs`` only when one of those options is given too (``cargo fmt --check``).
    ``bare``: a call without a first word is the check as well (``ruff``, ``pre-commit``)."""

    words: frozenset[str]
    needs: frozenset[str] = _NONE
    bare: bool = False
    value_flags: frozenset[str] = _NONE

    def match(self, name: str, rest: list[str]) -> Result:
        i = _first_word(rest, self.value_flags)
        if i >= len(rest):
            return Found(name, []) if self.bare else None
        if rest[i] not in self.words or (self.needs and not self.needs.intersection(rest)):
            return None
        return Found(name, rest[i + 1 :])


@dataclass(frozen=True, slots=True)
class Unless:
    """The check unless the first word past the options is one of ``words`` (``ruff src/``,
    ruff's form before its subcommands, but not ``ruff rule``)."""

    words: frozenset[str]

    def match(self, name: str, rest: list[str]) -> Result:
        i = _first_word(rest, _NONE)
        return None if i < len(rest) and rest[i] in self.words else Found(name, rest)


@dataclass(frozen=True, slots=True)
class Script:
    """An interpreter running a project script's subcommand (``python manage.py test``)."""

    script: str
    subcommand: str

    def match(self, name: str, rest: list[str]) -> Result:
        i = 0
        while i < len(rest) and rest[i].startswith("-") and rest[i] != "-c":
            i += 2 if rest[i] in ("-X", "-W") else 1
        if i + 1 < len(rest) and basename(rest[i]) == self.script:
            return Found(name, rest[i + 2 :]) if rest[i + 1] == self.subcommand else None
        return None


@dataclass(frozen=True, slots=True)
class ScriptFile:
    """An interpreter running a project's own script whose file name says that it verifies
    (``node scripts/validate.js``, ``python tools/check_links.py``, ``bash run-tests.sh``):
    the check is the script, named by its path as typed. The interpreter's options before
    it are skipped, with the values of ``value_flags``; one of ``code_flags`` (``node -e
    code``, ``python -c code``) runs no file."""

    names: re.Pattern[str]
    value_flags: frozenset[str] = _NONE
    code_flags: frozenset[str] = _NONE

    def match(self, name: str, rest: list[str]) -> Result:
        i = _first_word(rest, self.value_flags)
        if i >= len(rest) or self.code_flags.intersection(rest[:i]):
            return None
        path = rest[i]
        stem = basename(path).split(".", 1)[0].lower()
        return Found(path, rest[i + 1 :]) if self.names.match(stem) else None


def _positional(words: list[str]) -> list[str]:
    return [word for word in words if not word.startswith("-")]


def _last_task(
    rest: list[str], value_flags: frozenset[str], is_task: Callable[[str], object]
) -> str:
    """The last word that names a task (``mvn clean test``: ``test``; ``gradle :app:build``:
    ``build``), or ""."""
    found = ""
    i = 0
    while i < len(rest):
        word = rest[i]
        if word.startswith("-"):
            i += 2 if word in value_flags else 1
            continue
        task = word.rsplit(":", 1)[-1]
        if is_task(task):
            found = task
        i += 1
    return found


@dataclass(frozen=True, slots=True)
class Goal:
    """A build tool that runs goals in order (``mvn clean test``): the check when ``goal`` is
    the last of the tool's ``goals`` the command names."""

    goal: str
    goals: frozenset[str]
    value_flags: frozenset[str] = _NONE

    def match(self, name: str, rest: list[str]) -> Result:
        found = _last_task(rest, self.value_flags, self.goals.__contains__)
        return Found(name, []) if found == self.goal else None


@dataclass(frozen=True, slots=True)
class Tasks:
    """A build tool whose tasks are checks by their names (``gradle testDebugUnitTest``): the
    last such task names the check, after the row's name."""

    tasks: re.Pattern[str]
    value_flags: frozenset[str] = _NONE

    def match(self, name: str, rest: list[str]) -> Result:
        found = _last_task(rest, self.value_flags, self.tasks.match)
        return Found(f"{name} {found}", []) if found else None


@dataclass(frozen=True, slots=True)
class Gates:
    """A task runner whose words are its targets (``make check``, ``just lint test``): the
    check named by the targets that are gates (``gates``, or one of ``also``); a line naming
    only other targets is no check.

    ``recipe_args``: the words after the first target that is no gate are its arguments,
    not targets (just, task). ``bare``: the runner alone runs its default target, a check
    (``make``)."""

    gates: re.Pattern[str]
    value_flags: frozenset[str] = _NONE
    recipe_args: bool = True
    bare: bool = False
    also: frozenset[str] = _NONE

    def match(self, name: str, rest: list[str]) -> Result:
        targets = self._targets(rest)
        if not targets:
            return Found(name, []) if self.bare else None
        gates = [t for t in targets if self.gates.match(t) or t in self.also]
        return Found(f"{name} " + " ".join(gates), []) if gates else None

    def _targets(self, rest: list[str]) -> list[str]:
        """The targets named, past options, their values and variable assignments; with
        ``recipe_args``, up to the first that is no gate."""
        targets: list[str] = []
        i = 0
        while i < len(rest):
            word = rest[i]
            i += 1
            if word.startswith("-"):
                i += word in self.value_flags
                if word == "-j" and i < len(rest) and rest[i].isdigit():
                    i += 1
            elif not is_assignment(word):
                targets.append(word)
                if self.recipe_args and not (self.gates.match(word) or word in self.also):
                    break
        return targets


@dataclass(frozen=True, slots=True)
class RunTargets:
    """A task runner that names its targets after a run verb (``mise run lint``, ``turbo run
    test``, ``nx run app:test``): the check named by the targets that are gates.

    ``bare_target``: the first word past the options is a target too (``turbo test``).
    ``any_target``: the first target is the check whatever its name (``lefthook run
    pre-push``: a hook). ``group``: a word that may come before the verb (``mise tasks
    run``)."""

    gates: re.Pattern[str]
    verbs: frozenset[str]
    value_flags: frozenset[str]
    lead_flags: frozenset[str]
    bare_target: bool = False
    any_target: bool = False
    group: str | None = None

    def match(self, name: str, rest: list[str]) -> Result:
        targets = self._targets(rest)
        if self.any_target:
            gates = targets[:1]
        else:
            # nx names a project's target ("app:test"), mise a task under its namespace
            # ("test:e2e", "lint:go").
            gates = [
                t for t in targets if self.gates.match(t.rsplit(":", 1)[-1]) or self.gates.match(t)
            ]
        return Found(f"{name} " + " ".join(gates), []) if gates else None

    def _targets(self, rest: list[str]) -> list[str]:
        """The targets the command line names: after the verb (and with ``-t``), or the
        first word when it may stand alone."""
        i = skip_options(rest, 0, self.lead_flags)
        sub = rest[i] if i < len(rest) else ""
        if self.group is not None and sub == self.group:
            i, sub = i + 1, rest[i + 1] if i + 1 < len(rest) else ""
        if sub in self.verbs:
            named = [rest[j + 1] for j, w in enumerate(rest[:-1]) if w in ("-t", "--target")]
            return _positional(rest[skip_options(rest, i + 1, self.value_flags) :]) + named
        return _positional(rest[i:])[:1] if self.bare_target else []


@dataclass(frozen=True, slots=True)
class Scripts:
    """A package manager (``npm test``, ``pnpm run build``, ``yarn lint:ci``): its test
    command, and package scripts that are gates, named ``<name> test`` or ``<name> run
    <script>``; the workspace or package its options select narrows the run like a path.

    ``bare``: scripts run by their bare names too (``pnpm check-types``); ``runners`` run
    by their bare names as well (``pnpm jest``), as do the commands after ``exec``, ``x``,
    ``dlx``. ``workspace``: the word that selects a workspace before the script (yarn)."""

    gates: re.Pattern[str]
    value_flags: frozenset[str]
    runners: frozenset[str]
    bare: bool = True
    workspace: str | None = None

    def match(self, name: str, rest: list[str]) -> Result:
        value_flags = self.value_flags
        i = self._command_at(rest)
        if i >= len(rest):
            return None
        where = _positional(rest[:i])
        sub = rest[i]
        if sub in ("test", "t", "tst"):
            return Found(f"{name} test", where + rest[i + 1 :])
        if sub in ("exec", "x", "dlx"):
            return Runs(rest[skip_options(rest, i + 1, value_flags) :])
        if self.bare and sub in self.runners:
            return Runs(rest[i:])
        if sub in ("run", "run-script", "rs"):
            i = skip_options(rest, i + 1, value_flags)
        elif not self.bare:
            return None
        return self._script(name, where, rest, i)

    def _command_at(self, rest: list[str]) -> int:
        """Where the manager's command starts: past its options and a workspace."""
        i = skip_options(rest, 0, self.value_flags)
        if self.workspace is not None and i < len(rest) and rest[i] == self.workspace:
            i = skip_options(rest, i + 2, self.value_flags)
        return i

    def _script(self, name: str, where: list[str], rest: list[str], i: int) -> Result:
        """The package script at ``rest[i]``: a check when it is a gate."""
        script = rest[i] if i < len(rest) else ""
        if not self.gates.match(script):
            return None
        named = f"{name} test" if script == "test" else f"{name} run {script}"
        return Found(named, where + rest[i + 1 :])
