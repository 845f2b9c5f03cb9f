"""Shell command lines: splitting into simple commands, stripping wrappers, recognising
read-only commands and the command that runs a check (tests, a build, a linter).

Total, deterministic, free of I/O and bounded on long command lines.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final, NamedTuple

from deriver.user_text import word_set

__all__ = [
    "SHELLS",
    "SHELL_C_FLAGS",
    "CheckRun",
    "CheckScope",
    "basename",
    "detect_check",
    "detect_check_uncached",
    "is_read_only_command",
    "is_read_only_command_uncached",
    "shown_command",
    "simple_commands",
]


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
        without a ``cd`` is taken to run where the other did (the session's directory)."""
        if self.directory and other.directory and self.directory != other.directory:
            return False
        if not set(self.filters) <= set(other.filters):
            return False
        if not self.paths or "" in self.paths:
            return True
        return bool(other.paths) and all(
            any(_under(path, broader) for broader in self.paths) for path in other.paths
        )


def _under(path: str, broader: str) -> bool:
    return (
        path == broader
        or not broader
        or path.startswith((broader + "/", broader + "::", broader + ":"))
    )


@dataclass(frozen=True, slots=True)
class CheckRun:
    """A test, build or lint command: its normalised ``name``, the whole ``command``, what
    it covers, and whether the command line's exit status is the check's own (not when its
    output is piped into ``tail`` or other commands follow it)."""

    name: str
    command: str
    scope: CheckScope = CheckScope()
    own_exit: bool = True


# Past this, a command line is a script or a heredoc, not a check invocation to look at.
_MAX_COMMAND_SCAN: Final = 4096
_MAX_SHELL_NESTING: Final = 2

SHELLS: Final = frozenset({"bash", "sh", "zsh", "dash", "ksh", "fish", "pwsh", "powershell"})
SHELL_C_FLAGS: Final = frozenset({"-c", "-lc", "-ic", "-lic", "-cl", "-li", "-command"})

_HEREDOC_RE: Final = re.compile(
    r"(<<-?[ \t]*(['\"]?)(\w+)\2)([^\n]*\n).*?^[ \t]*\3[ \t]*$", re.MULTILINE | re.DOTALL
)
_TOKEN_RE: Final = re.compile(
    r"""[ \t\r]*(?:
        (?P<op>&&|\|\||\|&|[|;&()\n])
      | (?P<word>(?:\d*[<>]{1,2}&?[\d-]*|[^\s|;&()<>'"\\]+|\\.|'[^']*'?|"(?:[^"\\]|\\.)*"?)+)
      | (?P<other>.)
    )""",
    re.VERBOSE | re.DOTALL,
)
_UNQUOTE_RE: Final = re.compile(r"""'([^']*)'?|"((?:[^"\\]|\\.)*)"?|\\(.)""", re.DOTALL)
_BACKSLASH_RE: Final = re.compile(r"\\(.)", re.DOTALL)
_ASSIGNMENT_RE: Final = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_DURATION_RE: Final = re.compile(r"^\d+(?:\.\d+)?[smhd]?$")
_PYTHON_RE: Final = re.compile(r"^(?:python[\d.]*|py|pypy[\d.]*)$")
# How projects name their gates, in package scripts, make, just, task, mise, turbo and nx
# ("test", "check-types", "lint:ci", "test:unit", "ci:lint"); never a watch mode.
_GATE_RE: Final = re.compile(
    r"^(?!.*watch)(?:[\w-]+:)*(?:test|tests|check|checks|lint|lints|ci|verify|validate"
    r"|typecheck|type-check|types|tsc|compile|build|coverage|cov|e2e|unit|spec|integration"
    r"|qa|precommit|pre-commit|(?:fmt|format)[-_:]check|(?:unit|integration|e2e)[-_]tests?)"
    r"(?:[:_.-][\w:.-]*)?$"
)
_GRADLE_TASK_RE: Final = re.compile(r"^(?:test|build|check|assemble|lint)\w*$")

_NO_RUN_FLAGS: Final = frozenset({"--version", "--help", "-h"})
# Wrappers that run the rest of the line as a command, after their own flags.
_PLAIN_WRAPPERS: Final = word_set(
    "time command exec nice nohup sudo xvfb-run stdbuf ionice timeout gtimeout caffeinate "
    "chronic xargs npx bunx pnpx uvx"
)
_RUN_WRAPPERS: Final = frozenset({"uv", "poetry", "pipenv", "pdm", "rye", "conda", "pipx"})
_WRAPPER_VALUE_FLAGS: Final = word_set(
    "--with --with-requirements --python -p --extra --group --only-group --package --env-file "
    "--directory --project -n --name --prefix --signal -s -k --kill-after -u --user"
)
_JS_MANAGERS: Final = frozenset({"npm", "pnpm", "yarn", "bun"})
_JS_VALUE_FLAGS: Final = frozenset(
    {"--filter", "-F", "-C", "--dir", "--prefix", "--workspace", "--cwd"}
)
_NPM_VALUE_FLAGS: Final = _JS_VALUE_FLAGS | {"-w"}
_JS_RUNNERS: Final = frozenset(
    {"jest", "vitest", "mocha", "tsc", "vue-tsc", "eslint", "playwright", "cypress"}
)
_SIMPLE_CHECKS: Final[Mapping[str, str]] = {
    "pytest": "pytest",
    "py.test": "pytest",
    "tox": "tox",
    "nox": "nox",
    "unittest": "unittest",
    "nose2": "nose2",
    "jest": "jest",
    "vitest": "vitest",
    "mocha": "mocha",
    "ctest": "ctest",
    "mypy": "mypy",
    "dmypy": "mypy",
    "pyright": "pyright",
    "basedpyright": "pyright",
    "tsc": "tsc",
    "vue-tsc": "tsc",
    "eslint": "eslint",
    "flake8": "flake8",
    "pylint": "pylint",
    "rspec": "rspec",
    "phpunit": "phpunit",
    "golangci-lint": "golangci-lint",
    "staticcheck": "staticcheck",
    "shellcheck": "shellcheck",
    "rubocop": "rubocop",
    "phpstan": "phpstan",
    "psalm": "psalm",
    "hadolint": "hadolint",
    "stylelint": "stylelint",
}
# Formatters and linters that only check when told to (``prettier --check``).
_CHECKING_FLAG: Final[Mapping[str, frozenset[str]]] = {
    "prettier": frozenset({"--check", "-c", "--list-different", "-l"}),
    "biome": frozenset({"check", "ci", "lint"}),
    "stylua": frozenset({"--check"}),
    "gofmt": frozenset({"-l", "-d"}),
    "clang-format": frozenset({"--dry-run", "-n"}),
}
# Subcommands that format unless told to check (``cargo fmt --check``).
_FORMAT_CHECKS: Final[Mapping[str, frozenset[str]]] = {
    "cargo": frozenset({"fmt"}),
    "mix": frozenset({"format"}),
    "dart": frozenset({"format"}),
    "deno": frozenset({"fmt"}),
}
_FORMAT_CHECK_FLAGS: Final = frozenset(
    {"--check", "--check-formatted", "--set-exit-if-changed", "--dry-run"}
)
# Task runners whose words are recipe names, and the flags of theirs that take a value.
_GATE_RUNNERS: Final[Mapping[str, frozenset[str]]] = {
    "just": frozenset(
        {"-f", "--justfile", "-d", "--working-directory", "--set", "--dotenv-filename",
         "--dotenv-path", "--shell", "--shell-arg", "--color", "--chooser"}
    ),
    "task": frozenset({"-d", "--dir", "-t", "--taskfile", "-o", "--output", "-C", "--concurrency"}),
    "poe": frozenset({"-C", "--directory", "--root", "-e", "--executor"}),
}  # fmt: skip
# Task runners that name a gate after a ``run`` subcommand.
_RUN_RUNNERS: Final = frozenset({"mise", "turbo", "nx", "pre-commit", "prek", "lefthook"})
_RUNNER_VALUE_FLAGS: Final = frozenset(
    {"-C", "--cd", "--filter", "-F", "-j", "--jobs", "--projects", "-p", "--hook-stage"}
)
_REDIRECT_WORD_RE: Final = re.compile(r"^\d*[<>]{1,2}&?[\w/.-]*$")
# Options that narrow which tests run: a run with them is covered by one without them.
_SELECTING_FLAGS: Final = frozenset(
    {"-k", "-m", "--deselect", "--ignore", "--ignore-glob", "-run", "--run", "-t",
     "--testNamePattern", "--testPathPattern", "--grep", "-g", "--filter", "-F", "--only",
     "--include", "--exclude", "--test", "--bin", "--example", "--package", "-p", "--workspace",
     "-w", "--prefix", "--dir", "-C", "--cwd", "--project", "--only-group", "--tag"}
)  # fmt: skip
_SELECTING_SWITCHES: Final = frozenset(
    {"--lf", "--last-failed", "--failed", "--only-failures", "--stale", "--onlyChanged",
     "--changed", "--lib", "--doc", "--bins", "--tests", "--examples", "--benches"}
)  # fmt: skip
# Options that take a value without narrowing the run (``--seed 0``, ``--cov src``).
_SCOPE_VALUE_FLAGS: Final = frozenset(
    {"--seed", "--color", "--colour", "--reporter", "--format", "--formatter", "--tb",
     "--cov", "--cov-report", "--junitxml", "-o", "--override-ini", "-c", "--config",
     "--rootdir", "--timeout", "--maxfail", "--max-failures", "-n", "--numprocesses", "-j",
     "--jobs", "--output-format", "--target-dir", "--features", "--profile", "--durations",
     "--log-level", "-W", "--max-cases", "--slowest", "--fail-under-lines", "--fail-under",
     "--cov-fail-under", "--reporters"}
)  # fmt: skip
_SUBCOMMAND_CHECKS: Final[Mapping[str, Mapping[str, str]]] = {
    "go": {"test": "go test", "build": "go build", "vet": "go vet"},
    "cargo": {
        "test": "cargo test",
        "t": "cargo test",
        "build": "cargo build",
        "b": "cargo build",
        "check": "cargo check",
        "c": "cargo check",
        "clippy": "cargo clippy",
        "nextest": "cargo nextest",
        "llvm-cov": "cargo llvm-cov",
        "tarpaulin": "cargo tarpaulin",
    },
    "dotnet": {"test": "dotnet test", "build": "dotnet build"},
    "deno": {"test": "deno test", "lint": "deno lint", "check": "deno check"},
    "swift": {"test": "swift test", "build": "swift build"},
    "mix": {
        "test": "mix test",
        "compile": "mix compile",
        "credo": "mix credo",
        "check": "mix check",
        "dialyzer": "mix dialyzer",
        "sobelow": "mix sobelow",
    },
    "bazel": {"test": "bazel test", "build": "bazel build"},
    "flutter": {"test": "flutter test", "analyze": "flutter analyze"},
    "dart": {"test": "dart test", "analyze": "dart analyze"},
    "zig": {"build": "zig build", "test": "zig test"},
    "sbt": {"test": "sbt test", "compile": "sbt compile"},
    "lein": {"test": "lein test"},
    "stack": {"test": "stack test", "build": "stack build"},
    "cabal": {"test": "cabal test", "build": "cabal build"},
    "dune": {"test": "dune test", "build": "dune build"},
    "hatch": {"test": "hatch test"},
    "rake": {"test": "rake test", "spec": "rake spec"},
    "rails": {"test": "rails test"},
    "composer": {"test": "composer test"},
}
_RUFF_OTHER_COMMANDS: Final = frozenset(
    {"rule", "version", "clean", "server", "config", "analyze", "help", "linter"}
)
_MAVEN_GOALS: Final = frozenset({"test", "verify", "package", "install", "compile"})
_MAVEN_VALUE_FLAGS: Final = frozenset({"-pl", "-P", "-f", "-s", "-T", "-rf", "-D"})
_MAKE_VALUE_FLAGS: Final = frozenset({"-C", "-f", "--directory", "--file", "-I", "-o", "-W"})


def basename(word: str) -> str:
    name = word.rsplit("/", 1)[-1].rsplit("\\", 1)[-1]
    for suffix in (".exe", ".cmd", ".bat"):
        if name.lower().endswith(suffix):
            return name[: -len(suffix)]
    return name


def _unquote(word: str) -> str:
    def replace(match: re.Match[str]) -> str:
        if match.group(1) is not None:
            return match.group(1)
        if match.group(2) is not None:
            return _BACKSLASH_RE.sub(r"\1", match.group(2))
        return match.group(3) or ""

    return _UNQUOTE_RE.sub(replace, word)


def _segments(command: str) -> list[list[str]]:
    """Split a command line into simple commands (words), at ``&& || | ; &`` and newlines."""
    text = _HEREDOC_RE.sub(r"\1\4", command[:_MAX_COMMAND_SCAN])
    segments: list[list[str]] = [[]]
    for match in _TOKEN_RE.finditer(text):
        word = match.group("word")
        if word is not None:
            segments[-1].append(_unquote(word))
        elif match.group("op") is not None and segments[-1]:
            segments.append([])
    return [segment for segment in segments if segment]


def simple_commands(command: str) -> list[tuple[bool, list[str]]]:
    """The simple commands of a command line, wrappers stripped: for each, whether it reads
    a pipe (``| tail -5``: a filter of the command before it) and its words."""
    if not isinstance(command, str):
        return []
    text = _HEREDOC_RE.sub(r"\1\4", command[:_MAX_COMMAND_SCAN])
    found: list[tuple[bool, list[str]]] = []
    piped, words = False, []
    for match in _TOKEN_RE.finditer(text):
        word = match.group("word")
        op = match.group("op")
        if word is not None:
            words.append(_unquote(word))
        elif op is not None and words:
            found.append((piped, words))
            piped, words = op in ("|", "|&"), []
    if words:
        found.append((piped, words))
    return [(p, stripped) for p, w in found if (stripped := _strip_wrappers(w))]


def _skip_flags(words: list[str], start: int, value_flags: frozenset[str]) -> int:
    """Index of the first word at or after ``start`` that is not a flag (or a flag's value)."""
    i = start
    while i < len(words):
        word = words[i]
        if word == "--":
            return i + 1
        if not word.startswith("-") or word == "-":
            return i
        i += 2 if word in value_flags else 1
    return i


def _strip_wrappers(words: list[str]) -> list[str]:
    """Drop env assignments and wrappers (``timeout 60``, ``uv run``, ``npx``...)."""
    i = 0
    for _ in range(8):  # wrappers nest a little (``env FOO=1 timeout 60 uv run``), not more
        while i < len(words) and _ASSIGNMENT_RE.match(words[i]):
            i += 1
        if i >= len(words):
            return []
        head = basename(words[i])
        if head == "env":
            i = _skip_flags(words, i + 1, frozenset({"-u", "-C", "-S"}))
            continue
        if head in _PLAIN_WRAPPERS:
            i = _skip_flags(words, i + 1, _WRAPPER_VALUE_FLAGS)
            while i < len(words) and _DURATION_RE.match(words[i]):
                i += 1
            continue
        if head in _RUN_WRAPPERS and i + 1 < len(words) and words[i + 1] == "run":
            i = _skip_flags(words, i + 2, _WRAPPER_VALUE_FLAGS)
            continue
        if head == "bundle" and i + 1 < len(words) and words[i + 1] == "exec":
            i += 2
            continue
        if head == "coverage" and i + 1 < len(words) and words[i + 1] == "run":
            return ["python", *words[i + 2 :]]
        break
    return words[i:]


class _Found(NamedTuple):
    """A check found in one simple command: its name and the words given to it."""

    name: str
    args: list[str]


def _found(name: str | None, args: list[str]) -> _Found | None:
    return None if name is None else _Found(name, args)


def _python_check(rest: list[str]) -> _Found | None:
    """``python [-X opt] -m module ...`` or ``python manage.py test``."""
    i = 0
    while i < len(rest):
        word = rest[i]
        if word == "-m" and i + 1 < len(rest):
            module = rest[i + 1]
            return _simple_check(module.split(".", 1)[0], rest[i + 2 :])
        if word.startswith("-m") and len(word) > 2:
            return _simple_check(word[2:].split(".", 1)[0], rest[i + 1 :])
        if word == "-c":
            return None
        if word in ("-X", "-W"):
            i += 2
            continue
        if word.startswith("-"):
            i += 1
            continue
        if basename(word) == "manage.py" and i + 1 < len(rest) and rest[i + 1] == "test":
            return _Found("django test", rest[i + 2 :])
        return None
    return None


def _js_check(manager: str, rest: list[str]) -> _Found | None:
    value_flags = _NPM_VALUE_FLAGS if manager == "npm" else _JS_VALUE_FLAGS
    i = _skip_flags(rest, 0, value_flags)
    if manager == "yarn" and i < len(rest) and rest[i] == "workspace":
        i = _skip_flags(rest, i + 2, value_flags)
    if i >= len(rest):
        return None
    # The workspace or package a manager's flags select narrows the run like a path.
    where = [word for word in rest[:i] if not word.startswith("-")]
    sub = rest[i]
    if sub in ("test", "t", "tst"):
        return _Found(f"{manager} test", where + rest[i + 1 :])
    if sub in ("exec", "x", "dlx"):
        return _check_name(rest[_skip_flags(rest, i + 1, value_flags) :], 1)
    if sub in ("run", "run-script", "rs"):
        j = _skip_flags(rest, i + 1, value_flags)
        script = rest[j] if j < len(rest) else None
        i = j
    elif manager == "npm":
        return None
    elif sub in _JS_RUNNERS:
        return _check_name(rest[i:], 1)
    else:
        script = sub  # yarn, pnpm and bun run package scripts by bare name
    if script is None or not _GATE_RE.match(script):
        return None
    name = f"{manager} test" if script == "test" else f"{manager} run {script}"
    return _Found(name, where + rest[i + 1 :])


def _simple_check(head: str, rest: list[str]) -> _Found | None:
    if any(word in _NO_RUN_FLAGS for word in rest):
        return None
    name = _SIMPLE_CHECKS.get(head)
    if name is not None:
        if name == "vitest" and rest[:1] == ["run"]:
            rest = rest[1:]  # vitest's one-shot mode, not a path
        return _Found(name, rest)
    if head == "ruff":
        i = _skip_flags(rest, 0, frozenset())
        sub = rest[i] if i < len(rest) else None
        if sub is None or sub == "check":
            return _Found("ruff", rest[i + 1 :])
        if sub == "format":
            return (
                _Found("ruff", rest[i + 1 :]) if ("--check" in rest or "--diff" in rest) else None
            )
        return None if sub in _RUFF_OTHER_COMMANDS else _Found("ruff", rest)  # old ``check``
    if head in _CHECKING_FLAG:
        return _Found(head, rest) if _CHECKING_FLAG[head] & set(rest) else None
    subcommands = _SUBCOMMAND_CHECKS.get(head)
    if subcommands is not None:
        i = 0
        while i < len(rest) and (rest[i].startswith("-") or rest[i].startswith("+")):
            i += 1
        if i >= len(rest):
            return None
        found = subcommands.get(rest[i])
        if found is None and head in _FORMAT_CHECKS and rest[i] in _FORMAT_CHECKS[head]:
            found = f"{head} {rest[i]}" if _FORMAT_CHECK_FLAGS & set(rest) else None
        return _found(found, rest[i + 1 :])
    return None


def _goals_check(tool: str, rest: list[str], value_flags: frozenset[str]) -> _Found | None:
    found: str | None = None
    i = 0
    while i < len(rest):
        word = rest[i]
        if word.startswith("-"):
            i += 2 if word in value_flags else 1
            continue
        task = word.rsplit(":", 1)[-1]
        if (tool == "mvn" and task in _MAVEN_GOALS) or (
            tool == "gradle" and _GRADLE_TASK_RE.match(task)
        ):
            found = task
        i += 1
    return _Found(f"{tool} {found}", []) if found else None


def _gate_check(tool: str, rest: list[str], value_flags: frozenset[str]) -> _Found | None:
    """A task runner's gates (``make check``, ``just lint test``, ``task ci``): named by the
    targets that are gates; a line naming only other targets is not a check."""
    targets: list[str] = []
    recognised: list[str] = []
    i = 0
    while i < len(rest):
        word = rest[i]
        if word.startswith("-"):
            i += 2 if word in value_flags else 1
            if word == "-j" and i < len(rest) and rest[i].isdigit():
                i += 1
            continue
        if not _ASSIGNMENT_RE.match(word):
            targets.append(word)
            if _GATE_RE.match(word) or (tool == "make" and word == "all"):
                recognised.append(word)
            elif tool != "make":
                break  # just and task pass the words after a recipe to it as arguments
        i += 1
    if not targets:
        return _Found("make", []) if tool == "make" else None
    return _Found(f"{tool} " + " ".join(recognised), []) if recognised else None


def _runner_check(head: str, rest: list[str]) -> _Found | None:
    """Task runners that name a gate after ``run`` (``mise run lint``, ``turbo run test``,
    ``pre-commit run``, ``lefthook run pre-push``, ``nx run app:test``)."""
    i = _skip_flags(rest, 0, frozenset({"-C", "--cd", "--filter", "-F"}))
    sub = rest[i] if i < len(rest) else ""
    if head in ("pre-commit", "prek"):
        return _Found("pre-commit", []) if sub in ("run", "") or sub.startswith("-") else None
    if head == "mise" and sub == "tasks":
        i, sub = i + 1, rest[i + 1] if i + 1 < len(rest) else ""
    if sub in ("run", "r", "run-many", "affected"):
        i = _skip_flags(rest, i + 1, _RUNNER_VALUE_FLAGS)
        targets = [w for w in rest[i:] if not w.startswith("-")]
        targets += [rest[j + 1] for j, w in enumerate(rest[:-1]) if w in ("-t", "--target")]
    elif head in ("turbo", "nx"):
        targets = [w for w in rest[i:] if not w.startswith("-")][:1]
    else:
        return None
    gates = [t for t in targets if _GATE_RE.match(t.rsplit(":", 1)[-1])]
    if head == "lefthook" and targets:
        gates = targets[:1]
    verb = "" if head == "nx" else "run "
    return _Found(f"{head} {verb}" + " ".join(gates), []) if gates else None


def _check_name(words: list[str], depth: int) -> _Found | None:
    words = _strip_wrappers(words)
    if not words:
        return None
    head = basename(words[0])
    rest = words[1:]
    if head in SHELLS:
        if depth < _MAX_SHELL_NESTING and len(rest) >= 2 and rest[0].lower() in SHELL_C_FLAGS:
            found = _last_check(rest[1], depth + 1)
            return found[0] if found is not None else None
        return None
    if any(word in _NO_RUN_FLAGS for word in rest):
        return None
    if _PYTHON_RE.match(head):
        return _python_check(rest)
    if head in _JS_MANAGERS:
        return _js_check(head, rest)
    if head in ("mvn", "mvnw"):
        return _goals_check("mvn", rest, _MAVEN_VALUE_FLAGS)
    if head in ("gradle", "gradlew"):
        return _goals_check("gradle", rest, frozenset({"-p", "-b", "-c", "-x"}))
    if head in ("make", "gmake"):
        return _gate_check("make", rest, _MAKE_VALUE_FLAGS)
    if head in _GATE_RUNNERS:
        return _gate_check(head, rest, _GATE_RUNNERS[head])
    if head in _RUN_RUNNERS:
        return _runner_check(head, rest)
    if head == "cmake":
        return _Found("cmake --build", []) if "--build" in rest else None
    if head == "node":
        return _Found("node --test", rest) if "--test" in rest else None
    return _simple_check(head, rest)


def _last_check(command: str, depth: int) -> tuple[_Found, list[str], bool] | None:
    """The last check of a command line, the directory a ``cd`` before it went to, and
    whether it is the line's last command (so that the line's exit status is its own)."""
    found: tuple[_Found, list[str], bool] | None = None
    directory: list[str] = []
    segments = _segments(command)
    for index, segment in enumerate(segments):
        if segment and segment[0] == "cd":
            directory = segment[1:2]
            continue
        name = _check_name(segment, depth)
        if name is not None:
            found = (name, directory, index == len(segments) - 1)
    return found


def _scope(args: list[str], directory: list[str]) -> CheckScope:
    """The paths and selecting options among a check's words (flags that take a value and
    do not select, like ``--seed 0``, and redirections are left out)."""
    paths: list[str] = []
    filters: list[str] = []
    i = 0
    while i < len(args):
        word = args[i]
        i += 1
        if word == "--" or _REDIRECT_WORD_RE.match(word):
            continue
        if word.startswith("-") and len(word) > 1:
            flag, eq, value = word.partition("=")
            takes_next = not eq and i < len(args) and not args[i].startswith("-")
            if flag in _SELECTING_FLAGS:
                if takes_next:
                    value, i = args[i], i + 1
                filters.append(f"{flag}={value}")
            elif flag in _SELECTING_SWITCHES:
                filters.append(flag)
            elif takes_next and (flag in _SCOPE_VALUE_FLAGS or args[i].isdigit()):
                i += 1
            continue
        paths.append(_normalised_path(word))
    where = _normalised_path(directory[0]) if directory else ""
    return CheckScope(where, tuple(dict.fromkeys(paths)), tuple(sorted(set(filters))))


def _normalised_path(word: str) -> str:
    path = word
    while path.startswith("./"):
        path = path[2:]
    for suffix in ("/...", "..."):
        if path.endswith(suffix):
            path = path[: -len(suffix)]
    path = path.rstrip("/")
    return "" if path == "." else path


def detect_check(command: str) -> CheckRun | None:
    """Recognise a test, build or lint run anywhere in a shell command line.

    Looks through ``cd x &&``, env assignments, ``timeout``, ``uv run``, ``npx``,
    ``python -m``, ``bash -lc '...'`` and pipes. When a line runs several checks, the last
    one names it (its summary is the one at the end of the output). ``command`` is the whole
    line with its whitespace collapsed, so runs of different files stay distinguishable.
    """
    if not isinstance(command, str):
        return None
    return _detect_check(command)


def detect_check_uncached(command: str) -> CheckRun | None:
    """:func:`detect_check` without its memo: what tests compare the memo against."""
    return _check_run(command) if isinstance(command, str) else None


def _check_run(command: str) -> CheckRun | None:
    found = _last_check(command, 0)
    if found is None:
        return None
    check, directory, last = found
    return CheckRun(
        name=check.name,
        command=" ".join(command.split()),
        scope=_scope(check.args, directory),
        own_exit=last,
    )


_STDERR_MERGE_RE: Final = re.compile(r"(?<!\S)\d?>&\d(?!\S)|(?<!\S)2>/dev/null(?!\S)")
_OUTPUT_FILTER_RE: Final = re.compile(
    r"\s*\|&?\s*(?:tail|head|grep|egrep|rg|cat|tee|less|more|cut|sort|uniq|wc|sed|awk)"
    r"(?:\s[^|;&'\"]*)?$"
)


_LEADING_CD_RE: Final = re.compile(r"^cd [^\s;&|'\"]+ ?(?:&&|;) ?")


def shown_command(command: str) -> str:
    """A check's command as the memory shows it: without the ``cd`` into the project, the
    stderr merge and the output filters it was piped into (``2>&1 | tail -30``), which do
    not change what ran."""
    shown = " ".join(command.split())
    for _ in range(4):  # ``| grep -v x | tail -5``: a few filters, not more
        trimmed = _OUTPUT_FILTER_RE.sub("", shown)
        if trimmed == shown:
            break
        shown = trimmed
    shown = " ".join(_STDERR_MERGE_RE.sub("", shown).split())
    shown = _LEADING_CD_RE.sub("", shown)
    return shown or " ".join(command.split())


# Memoised: agents run the same few commands again and again, and parsing a command line
# into shell words is the most expensive step of a tool call.
_detect_check = functools.lru_cache(maxsize=4096)(_check_run)


# Commands that only look: agents that read through a shell (Codex) run these where Claude
# Code would call Read, Grep, Glob or LS.
_LOOKING_COMMANDS: Final = frozenset(
    {
        "cat", "head", "tail", "nl", "wc", "ls", "tree", "pwd", "rg", "grep", "egrep",
        "fgrep", "ag", "ack", "file", "stat", "du", "df", "diff", "sort", "uniq", "cut",
        "which", "type", "basename", "dirname", "realpath", "readlink", "echo", "printf",
        "true", "less", "more", "jq", "column", "tr", "fd", "cd",
    }
)  # fmt: skip
_LOOKING_GIT: Final = frozenset(
    {"status", "diff", "log", "show", "ls-files", "grep", "blame", "rev-parse", "describe"}
)
_WRITING_FIND_FLAGS: Final = frozenset(
    {"-delete", "-exec", "-execdir", "-ok", "-okdir", "-fprint", "-fprintf", "-fls"}
)
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
    segments = _segments(command)
    return bool(segments) and all(_segment_reads_only(words, depth) for words in segments)


_read_only = functools.lru_cache(maxsize=4096)(_reads_only)  # memoised like _detect_check


def _segment_reads_only(words: list[str], depth: int) -> bool:
    words = _strip_wrappers(words)
    if not words:
        return False
    head, rest = basename(words[0]), words[1:]
    for i, word in enumerate(rest):
        redirect = _REDIRECT_RE.match(word)
        if redirect is not None:
            target = redirect.group(1) or (rest[i + 1] if i + 1 < len(rest) else "")
            if target != "/dev/null":
                return False
    if head in SHELLS:
        return (
            depth < _MAX_SHELL_NESTING
            and len(rest) >= 2
            and rest[0].lower() in SHELL_C_FLAGS
            and _read_only(rest[1], depth + 1)
        )
    if head == "sed":
        return "-n" in rest and not any(w.startswith(("-i", "--in-place")) for w in rest)
    if head == "git":
        sub = next((w for w in rest if not w.startswith("-")), "")
        return sub in _LOOKING_GIT
    if head == "find":
        return not any(w in _WRITING_FIND_FLAGS for w in rest)
    return head in _LOOKING_COMMANDS
