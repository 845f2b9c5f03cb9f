"""Tool kinds and key arguments: what kind a tool is and the one argument that says what a call did.

Total (any JSON value in, never an exception out), deterministic and free of I/O.
"""

from __future__ import annotations

import functools
import re
import shlex
from collections.abc import Callable, Iterable, Mapping
from enum import StrEnum
from typing import Final

from deriver.shell import SHELL_C_FLAGS, SHELLS, basename
from deriver.user_text import first_line, word_set

__all__ = [
    "LOOKING_KINDS",
    "ToolKind",
    "classify_tool",
    "classify_tool_uncached",
    "edited_paths",
    "is_side_effecting",
    "key_argument",
]


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
    MESSAGE = "message"  # a message to another agent of the session's team
    WEB = "web"
    OTHER = "other"


def _kinds(kind: ToolKind, names: str) -> dict[str, ToolKind]:
    return dict.fromkeys(word_set(names), kind)


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
        "exec_command shell_command write_stdin local_shell unified_exec run_command "
        "run_shell_command execute_command run_terminal_cmd run_terminal_command terminal "
        "exec execute sh powershell",
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
    "sendmessage": ToolKind.MESSAGE,  # Claude Code's agent teams
}

# Namespaces some providers put in front of a function name ("functions.shell").
_NAME_PREFIXES: Final = ("functions.", "tools.")

_PATCH_TOOLS: Final = frozenset({"apply_patch", "patch", "apply_diff"})
_SIDE_EFFECTING: Final = frozenset(
    {ToolKind.EDIT, ToolKind.SHELL, ToolKind.TASK, ToolKind.MESSAGE, ToolKind.OTHER}
)


def classify_tool(name: str) -> ToolKind:
    """Return the kind of the tool called ``name`` (case- and ``-``/``_``-insensitive).

    MCP tools (``mcp__server__tool``) and unknown names are ``OTHER``.
    """
    return _classify(name) if isinstance(name, str) else ToolKind.OTHER


def classify_tool_uncached(name: str) -> ToolKind:
    """:func:`classify_tool` without its memo: what tests compare the memo against."""
    return _kind_of(name) if isinstance(name, str) else ToolKind.OTHER


def _kind_of(name: str) -> ToolKind:
    key = _normalise(name)
    if key.startswith("mcp__"):
        return ToolKind.OTHER
    return _TOOL_KINDS.get(key, ToolKind.OTHER)


# Memoised (measured: ~10x faster per call; a session uses a handful of tool names, each
# looked up several times on every call).
_classify = functools.lru_cache(maxsize=1024)(_kind_of)


def _normalise(name: str) -> str:
    key = name.strip().lower().replace("-", "_").replace(" ", "_")
    for prefix in _NAME_PREFIXES:
        if key.startswith(prefix):
            key = key[len(prefix) :]
    return key


LOOKING_KINDS: Final = frozenset({ToolKind.READ, ToolKind.SEARCH, ToolKind.LIST})
"""The kinds of call that only look: a read, a search, a listing."""


def is_side_effecting(kind: ToolKind) -> bool:
    """Whether a call of this kind may have changed the world, so is not safe to replay.

    ``OTHER`` is unknown, hence treated as side-effecting.
    """
    return kind in _SIDE_EFFECTING


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
# Built once: a tuple display with a starred name in it is built again on every call.
_SHELL_ID_KEYS: Final = ("chars", *_ID_KEYS)
_SEARCH_KEYS: Final = (*_PATTERN_KEYS, *_PATH_KEYS, "dir_path", "directory")


# No "^": a pattern that starts with a literal is searched for quickly; line starts are
# checked by hand (see _patch_paths).
_PATCH_FILE_RE: Final = re.compile(
    r"\*\*\* (?:(?:Update|Add|Delete) File|Move to):[ \t]*(.+?)[ \t]*$", re.MULTILINE
)


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
        if len(parts) >= 3 and basename(parts[0]) in SHELLS and parts[1].lower() in SHELL_C_FLAGS:
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


def _is_patch_tool(tool_name: str) -> bool:
    return isinstance(tool_name, str) and _patch_tool(tool_name)


def _is_patch_name(name: str) -> bool:
    return _normalise(name) in _PATCH_TOOLS


_patch_tool = functools.lru_cache(maxsize=1024)(_is_patch_name)  # memoised like _classify


def key_argument(tool_name: str, args: object) -> str | None:
    """The one argument that says what a call did: a path, a command, a pattern, a url...

    ``args`` may be any JSON value; a string is the argument itself (the adapters decode
    the arguments their formats encode as JSON strings). For ``apply_patch`` it is the
    files named in the patch, joined with ", ". Returns None when nothing fits.
    """
    if _is_patch_tool(tool_name):
        patch = _patch_text(args)
        if patch is not None:
            paths = _patch_paths(patch)
            if paths:
                return ", ".join(paths)
    kind = classify_tool(tool_name)
    if isinstance(args, str):
        return _text(args)  # a bare string argument is the command, path or query itself
    if not isinstance(args, dict):
        return None
    return _KEY_ARGUMENT.get(kind, _generic_key)(args)


def _shell_key(args: Mapping[object, object]) -> str | None:
    for key in _COMMAND_KEYS:
        command = _command_text(args.get(key))
        if command is not None:
            return command
    return _first_of(args, _SHELL_ID_KEYS)


def _search_key(args: Mapping[object, object]) -> str | None:
    return _first_of(args, _SEARCH_KEYS)


def _path_key(args: Mapping[object, object]) -> str | None:
    return _first_of(args, _PATH_KEYS)


def _web_key(args: Mapping[object, object]) -> str | None:
    return _first_of(args, _WEB_KEYS)


def _task_key(args: Mapping[object, object]) -> str | None:
    found = _first_of(args, _TASK_KEYS)
    return first_line(found) if found is not None else None


def _todo_key(args: Mapping[object, object]) -> str | None:
    return _first_of(args, _TODO_KEYS)


def _plan_key(args: Mapping[object, object]) -> str | None:
    plan = _text(args.get("plan"))
    return first_line(plan) if plan is not None else None


def _generic_key(args: Mapping[object, object]) -> str | None:
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


_KEY_ARGUMENT: Final[Mapping[ToolKind, Callable[[Mapping[object, object]], str | None]]] = {
    ToolKind.SHELL: _shell_key,
    ToolKind.SEARCH: _search_key,
    ToolKind.LIST: _search_key,
    ToolKind.READ: _path_key,
    ToolKind.EDIT: _path_key,
    ToolKind.WEB: _web_key,
    ToolKind.TASK: _task_key,
    ToolKind.TODO: _todo_key,
    ToolKind.PLAN_EXIT: _plan_key,
    ToolKind.QUESTION: _question_text,
}


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
