"""Shell command lines: splitting into simple commands, stripping wrappers, recognising
read-only commands and the command that runs a check (tests, a build, a linter).

Total, deterministic, free of I/O and bounded on long command lines.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

from deriver.user_text import word_set

__all__ = [
    "SHELLS",
    "SHELL_C_FLAGS",
    "CheckRun",
    "basename",
    "detect_check",
    "detect_check_uncached",
    "is_read_only_command",
    "is_read_only_command_uncached",
    "simple_commands",
]


@dataclass(frozen=True, slots=True)
class CheckRun:
    """A test, build or lint command: its normalised ``name`` and the whole ``command``."""

    name: str
    command: str


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
_SCRIPT_RE: Final = re.compile(
    r"^(?:test|tests|build|lint|check|typecheck|type-check|types|tsc|e2e|verify|ci|compile"
    r"|unit|spec|coverage)(?:[:_.-].*)?$"
)
_MAKE_TARGET_RE: Final = re.compile(
    r"^(?:test|tests|check|build|lint|all|ci|verify|typecheck|coverage|e2e)(?:[:_-].*)?$"
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
}
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
    },
    "dotnet": {"test": "dotnet test", "build": "dotnet build"},
    "deno": {"test": "deno test", "lint": "deno lint", "check": "deno check"},
    "swift": {"test": "swift test", "build": "swift build"},
    "mix": {"test": "mix test", "compile": "mix compile", "credo": "mix credo"},
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


def _python_check(rest: list[str]) -> str | None:
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
            return "django test"
        return None
    return None


def _js_check(manager: str, rest: list[str]) -> str | None:
    value_flags = _NPM_VALUE_FLAGS if manager == "npm" else _JS_VALUE_FLAGS
    i = _skip_flags(rest, 0, value_flags)
    if manager == "yarn" and i < len(rest) and rest[i] == "workspace":
        i = _skip_flags(rest, i + 2, value_flags)
    if i >= len(rest):
        return None
    sub = rest[i]
    if sub in ("test", "t", "tst"):
        return f"{manager} test"
    if sub in ("exec", "x", "dlx"):
        return _check_name(rest[_skip_flags(rest, i + 1, value_flags) :], 1)
    if sub in ("run", "run-script", "rs"):
        j = _skip_flags(rest, i + 1, value_flags)
        script = rest[j] if j < len(rest) else None
    elif manager == "npm":
        return None
    elif sub in _JS_RUNNERS:
        return _check_name(rest[i:], 1)
    else:
        script = sub  # yarn, pnpm and bun run package scripts by bare name
    if script is None or not _SCRIPT_RE.match(script):
        return None
    return f"{manager} test" if script == "test" else f"{manager} run {script}"


def _simple_check(head: str, rest: list[str]) -> str | None:
    if any(word in _NO_RUN_FLAGS for word in rest):
        return None
    name = _SIMPLE_CHECKS.get(head)
    if name is not None:
        return name
    if head == "ruff":
        i = _skip_flags(rest, 0, frozenset())
        sub = rest[i] if i < len(rest) else None
        if sub is None or sub == "check":
            return "ruff"
        if sub == "format":
            return "ruff" if ("--check" in rest or "--diff" in rest) else None
        return None if sub in _RUFF_OTHER_COMMANDS else "ruff"  # ``ruff src/``: old ``check``
    if head == "black":
        return "black" if "--check" in rest else None
    subcommands = _SUBCOMMAND_CHECKS.get(head)
    if subcommands is not None:
        i = 0
        while i < len(rest) and (rest[i].startswith("-") or rest[i].startswith("+")):
            i += 1
        return subcommands.get(rest[i]) if i < len(rest) else None
    return None


def _goals_check(tool: str, rest: list[str], value_flags: frozenset[str]) -> str | None:
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
    return f"{tool} {found}" if found else None


def _make_check(rest: list[str]) -> str | None:
    targets: list[str] = []
    recognised: list[str] = []
    i = 0
    while i < len(rest):
        word = rest[i]
        if word.startswith("-"):
            i += 2 if word in _MAKE_VALUE_FLAGS else 1
            if word == "-j" and i < len(rest) and rest[i].isdigit():
                i += 1
            continue
        if not _ASSIGNMENT_RE.match(word):
            targets.append(word)
            if _MAKE_TARGET_RE.match(word):
                recognised.append(word)
        i += 1
    if not targets:
        return "make"
    return "make " + " ".join(recognised) if recognised else None


def _check_name(words: list[str], depth: int) -> str | None:
    words = _strip_wrappers(words)
    if not words:
        return None
    head = basename(words[0])
    rest = words[1:]
    if head in SHELLS:
        if depth < _MAX_SHELL_NESTING and len(rest) >= 2 and rest[0].lower() in SHELL_C_FLAGS:
            return _last_check(rest[1], depth + 1)
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
        return _make_check(rest)
    if head == "cmake":
        return "cmake --build" if "--build" in rest else None
    if head == "node":
        return "node --test" if "--test" in rest else None
    return _simple_check(head, rest)


def _last_check(command: str, depth: int) -> str | None:
    found: str | None = None
    for segment in _segments(command):
        name = _check_name(segment, depth)
        if name is not None:
            found = name
    return found


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
    name = _last_check(command, 0)
    if name is None:
        return None
    return CheckRun(name=name, command=" ".join(command.split()))


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
