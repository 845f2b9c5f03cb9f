"""Pure helpers that read tool calls: what kind a tool is, what a call did, what a check said.

Everything here is total (any JSON value or text in, never an exception out), deterministic,
free of I/O and bounded in the work it does on large outputs: the deriver calls these once per
tool event, so patterns are compiled once and lookups are dict and frozenset hits.
"""

from __future__ import annotations

import functools
import json
import re
import shlex
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Final

__all__ = [
    "CheckCounts",
    "CheckRun",
    "ToolKind",
    "check_passed",
    "classify_tool",
    "detect_check",
    "edited_paths",
    "exit_code_from_output",
    "first_line",
    "is_acknowledgement",
    "is_failure_text",
    "is_read_only_command",
    "is_side_effecting",
    "key_argument",
    "parse_check_output",
]


# --------------------------------------------------------------------------------------------
# Tool kinds
# --------------------------------------------------------------------------------------------


class ToolKind(StrEnum):
    """What a tool does, as far as session memory cares."""

    READ = "read"
    SEARCH = "search"
    LIST = "list"
    EDIT = "edit"
    SHELL = "shell"
    TASK = "task"
    TODO = "todo"
    PLAN_EXIT = "plan_exit"
    QUESTION = "question"
    WEB = "web"
    OTHER = "other"


def _words(text: str, sep: str | None = None) -> frozenset[str]:
    """A set written as one string, so long vocabularies stay readable."""
    return frozenset(text.split(sep))


def _kinds(kind: ToolKind, names: str) -> dict[str, ToolKind]:
    return dict.fromkeys(_words(names), kind)


# Keys are normalised names (see _normalise): lower case, "-" and spaces as "_".
_TOOL_KINDS: Final[Mapping[str, ToolKind]] = {
    **_kinds(
        ToolKind.READ,
        "read read_file readfile read_many_files view view_file open_file cat "
        "view_image notebookread read_notebook",
    ),
    **_kinds(
        ToolKind.SEARCH,
        "grep grep_files grep_search search search_files search_file_content rg ripgrep "
        "codebase_search find_in_files text_search",
    ),
    **_kinds(
        ToolKind.LIST,
        "glob ls list list_dir list_directory list_files find_files file_search tree",
    ),
    **_kinds(
        ToolKind.EDIT,
        "write edit multiedit notebookedit edit_notebook apply_patch write_file edit_file "
        "create_file delete_file move_file rename_file write_to_file replace_in_file "
        "str_replace str_replace_editor str_replace_based_edit_tool replace search_replace "
        "apply_diff insert patch multi_edit",
    ),
    **_kinds(
        ToolKind.SHELL,
        "bash bashoutput bash_output killshell killbash kill_shell taskoutput shell "
        "exec_command write_stdin local_shell unified_exec run_command run_shell_command "
        "execute_command run_terminal_cmd run_terminal_command terminal exec execute sh "
        "powershell",
    ),
    **_kinds(
        ToolKind.TASK,
        "task agent spawn_agent wait_agent dispatch_agent subagent sub_agent run_subagent",
    ),
    **_kinds(
        ToolKind.TODO,
        "todowrite todo_write todoread todo_read write_todos update_plan update_todos "
        "taskcreate taskupdate tasklist taskget manage_todo_list todo",
    ),
    **_kinds(ToolKind.PLAN_EXIT, "exitplanmode exit_plan_mode"),
    **_kinds(
        ToolKind.QUESTION,
        "askuserquestion ask_user_question ask_user ask_followup_question request_user_input",
    ),
    **_kinds(
        ToolKind.WEB,
        "webfetch web_fetch websearch web_search google_web_search fetch fetch_url browse",
    ),
}

# Namespaces some providers put in front of a function name ("functions.shell").
_NAME_PREFIXES: Final = ("functions.", "tools.")

_PATCH_TOOLS: Final = frozenset({"apply_patch", "patch", "apply_diff"})
_SIDE_EFFECTING: Final = frozenset({ToolKind.EDIT, ToolKind.SHELL, ToolKind.TASK, ToolKind.OTHER})


def classify_tool(name: str) -> ToolKind:
    """Return the kind of the tool called ``name`` (case- and ``-``/``_``-insensitive).

    MCP tools (``mcp__server__tool``) and unknown names are ``OTHER``.
    """
    return _classify(name) if isinstance(name, str) else ToolKind.OTHER


# Memoised, like _is_patch_tool: a session uses a handful of tool names, each looked up
# several times on every call.
@functools.lru_cache(maxsize=1024)
def _classify(name: str) -> ToolKind:
    key = _normalise(name)
    if key.startswith("mcp__"):
        return ToolKind.OTHER
    return _TOOL_KINDS.get(key, ToolKind.OTHER)


def _normalise(name: str) -> str:
    key = name.strip().lower().replace("-", "_").replace(" ", "_")
    for prefix in _NAME_PREFIXES:
        if key.startswith(prefix):
            key = key[len(prefix) :]
    return key


def is_side_effecting(kind: ToolKind) -> bool:
    """Whether a call of this kind may have changed the world, so is not safe to replay.

    ``OTHER`` is unknown, hence treated as side-effecting.
    """
    return kind in _SIDE_EFFECTING


# --------------------------------------------------------------------------------------------
# Key arguments
# --------------------------------------------------------------------------------------------

_PATH_KEYS: Final = ("file_path", "path", "notebook_path", "filename", "file", "target_file")
_COMMAND_KEYS: Final = ("command", "cmd")
_PATTERN_KEYS: Final = ("pattern", "query", "glob", "regex")
_WEB_KEYS: Final = ("url", "query")
_TASK_KEYS: Final = ("description", "prompt", "subagent_type")
_TODO_KEYS: Final = ("subject", "taskId", "task_id", "explanation")
_ID_KEYS: Final = ("bash_id", "shell_id", "task_id", "session_id")
_GENERIC_KEYS: Final = (
    *_PATH_KEYS,
    *_COMMAND_KEYS,
    *_PATTERN_KEYS,
    "url",
    "description",
    "subject",
    "name",
)
_PATCH_KEYS: Final = ("input", "patch", "diff")

_SHELLS: Final = frozenset({"bash", "sh", "zsh", "dash", "ksh", "fish", "pwsh", "powershell"})
_SHELL_C_FLAGS: Final = frozenset({"-c", "-lc", "-ic", "-lic", "-cl", "-li", "-command"})

# No "^": a pattern that starts with a literal is searched for quickly; line starts are
# checked by hand (see _patch_paths).
_PATCH_FILE_RE: Final = re.compile(
    r"\*\*\* (?:(?:Update|Add|Delete) File|Move to):[ \t]*(.+?)[ \t]*$", re.MULTILINE
)
_JSON_LOOKS_LIKE_OBJECT: Final = re.compile(r"^\s*\{")
# Parsing a JSON argument string costs O(n); past this size it is not an argument object.
_MAX_JSON_ARGS: Final = 1 << 20


def _text(value: object) -> str | None:
    """A non-blank string value, stripped, else None."""
    if isinstance(value, str):
        stripped = value.strip()
        return stripped or None
    return None


def _first_of(args: Mapping[object, object], keys: Iterable[str]) -> str | None:
    for key in keys:
        found = _text(args.get(key))
        if found is not None:
            return found
    return None


def _command_text(value: object) -> str | None:
    """A shell command given as a string or an argv list (``["bash", "-lc", "cmd"]``)."""
    if isinstance(value, str):
        return _text(value)
    if isinstance(value, list) and value and all(isinstance(part, str) for part in value):
        parts: list[str] = list(value)
        if (
            len(parts) >= 3
            and _basename(parts[0]) in _SHELLS
            and parts[1].lower() in _SHELL_C_FLAGS
        ):
            return _text(parts[2])
        return _text(shlex.join(parts))
    return None


def _patch_paths(patch: str) -> tuple[str, ...]:
    paths: dict[str, None] = {}
    for match in _PATCH_FILE_RE.finditer(patch):
        start = match.start()
        if start == 0 or patch[start - 1] == "\n":
            paths[match.group(1)] = None
    return tuple(paths)


def _patch_text(args: object) -> str | None:
    if isinstance(args, str):
        return args
    if isinstance(args, dict):
        for key in _PATCH_KEYS:
            value = args.get(key)
            if isinstance(value, str):
                return value
    return None


def _as_args(args: object) -> object:
    """Decode a JSON object passed as a string (Codex ``arguments``); otherwise unchanged."""
    if (
        isinstance(args, str)
        and len(args) <= _MAX_JSON_ARGS
        and _JSON_LOOKS_LIKE_OBJECT.match(args)
    ):
        try:
            decoded = json.loads(args)
        except (ValueError, RecursionError):
            return args
        if isinstance(decoded, dict):
            return decoded
    return args


def _is_patch_tool(tool_name: str) -> bool:
    return isinstance(tool_name, str) and _patch_tool(tool_name)


@functools.lru_cache(maxsize=1024)
def _patch_tool(name: str) -> bool:
    return _normalise(name) in _PATCH_TOOLS


def key_argument(tool_name: str, args: object) -> str | None:
    """The one argument that says what a call did: a path, a command, a pattern, a url...

    ``args`` may be any JSON value (or a JSON object encoded as a string). For
    ``apply_patch`` it is the files named in the patch, joined with ", ". Returns None when
    nothing fits.
    """
    if _is_patch_tool(tool_name):
        patch = _patch_text(args)
        if patch is not None:
            paths = _patch_paths(patch)
            if paths:
                return ", ".join(paths)
    kind = classify_tool(tool_name)
    args = _as_args(args)
    if isinstance(args, str):
        return _text(args)  # a bare string argument is the command, path or query itself
    if not isinstance(args, dict):
        return None
    if kind is ToolKind.SHELL:
        for key in _COMMAND_KEYS:
            command = _command_text(args.get(key))
            if command is not None:
                return command
        return _first_of(args, ("chars", *_ID_KEYS))
    if kind in (ToolKind.SEARCH, ToolKind.LIST):
        return _first_of(args, (*_PATTERN_KEYS, *_PATH_KEYS, "dir_path", "directory"))
    if kind in (ToolKind.READ, ToolKind.EDIT):
        return _first_of(args, _PATH_KEYS)
    if kind is ToolKind.WEB:
        return _first_of(args, _WEB_KEYS)
    if kind is ToolKind.TASK:
        found = _first_of(args, _TASK_KEYS)
        return first_line(found) if found is not None else None
    if kind is ToolKind.TODO:
        return _first_of(args, _TODO_KEYS)
    if kind is ToolKind.PLAN_EXIT:
        plan = _text(args.get("plan"))
        return first_line(plan) if plan is not None else None
    if kind is ToolKind.QUESTION:
        return _question_text(args)
    found = _first_of(args, _GENERIC_KEYS)
    if found is not None:
        return found
    return _command_text(args.get("command"))


def _question_text(args: Mapping[object, object]) -> str | None:
    questions = args.get("questions")
    if isinstance(questions, list):
        for question in questions:
            if isinstance(question, dict):
                found = _text(question.get("question"))
                if found is not None:
                    return found
    return _first_of(args, ("question", "prompt"))


def edited_paths(tool_name: str, args: object) -> tuple[str, ...]:
    """Every file an edit-kind call changed, in order, without duplicates.

    Covers single-file tools (Edit, Write, NotebookEdit, write_file...), MultiEdit (and edit
    lists that name a file per edit) and ``apply_patch`` patches touching several files.
    Non-edit tools give ``()``.
    """
    if classify_tool(tool_name) is not ToolKind.EDIT:
        return ()
    if _is_patch_tool(tool_name):
        patch = _patch_text(args)
        if patch is not None:
            return _patch_paths(patch)
    args = _as_args(args)
    if not isinstance(args, dict):
        return ()
    paths: dict[str, None] = {}
    own = _first_of(args, _PATH_KEYS)
    if own is not None:
        paths[own] = None
    for list_key in ("edits", "files", "changes"):
        entries = args.get(list_key)
        if not isinstance(entries, list):
            continue
        for entry in entries:
            path = _text(entry) if isinstance(entry, str) else None
            if isinstance(entry, dict):
                path = _first_of(entry, _PATH_KEYS)
            if path is not None:
                paths[path] = None
    return tuple(paths)


# --------------------------------------------------------------------------------------------
# Checks: recognising test, build and lint commands
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CheckRun:
    """A test, build or lint command: its normalised ``name`` and the whole ``command``."""

    name: str
    command: str


# Past this, a command line is a script or a heredoc, not a check invocation to look at.
_MAX_COMMAND_SCAN: Final = 4096
_MAX_SHELL_NESTING: Final = 2

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
_PLAIN_WRAPPERS: Final = _words(
    "time command exec nice nohup sudo xvfb-run stdbuf ionice timeout gtimeout caffeinate "
    "chronic xargs npx bunx pnpx uvx"
)
_RUN_WRAPPERS: Final = frozenset({"uv", "poetry", "pipenv", "pdm", "rye", "conda", "pipx"})
_WRAPPER_VALUE_FLAGS: Final = _words(
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


def _basename(word: str) -> str:
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
        head = _basename(words[i])
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
        if _basename(word) == "manage.py" and i + 1 < len(rest) and rest[i + 1] == "test":
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
    head = _basename(words[0])
    rest = words[1:]
    if head in _SHELLS:
        if depth < _MAX_SHELL_NESTING and len(rest) >= 2 and rest[0].lower() in _SHELL_C_FLAGS:
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


@functools.lru_cache(maxsize=4096)
def _detect_check(command: str) -> CheckRun | None:
    # Memoised: agents run the same few commands again and again, and parsing a command
    # line into shell words is the most expensive step of a tool call.
    name = _last_check(command, 0)
    if name is None:
        return None
    return CheckRun(name=name, command=" ".join(command.split()))


# --------------------------------------------------------------------------------------------
# Read-only shell commands
# --------------------------------------------------------------------------------------------

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


@functools.lru_cache(maxsize=4096)
def _read_only(command: str, depth: int) -> bool:
    segments = _segments(command)
    return bool(segments) and all(_segment_reads_only(words, depth) for words in segments)


def _segment_reads_only(words: list[str], depth: int) -> bool:
    words = _strip_wrappers(words)
    if not words:
        return False
    head, rest = _basename(words[0]), words[1:]
    for i, word in enumerate(rest):
        redirect = _REDIRECT_RE.match(word)
        if redirect is not None:
            target = redirect.group(1) or (rest[i + 1] if i + 1 < len(rest) else "")
            if target != "/dev/null":
                return False
    if head in _SHELLS:
        return (
            depth < _MAX_SHELL_NESTING
            and len(rest) >= 2
            and rest[0].lower() in _SHELL_C_FLAGS
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


# --------------------------------------------------------------------------------------------
# Checks: reading their output
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CheckCounts:
    """Result counts from a check's summary line; None where the tool does not report one."""

    passed: int | None = None
    failed: int | None = None
    errors: int | None = None
    skipped: int | None = None


# Summaries are printed at the end; scanning only the tail bounds the work on huge outputs.
_MAX_SUMMARY_SCAN: Final = 8192
_ANSI_RE: Final = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)")
_COUNT_WORD_RE: Final = re.compile(r"(\d+)\s+([a-z]+)", re.IGNORECASE)

_PYTEST_RE: Final = re.compile(
    r"^=*[ \t]*((?:\d+ (?:failed|passed|skipped|deselected|xfailed|xpassed|warnings?|errors?"
    r"|rerun)(?:, )?)+|no tests ran)[ \t]+in [\d.]+s\b",
    re.MULTILINE,
)
_UNITTEST_RE: Final = re.compile(
    r"^Ran (\d+) tests? in [^\n]*\n(?:[ \t]*\n)*[ \t]*(OK|FAILED)(?:[ \t]*\(([^)\n]*)\))?",
    re.MULTILINE,
)
_JEST_RE: Final = re.compile(r"^Tests:[ \t]+([^\n]*?\d+ total)", re.MULTILINE)
_VITEST_RE: Final = re.compile(
    r"^[ \t]*Tests[ \t]+((?:\d+ [a-z]+(?:[ \t]*\|[ \t]*)?)+)[ \t]*\((\d+)\)", re.MULTILINE
)
_MOCHA_RE: Final = re.compile(
    r"^[ \t]*(\d+) passing \([^)\n]*\)[ \t]*\n(?:[ \t]*(\d+) pending[ \t]*\n)?"
    r"(?:[ \t]*(\d+) failing[ \t]*$)?",
    re.MULTILINE,
)
_MOCHA_FAILING_RE: Final = re.compile(r"^[ \t]*(\d+) failing[ \t]*$", re.MULTILINE)
_GO_RE: Final = re.compile(
    r"^(?:(--- (?:PASS|FAIL|SKIP)): |(ok)[ \t]+\S+[ \t]+(?:[\d.]+s|\(cached\))"
    r"|(FAIL)[ \t]+\S+[ \t]+(?:[\d.]+s|\[))",
    re.MULTILINE,
)
_CARGO_RE: Final = re.compile(
    r"^test result: (?:ok|FAILED)\. (\d+) passed; (\d+) failed; (\d+) ignored", re.MULTILINE
)
_FOUND_RE: Final = re.compile(
    r"^Found (\d+) errors?\b(?:[^\n(]*\((\d+) fixed, (\d+) remaining\))?", re.MULTILINE
)
_MYPY_SUCCESS_RE: Final = re.compile(r"^Success: no issues found", re.MULTILINE)
_RUFF_SUCCESS_RE: Final = re.compile(r"^All checks passed!", re.MULTILINE)
_PYRIGHT_RE: Final = re.compile(
    r"^[ \t]*(\d+) errors?, (\d+) warnings?, (\d+) (?:informations?|notes?)", re.MULTILINE
)
_ESLINT_RE: Final = re.compile(
    r"^\S*[ \t]*\d+ problems? \((\d+) errors?, (\d+) warnings?\)", re.MULTILINE
)
_RSPEC_RE: Final = re.compile(
    r"^(\d+) examples?, (\d+) failures?(?:, (\d+) pending)?"
    r"(?:, (\d+) errors? occurred outside of examples)?",
    re.MULTILINE,
)
_PHPUNIT_OK_RE: Final = re.compile(r"^OK \((\d+) tests?, \d+ assertions?\)", re.MULTILINE)
_PHPUNIT_RE: Final = re.compile(r"^Tests: (\d+), Assertions: \d+((?:, [A-Za-z ]+: \d+)*)\.", re.M)
_MAVEN_RE: Final = re.compile(
    r"Tests run: (\d+), Failures: (\d+), Errors: (\d+), Skipped: (\d+)", re.MULTILINE
)
_DOTNET_RE: Final = re.compile(
    r"^\s*(?:Passed|Failed)!\s+-\s+Failed:\s+(\d+),\s+Passed:\s+(\d+),\s+Skipped:\s+(\d+)",
    re.MULTILINE,
)
_CTEST_RE: Final = re.compile(r"^\d+% tests passed, (\d+) tests? failed out of (\d+)", re.MULTILINE)
_SUCCESS_RE: Final = re.compile(
    r"^(?:Success: no issues found|All checks passed!|OK\b|test result: ok\."
    r"|[ \t]*0 errors?, \d+ warnings?, \d+ informations?|Found 0 errors)",
    re.MULTILINE,
)

_Summary = tuple[int, CheckCounts]  # (end offset in the scanned tail, counts)


def _tail(text: str, limit: int) -> str:
    tail = text[-limit:] if len(text) > limit else text
    return _ANSI_RE.sub("", tail).replace("\r\n", "\n")


# A literal that every match of a summary pattern contains: a substring search rules most
# patterns out at once, where a pattern anchored at line starts tries every position. Keyed
# by the pattern's text: hashing a compiled pattern hashes its whole program.
_NEEDLES: Final[Mapping[str, str]] = {
    _PYTEST_RE.pattern: "in ",
    _UNITTEST_RE.pattern: "Ran ",
    _JEST_RE.pattern: "Tests:",
    _VITEST_RE.pattern: "Tests",
    _MOCHA_RE.pattern: " passing (",
    _MOCHA_FAILING_RE.pattern: " failing",
    _CARGO_RE.pattern: "test result: ",
    _FOUND_RE.pattern: "Found ",
    _MYPY_SUCCESS_RE.pattern: "Success: no issues found",
    _RUFF_SUCCESS_RE.pattern: "All checks passed!",
    _PYRIGHT_RE.pattern: " warning",
    _ESLINT_RE.pattern: " problem",
    _RSPEC_RE.pattern: " example",
    _PHPUNIT_OK_RE.pattern: "OK (",
    _PHPUNIT_RE.pattern: ", Assertions: ",
    _MAVEN_RE.pattern: "Tests run: ",
    _DOTNET_RE.pattern: "Failed:",
    _CTEST_RE.pattern: "% tests passed, ",
}
# Patterns that match only at a line start and never across a line break: only a line that
# holds the needle can match, so the last match is found from the end, one such line at a
# time, instead of by trying every position of the text.
_ONE_LINE: Final = frozenset(
    {
        _PYTEST_RE.pattern,
        _JEST_RE.pattern,
        _VITEST_RE.pattern,
        _MOCHA_FAILING_RE.pattern,
        _FOUND_RE.pattern,
        _MYPY_SUCCESS_RE.pattern,
        _RUFF_SUCCESS_RE.pattern,
        _PYRIGHT_RE.pattern,
        _ESLINT_RE.pattern,
        _RSPEC_RE.pattern,
        _PHPUNIT_OK_RE.pattern,
        _PHPUNIT_RE.pattern,
        _CTEST_RE.pattern,
    }
)


def _matches(pattern: re.Pattern[str], text: str) -> Iterable[re.Match[str]]:
    """Every match of ``pattern`` in ``text``; none at once when the text lacks its needle."""
    return pattern.finditer(text) if _NEEDLES.get(pattern.pattern, "") in text else ()


def _last(pattern: re.Pattern[str], text: str) -> re.Match[str] | None:
    """The last match of ``pattern`` in ``text``."""
    needle = _NEEDLES.get(pattern.pattern, "")
    if needle not in text:
        return None
    if pattern.pattern in _ONE_LINE:
        end = len(text)
        while (hit := text.rfind(needle, 0, end)) >= 0:
            start = text.rfind("\n", 0, hit) + 1
            match = pattern.match(text, start)
            if match is not None:
                return match
            end = start
        return None
    found: re.Match[str] | None = None
    for match in pattern.finditer(text):
        found = match
    return found


def _words_counts(text: str, extra_failed: Iterable[str] = ()) -> dict[str, int]:
    counts: dict[str, int] = {}
    for number, word in _COUNT_WORD_RE.findall(text):
        key = word.lower()
        counts[key] = counts.get(key, 0) + int(number)
    for key in extra_failed:
        counts.setdefault(key, 0)
    return counts


def _pytest(text: str) -> _Summary | None:
    match = _last(_PYTEST_RE, text)
    if match is None:
        return None
    words = _words_counts(match.group(1))
    return match.end(), CheckCounts(
        passed=words.get("passed", 0) + words.get("xpassed", 0),
        failed=words.get("failed", 0),
        errors=words.get("error", 0) + words.get("errors", 0),
        skipped=words.get("skipped", 0) + words.get("xfailed", 0),
    )


def _unittest(text: str) -> _Summary | None:
    match = _last(_UNITTEST_RE, text)
    if match is None:
        return None
    ran = int(match.group(1))
    details: dict[str, int] = {}
    for part in (match.group(3) or "").split(","):
        key, _, value = part.partition("=")
        if value.strip().isdigit():
            details[key.strip()] = int(value.strip())
    failed = details.get("failures", 0) + details.get("unexpected successes", 0)
    errors = details.get("errors", 0)
    skipped = details.get("skipped", 0) + details.get("expected failures", 0)
    return match.end(), CheckCounts(
        passed=max(ran - failed - errors - skipped, 0),
        failed=failed,
        errors=errors,
        skipped=skipped,
    )


def _jest(text: str) -> _Summary | None:
    found: _Summary | None = None
    jest = _last(_JEST_RE, text)
    if jest is not None:
        words = _words_counts(jest.group(1))
        found = (
            jest.end(),
            CheckCounts(
                passed=words.get("passed", 0),
                failed=words.get("failed", 0),
                skipped=words.get("skipped", 0) + words.get("todo", 0) + words.get("pending", 0),
            ),
        )
    vitest = _last(_VITEST_RE, text)
    if vitest is not None and (found is None or vitest.end() > found[0]):
        words = _words_counts(vitest.group(1))
        found = (
            vitest.end(),
            CheckCounts(
                passed=words.get("passed", 0),
                failed=words.get("failed", 0),
                skipped=words.get("skipped", 0) + words.get("todo", 0),
            ),
        )
    return found


def _mocha(text: str) -> _Summary | None:
    match = _last(_MOCHA_RE, text)
    if match is None:
        failing = _last(_MOCHA_FAILING_RE, text)
        if failing is None:
            return None
        return failing.end(), CheckCounts(failed=int(failing.group(1)))
    return match.end(), CheckCounts(
        passed=int(match.group(1)),
        failed=int(match.group(3) or 0),
        skipped=int(match.group(2) or 0),
    )


def _go(text: str) -> _Summary | None:
    tests = {"--- PASS": 0, "--- FAIL": 0, "--- SKIP": 0}
    packages_ok = packages_failed = 0
    end = -1
    for match in _GO_RE.finditer(text):
        end = match.end()
        if match.group(1):
            tests[match.group(1)] += 1
        elif match.group(2):
            packages_ok += 1
        else:
            packages_failed += 1
    if end < 0:
        return None
    # Without -v only failing tests are listed; the packages then stand for the passes.
    passed = tests["--- PASS"] or packages_ok
    failed = tests["--- FAIL"] or packages_failed
    return end, CheckCounts(passed=passed, failed=failed, skipped=tests["--- SKIP"])


def _cargo(text: str) -> _Summary | None:
    # One run prints a result line per test binary (unit, integration, doc tests): sum them.
    passed = failed = ignored = 0
    end = -1
    for match in _matches(_CARGO_RE, text):
        end = match.end()
        passed += int(match.group(1))
        failed += int(match.group(2))
        ignored += int(match.group(3))
    if end < 0:
        return None
    return end, CheckCounts(passed=passed, failed=failed, skipped=ignored)


def _linters(text: str) -> _Summary | None:
    candidates: list[_Summary] = []
    found = _last(_FOUND_RE, text)
    if found is not None:
        errors = int(found.group(3) if found.group(3) is not None else found.group(1))
        candidates.append((found.end(), CheckCounts(errors=errors)))
    for pattern in (_MYPY_SUCCESS_RE, _RUFF_SUCCESS_RE):
        success = _last(pattern, text)
        if success is not None:
            candidates.append((success.end(), CheckCounts(errors=0)))
    pyright = _last(_PYRIGHT_RE, text)
    if pyright is not None:
        candidates.append((pyright.end(), CheckCounts(errors=int(pyright.group(1)))))
    eslint = _last(_ESLINT_RE, text)
    if eslint is not None:
        candidates.append((eslint.end(), CheckCounts(errors=int(eslint.group(1)))))
    return max(candidates, key=lambda summary: summary[0]) if candidates else None


def _rspec(text: str) -> _Summary | None:
    match = _last(_RSPEC_RE, text)
    if match is None:
        return None
    examples, failures = int(match.group(1)), int(match.group(2))
    pending = int(match.group(3) or 0)
    return match.end(), CheckCounts(
        passed=max(examples - failures - pending, 0),
        failed=failures,
        errors=int(match.group(4) or 0),
        skipped=pending,
    )


def _phpunit(text: str) -> _Summary | None:
    candidates: list[_Summary] = []
    ok = _last(_PHPUNIT_OK_RE, text)
    if ok is not None:
        candidates.append((ok.end(), CheckCounts(passed=int(ok.group(1)), failed=0, errors=0)))
    full = _last(_PHPUNIT_RE, text)
    if full is not None:
        fields: dict[str, int] = {}
        for part in full.group(2).split(","):
            key, _, value = part.partition(":")
            if value.strip().isdigit():
                fields[key.strip().lower()] = int(value.strip())
        failed, errors = fields.get("failures", 0), fields.get("errors", 0)
        skipped = fields.get("skipped", 0) + fields.get("incomplete", 0)
        total = int(full.group(1))
        counts = CheckCounts(
            passed=max(total - failed - errors - skipped, 0),
            failed=failed,
            errors=errors,
            skipped=skipped,
        )
        candidates.append((full.end(), counts))
    return max(candidates, key=lambda summary: summary[0]) if candidates else None


def _maven(text: str) -> _Summary | None:
    match = _last(_MAVEN_RE, text)
    if match is None:
        return None
    run, failures, errors, skipped = (int(group) for group in match.groups())
    return match.end(), CheckCounts(
        passed=max(run - failures - errors - skipped, 0),
        failed=failures,
        errors=errors,
        skipped=skipped,
    )


def _dotnet(text: str) -> _Summary | None:
    match = _last(_DOTNET_RE, text)
    if match is None:
        return None
    failed, passed, skipped = (int(group) for group in match.groups())
    return match.end(), CheckCounts(passed=passed, failed=failed, skipped=skipped)


def _ctest(text: str) -> _Summary | None:
    match = _last(_CTEST_RE, text)
    if match is None:
        return None
    failed, total = int(match.group(1)), int(match.group(2))
    return match.end(), CheckCounts(passed=max(total - failed, 0), failed=failed)


_Parser = Callable[[str], "_Summary | None"]
_PARSERS: Final[tuple[_Parser, ...]] = (
    _pytest,
    _unittest,
    _jest,
    _mocha,
    _go,
    _cargo,
    _linters,
    _rspec,
    _phpunit,
    _maven,
    _dotnet,
    _ctest,
)
# The check name picks the parser to trust first; "npm test", "make test" and friends can run
# anything, so they (and a preferred parser that finds nothing) fall back to all parsers.
_PREFERRED_PARSER: Final[Mapping[str, _Parser]] = {
    "pytest": _pytest,
    "tox": _pytest,
    "nox": _pytest,
    "unittest": _unittest,
    "django test": _unittest,
    "nose2": _unittest,
    "jest": _jest,
    "vitest": _jest,
    "mocha": _mocha,
    "go test": _go,
    "cargo test": _cargo,
    "mypy": _linters,
    "ruff": _linters,
    "tsc": _linters,
    "pyright": _linters,
    "eslint": _linters,
    "rspec": _rspec,
    "phpunit": _phpunit,
    "mvn test": _maven,
    "mvn verify": _maven,
    "dotnet test": _dotnet,
    "ctest": _ctest,
}


def parse_check_output(name: str, output: str) -> CheckCounts | None:
    """Counts from the last summary line in a check's output, or None when there is none.

    Understands pytest, unittest, jest, vitest, mocha, go test, cargo test, mypy, ruff, tsc,
    pyright, eslint, rspec, phpunit, Maven surefire, dotnet test and ctest. Only the last
    ~8 KB of ``output`` are read.
    """
    if not isinstance(output, str) or not output:
        return None
    text = _tail(output, _MAX_SUMMARY_SCAN)
    preferred = _PREFERRED_PARSER.get(name) if isinstance(name, str) else None
    if preferred is not None:
        summary = preferred(text)
        if summary is not None:
            return summary[1]
    best: _Summary | None = None
    for parser in _PARSERS:
        summary = parser(text)
        if summary is not None and (best is None or summary[0] > best[0]):
            best = summary
    return best[1] if best is not None else None


def check_passed(exit_code: int | None, counts: CheckCounts | None, output: str) -> bool | None:
    """Whether a check passed: the exit code decides when known, then the counts, then an
    explicit success summary ("OK", "All checks passed!", ...); None when nothing says.
    """
    if isinstance(exit_code, int) and not isinstance(exit_code, bool):
        return exit_code == 0
    if counts is not None:
        if (counts.failed or 0) > 0 or (counts.errors or 0) > 0:
            return False
        if (counts.passed or 0) > 0:
            return True
    if isinstance(output, str) and _SUCCESS_RE.search(_tail(output, _MAX_SUMMARY_SCAN)):
        return True
    return None


# --------------------------------------------------------------------------------------------
# Exit codes in tool output
# --------------------------------------------------------------------------------------------

_EXIT_SCAN: Final = 2048
_EXIT_LINE_RE: Final = re.compile(
    r"""^[ \t>*\[(\#-]*(?:error:[ \t]*)?
    (?:
        (?:command[ \t]+failed[ \t]+with[ \t]+|process[ \t]+exited[ \t]+with[ \t]+)?
        exit[ \t_]?code
      | (?:[\w./-]+[ \t]+){0,3}exited[ \t]+with[ \t]+(?:exit[ \t]+)?code
    )
    [ \t]*[:=]?[ \t]*(-?\d{1,5})\b""",
    re.IGNORECASE | re.MULTILINE | re.VERBOSE,
)
_METADATA_EXIT_RE: Final = re.compile(r'"metadata"\s*:\s*\{[^{}]*?"exit_code"\s*:\s*(-?\d+)')


def _metadata_exit_code(head: str, tail: str) -> int | None:
    """``{"output": ..., "metadata": {"exit_code": 1}}`` as Codex custom tools report it."""
    if not _JSON_LOOKS_LIKE_OBJECT.match(head):
        return None
    if not tail:
        try:
            decoded = json.loads(head)
        except (ValueError, RecursionError):
            decoded = None
        if isinstance(decoded, dict):
            metadata = decoded.get("metadata")
            code = metadata.get("exit_code") if isinstance(metadata, dict) else None
            return code if isinstance(code, int) and not isinstance(code, bool) else None
    match = _last(_METADATA_EXIT_RE, tail or head)
    return int(match.group(1)) if match is not None else None


def exit_code_from_output(text: str) -> int | None:
    """A process exit code printed in tool output ("Exit code: 2", "Process exited with code
    1", Codex ``metadata.exit_code``...), looking only at the first and last ~2 KB.
    """
    if not isinstance(text, str) or not text:
        return None
    if len(text) <= 2 * _EXIT_SCAN:
        head, tail = text, ""
    else:
        head, tail = text[:_EXIT_SCAN], text[-_EXIT_SCAN:]
    code = _metadata_exit_code(head, tail)
    if code is not None:
        return code
    match = _EXIT_LINE_RE.search(head)
    if match is None and tail:
        match = _last(_EXIT_LINE_RE, tail)
    return int(match.group(1)) if match is not None else None


# --------------------------------------------------------------------------------------------
# User acknowledgements
# --------------------------------------------------------------------------------------------

_MAX_ACK_CHARS: Final = 80
_MAX_ACK_SCAN: Final = 4096  # even padded with blank lines, an acknowledgement is short
_MAX_ACK_WORDS: Final = 6
# Phrases are "|"-separated; a reply is an acknowledgement when it is made only of these.
_ACK_PHRASES: Final = _words(
    "continue|go on|go ahead|yes|y|ya|yeah|yea|yep|yup|ok|okay|okey|k|kk|proceed|lgtm"
    "|sounds good|do it|keep going|next|sure|please|pls|plz|thanks|thank you|thx|ty|cool"
    "|alright|all right|fine|perfect|great|nice|good|agreed|approved|resume|right|correct"
    "|carry on|go for it|looks good|looks good to me|yes please|please continue|makes sense"
    "|all good|that works|let's go|lets go|go|done|ack|roger|absolutely|of course"
    "|please do|continue please|and|then|now|good job|well done|awesome|excellent"
    "|continue where you left off|continue from where you left off"
    "|pick up where you left off",
    "|",
)
_ACK_PHRASE_MAX_WORDS: Final = max(len(phrase.split()) for phrase in _ACK_PHRASES)
_CJK_ACKS: Final = _words(
    "继续 好的 好 是 可以 行 嗯 对 没问题 请继续 是的 对的 好啊 好滴 同意 确认 收到 谢谢 "
    "继续吧 开始 开始吧 执行 可以的 没错 就这样 ok 继续做"
)
_CJK_FILLERS: Final = frozenset("吧啊呀了哈嗯呢的")
_CJK_MAX: Final = max(len(phrase) for phrase in _CJK_ACKS)
_CJK_RE: Final = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff\uac00-\ud7af]")
# Letters, digits, apostrophes and CJK survive; punctuation, emoji and symbols become spaces.
_NON_WORD_RE: Final = re.compile(r"[^\w']+|_+")


def _cjk_acknowledged(token: str) -> bool:
    i = 0
    while i < len(token):
        for size in range(min(_CJK_MAX, len(token) - i), 0, -1):
            if token[i : i + size] in _CJK_ACKS:
                i += size
                break
        else:
            if token[i] not in _CJK_FILLERS:
                return False
            i += 1
    return True


def is_acknowledgement(text: str) -> bool:
    """Whether a user reply just says "carry on" ("continue", "yes!", "ok, go ahead", "继续").

    Tolerates case, punctuation, emoji and whitespace; a reply longer than a few words, or with
    any word that is not part of an acknowledgement ("yes, but use postgres"), is not one.
    A reply made only of punctuation or emoji (a thumbs-up) is one.
    """
    if not isinstance(text, str) or len(text) > _MAX_ACK_SCAN:
        return False
    stripped = text.strip()
    if not stripped or len(stripped) > _MAX_ACK_CHARS:
        return False
    spaced = _NON_WORD_RE.sub(" ", stripped.lower().replace("\u2019", "'"))
    words = [word for word in (raw.strip("'") for raw in spaced.split()) if word]
    if not words:
        return True
    if len(words) > _MAX_ACK_WORDS:
        return False
    i = 0
    while i < len(words):
        word = words[i]
        if _CJK_RE.search(word):
            if not _cjk_acknowledged(word):
                return False
            i += 1
            continue
        for size in range(min(_ACK_PHRASE_MAX_WORDS, len(words) - i), 0, -1):
            if " ".join(words[i : i + size]) in _ACK_PHRASES:
                i += size
                break
        else:
            return False
    return True


# --------------------------------------------------------------------------------------------
# Text helpers
# --------------------------------------------------------------------------------------------

_NON_BLANK_RE: Final = re.compile(r"\S")
_LINE_BREAK_RE: Final = re.compile(r"[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]")
# Blanks up to the end of a line: whether a line cut at the look-ahead window really ends there.
_BLANK_TO_EOL_RE: Final = re.compile(
    r"[^\S\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]*(?:[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]|\Z)"
)
_ELLIPSIS: Final = "\u2026"


def first_line(text: str, max_chars: int = 200) -> str:
    """The first non-blank line of ``text``, stripped, at most ``max_chars`` characters long
    (a longer line is cut and ends with "…"). Empty when there is none.
    """
    if not isinstance(text, str) or max_chars <= 0:
        return ""
    found = _NON_BLANK_RE.search(text)
    if found is None:
        return ""
    start = found.start()
    # Look only a little past the cap: a line of megabytes needs no more than its start.
    stop = start + max_chars + 1
    window = text[start:stop]
    end = _LINE_BREAK_RE.search(window)
    if end is not None:
        line = window[: end.start()].rstrip()
    else:
        line = window.rstrip()
        if stop < len(text) and not _BLANK_TO_EOL_RE.match(text, stop):
            # The line goes on past the window, so it is longer than max_chars: cut it.
            line = window + "\u2026"
    if len(line) <= max_chars:
        return line
    return line[: max_chars - 1].rstrip() + _ELLIPSIS


_FAILURE_PREFIXES: Final = (
    "<tool_use_error>",
    "Error:",
    "ERROR:",
    "InputValidationError:",
    "User rejected tool use",
    "The user doesn't want to proceed with this tool use",
    "The user doesn\u2019t want to proceed with this tool use",
    "write_stdin failed:",
    "apply_patch verification failed",
)
_FAILURE_EXACT: Final = frozenset({"aborted", "Sibling tool call errored"})


def is_failure_text(text: str) -> bool:
    """Whether a completed tool result is really an error reported as text.

    Conservative: only the markers agents use for it (``<tool_use_error>``, a leading
    "Error:", a rejected tool use, Codex "aborted" and "write_stdin failed:").
    """
    if not isinstance(text, str):
        return False
    head = text[:512].lstrip()
    return head.startswith(_FAILURE_PREFIXES) or head.rstrip() in _FAILURE_EXACT
