"""Codex Desktop's code-mode cells: the calls a cell makes, and which output belongs to which.

A ``custom_tool_call`` named ``exec`` runs a script (:mod:`~session_memory.formats.
codex_script` reads its tool calls). Its output opens with a header, "Script completed",
"Script failed" (then "Script error: ..."), or "Script running with cell ID N" (a later
``wait`` call with ``{"cell_id": "N"}`` delivers the rest), then "Output:" and one text item
per ``text(...)`` the script called. The script decides what it prints: a command's output
(``text(r.output)``), its whole result object (``text(JSON.stringify(r))``, with
``exit_code``, ``output``, and ``session_id`` while the process runs on), or anything else.
:func:`shell_results` gives each command the part of the output that is its own where the
output says so, and the whole output where it does not.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final, Literal, NamedTuple, TypedDict

import orjson

from session_memory.core.events import JsonObject
from session_memory.formats.base import as_dict, as_int, as_str, cap_text
from session_memory.formats.codex_calls import patch_arguments
from session_memory.formats.codex_script import ScriptCall

__all__ = [
    "CELL_TOOL",
    "Cell",
    "CellOutput",
    "ShellResult",
    "cell_output",
    "native_call",
    "shell_results",
]

CELL_TOOL: Final = "exec"
"""The ``custom_tool_call`` that runs a code-mode cell."""
MAX_ITEMS: Final = 64
"""Output items kept per running cell; later ones are dropped."""
_HEADER: Final = re.compile(r"\AScript (completed|failed|running with cell ID (\S+))")
_OUTPUT_MARK: Final = "Output:\n"
_ERROR_MARK: Final = re.compile(r"\AScript error:\s*")
_RESULT_FIELDS: Final = frozenset({"exit_code", "session_id", "chunk_id", "wall_time_seconds"})
"""Fields of a unified-exec result object, beside its ``output``."""
_ARGUMENT_TOOLS: Final = {"exec_command": "cmd", "write_stdin": "session_id", "apply_patch": ""}
"""Tools a call of which says nothing without its argument: the key that must be read."""


class Cell(TypedDict):
    """A cell waiting for its output: the calls its script makes and what it printed so far."""

    calls: list[list[str]]
    """Per call, in script order: [role, call id]. ``shell``: a command whose output is a
    result object; ``poll``: a ``write_stdin`` of a running command (the id is that
    command's); ``call``: any other tool."""
    items: list[str]


class CellOutput(NamedTuple):
    """What one delivery of a cell's output says."""

    state: Literal["completed", "failed", "running"]
    cell_id: str | None
    """The id a ``wait`` names to get the rest of a running cell's output."""
    items: tuple[str, ...]


class ShellResult(NamedTuple):
    """The part of a cell's output that is one command's."""

    text: str
    exit_code: int | None
    session: str | None
    """The process's session while it runs on (its result said so)."""


def native_call(call: ScriptCall) -> tuple[str, JsonObject] | None:
    """A script's tool call as the call it makes (name and arguments, as a direct call of
    that tool has them); None when its argument, which says what it does, is not readable."""
    name, argument = call.name, call.argument
    key = _ARGUMENT_TOOLS.get(name)
    if isinstance(argument, str) and argument.startswith("${") and key is not None:
        return None  # a name bound where this reader cannot see: the call is unknown
    if name == "apply_patch":
        found = as_dict(argument) or {}
        patch = argument if isinstance(argument, str) else as_str(found.get("input"))
        return (name, patch_arguments(patch)) if patch else None
    if isinstance(argument, dict):
        if key and key not in argument:
            return None
        return name, argument
    if isinstance(argument, str):
        return name, {key or "input": cap_text(argument)}
    return None if key else (name, {})


def cell_output(output: object) -> CellOutput:
    """One delivery of a cell's output: a list of text items (or one string) under a header."""
    texts = _texts(output)
    head = texts[0] if texts else ""
    header = _HEADER.match(head)
    if header is None:
        return CellOutput("completed", None, tuple(t for t in texts if t))
    _, _, rest = head.partition(_OUTPUT_MARK)
    # An empty item is a text() that printed nothing (a quiet command's output): it counts.
    items = (rest, *texts[1:]) if rest else tuple(texts[1:])
    if header.group(1) == "completed":
        return CellOutput("completed", None, items)
    if header.group(1) == "failed":
        return CellOutput("failed", None, items)
    return CellOutput("running", header.group(2), items)


def script_error(items: Sequence[str]) -> str:
    """A failed script's error, without its "Script error:" label."""
    return _ERROR_MARK.sub("", "\n".join(items).strip(), count=1) or "script failed"


def shell_results(count: int, items: Sequence[str]) -> list[ShellResult]:
    """The results of ``count`` commands whose cell printed ``items``.

    When the cell printed one item per command, each command has its own, in the order the
    script calls them (``Promise.all`` keeps that order): its result object, or its output
    (``results.forEach((r) => text(r.output))``, an empty one included), with no exit code
    unless the script printed it by name beside the output (:func:`_fields_after`); a cell
    may print some whole and others' output only (``text(a.output);
    text(JSON.stringify(b))``).
    Else one command has the whole output (read as its result object when it is one), and
    several share it: each gets all of it, with no exit code, since the output does not say
    which part is whose.
    """
    if count == 0:
        return []
    if len(items) == count:
        return [_result_object(item) or _fields_after(item) for item in items]
    whole = "\n".join(item for item in items if item)
    if count == 1:
        return [_result_object(whole) or _fields_after(whole)]
    return [ShellResult(whole, None, None)] * count


# A field of the result the script printed by name on a line after the output ("exit=0",
# "SESSION_ID=54507", "exit_code: 1"): the command's exit code or its running session.
_FIELD_LINE: Final = re.compile(
    r"\A\s*(?:(exit(?:[_ ]?code)?)|session[_ ]?id)\s*[=:]\s*(\S+)\s*\Z", re.IGNORECASE
)
# A label the script printed before the output, with its exit code ("staged-check(exit 0):").
_EXIT_LABEL: Final = re.compile(
    r"\A[\w .:/-]{0,40}?\(?\bexit(?:[_ ]?code)?\s*[=: ]\s*(-?\d+|undefined|null)\)?\s*:?\s*\Z",
    re.IGNORECASE,
)


def _fields_after(text: str) -> ShellResult:
    """A command's output, and its exit code and session when the script printed them by
    name beside it (``text(r.output); text(`exit=${r.exit_code}`)``, or a label line before
    it: ``text("check(exit " + r.exit_code + "):\\n" + r.output)``)."""
    lines = text.split("\n")
    exit_code = session = None
    while lines and (found := _FIELD_LINE.match(lines[-1])) is not None:
        lines.pop()
        if found.group(1):
            exit_code = _exit(found.group(2))
        elif found.group(2).isdigit():
            session = found.group(2)
    if exit_code is None and lines and (label := _EXIT_LABEL.match(lines[0])) is not None:
        exit_code = _exit(label.group(1))
        lines = lines[1:]
    return ShellResult("\n".join(lines), exit_code, session)


def _exit(value: str) -> int | None:
    return int(value) if value.lstrip("-").isdigit() else None


def _texts(output: object) -> list[str]:
    if isinstance(output, str):
        return [output]
    if not isinstance(output, list):
        return []
    return [t for item in output if (t := as_str((as_dict(item) or {}).get("text"))) is not None]


def _result_object(text: str) -> ShellResult | None:
    """A unified-exec result object printed whole: its output, exit code and session."""
    stripped = text.strip()
    if not stripped.startswith("{"):
        return None
    try:
        value = orjson.loads(stripped)
    except orjson.JSONDecodeError:
        return None
    fields = as_dict(value)
    if (
        fields is None
        or not isinstance(fields.get("output"), str)
        or not (_RESULT_FIELDS & fields.keys())
    ):
        return None
    session = fields.get("session_id")
    running = (
        str(session) if isinstance(session, (int, str)) and not isinstance(session, bool) else None
    )
    return ShellResult(fields["output"], as_int(fields.get("exit_code")), running)
