"""Claude Code tool results: whether a call failed, and the text and exit code it reports.

A ``tool_result`` block says a call failed with ``is_error``, or its record's
``toolUseResult`` string does; a failed Bash call's "Exit code N" header is its exit code.
A call the user rejected is marked failed too, but it did not fail: it is ``rejected``, with
what the user said when they rejected it ("To tell you how to proceed, the user said: ...").
A result reported as completed may still say the call did not succeed
(:data:`RESULT_MARKERS`). AskUserQuestion's and ExitPlanMode's structured results say more
than their text: the answers, the plan.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Final

from session_memory.core.events import JsonObject
from session_memory.core.outcome import ToolOutcome
from session_memory.formats.base import as_dict, as_str, cap_text, join_texts
from session_memory.formats.outcomes import ResultMarkers

__all__ = [
    "RESULT_MARKERS",
    "Ending",
    "block_texts",
    "ending",
    "is_failed",
    "rejection",
    "result_text",
]

_REJECTED: Final = "User rejected tool use"
_REJECTION_TEXT: Final = "The user doesn't want to proceed with this tool use"
_REJECTIONS: Final = (
    _REJECTION_TEXT,
    _REJECTION_TEXT.replace("'", "\u2019"),
    "Permission for this tool use was denied",
)
"""How a rejected call's result starts: the user's answer, or a sub-agent's denied
permission."""
_USER_SAID: Final = "the user said:"
_REJECTION_NOTE: Final = "\n\nNote: The user's next message may contain"
"""The fixed note Claude Code appends to a rejection, after what the user said."""
_SIBLING_ERRORED: Final = "Sibling tool call errored"
_ERROR_RESULT_PREFIXES: Final = ("Error:", "InputValidationError", _REJECTED, _SIBLING_ERRORED)
"""How a ``toolUseResult`` string says the call failed."""
RESULT_MARKERS: Final = ResultMarkers(
    rejected=(_REJECTED, *_REJECTIONS),
    errored=("<tool_use_error>", "InputValidationError:"),
    interrupted=frozenset({_SIBLING_ERRORED}),
    stale=(
        "File has not been read yet",
        "File has been modified since read",
        "String to replace not found",
        "matches of the string to replace",
    ),
)
"""How a result Claude Code reports as completed says the call did not succeed."""
_PERSISTED: Final = "<persisted-output>"
"""How a tool result too large for the model starts: a preview, the whole output saved."""
_TOOL_ERROR_TAGS: Final = re.compile(r"</?tool_use_error>")
_EXIT_CODE: Final = re.compile(r"\bExit code (-?\d+)")
_EXIT_HEADER: Final = re.compile(r"\A(?:Error: )?Exit code -?\d+[ \t]*(?:\n|\Z)")


def is_failed(block: JsonObject, structured: object) -> bool:
    """Whether a ``tool_result`` block (with its record's ``toolUseResult``) says it failed.

    A sub-agent that ended with no tokens (``totalTokens: 0``) did not do what it was sent
    to: its last turn was the model's error ("You've hit your limit"), whatever it ran before.
    """
    if block.get("is_error") is True:
        return True
    if isinstance(structured, dict):
        return "agentId" in structured and structured.get("totalTokens") == 0
    return isinstance(structured, str) and structured.startswith(_ERROR_RESULT_PREFIXES)


@dataclass(frozen=True, slots=True)
class Ending:
    """What a result says of its call: text and exit code, or the whole outcome when the
    result says more than failed or completed; ``extra`` payload fields (the plan)."""

    text: str
    exit_code: int | None = None
    outcome: ToolOutcome | None = None
    extra: JsonObject = field(default_factory=dict)


def ending(name: str | None, text: str, structured: object, *, failed: bool) -> Ending:
    """How a call ended, from its result's text and its record's ``toolUseResult``."""
    rejected = rejection(text, structured)
    if rejected is not None:
        said = rejected.removeprefix(_REJECTED).removeprefix(": ")  # the user's own words
        return Ending(rejected, outcome=ToolOutcome("rejected", None, said, rejected))
    if _TOOL_ERROR_TAGS.sub("", text).strip() in RESULT_MARKERS.interrupted:
        # Not run: Claude Code cancels the calls of a turn beside one that failed.
        return Ending(text, outcome=ToolOutcome("interrupted", None, text, ""))
    if failed:
        return Ending(*_failed_result(name, text, structured))
    extra: JsonObject = {}
    text, exit_code = _completed_result(name, text, structured, extra)
    return Ending(text, exit_code, extra=extra)


def rejection(text: str, structured: object) -> str | None:
    """A rejected call's result in words: "User rejected tool use", then what the user said
    when they rejected it; None when the call was not rejected."""
    stated = structured if isinstance(structured, str) else ""
    sources = [
        s for s in (text, stated.removeprefix("Error: ")) if s.startswith((_REJECTED, *_REJECTIONS))
    ]
    if not sources:
        return None
    for source in sources:
        said_at = source.find(_USER_SAID)
        if said_at >= 0:
            words = source[said_at + len(_USER_SAID) :].split(_REJECTION_NOTE, 1)[0].strip()
            if words:
                return f"{_REJECTED}: {words}"
    return _REJECTED


def _failed_result(name: str | None, text: str, structured: object) -> tuple[str, int | None]:
    """A failed call's error text and Bash's exit code."""
    if text.startswith(_PERSISTED) and isinstance(structured, str):
        text = structured  # the model saw a preview; the transcript keeps the whole text
    text = _TOOL_ERROR_TAGS.sub("", text).strip() or (as_str(structured) or "error").strip()
    if name == "Bash" and (m := _EXIT_CODE.search(text[:200])):
        # The exit code is typed now: the error text starts with what the command said.
        body = _EXIT_HEADER.sub("", text, count=1).strip()
        return body or text, int(m.group(1))
    return text, None


def _completed_result(
    name: str | None, text: str, structured: object, extra: JsonObject
) -> tuple[str, int | None]:
    """A completed call's result text, from its structured result where that says more."""
    details = as_dict(structured)
    if details is None:
        return text, None
    if name == "Bash":
        if text.startswith(_PERSISTED):
            # Output too large for the model: the record still holds all of it, and the
            # runner's summary is at its end.
            streams = (as_str(details.get("stdout")), as_str(details.get("stderr")))
            text = "\n".join(p for p in streams if p) or text
        return text, (0 if details.get("interrupted") is not True else None)
    if name == "AskUserQuestion":
        return _answers(details) or text, None
    if name == "ExitPlanMode":
        plan = as_str(details.get("plan"))
        where = as_str(details.get("filePath"))
        if plan:
            extra["args"] = {"plan": cap_text(plan)}
            return plan, None
        if where:
            return f"plan saved at {where}\n{text}", None
    return text, None


def _answers(details: JsonObject) -> str:
    """AskUserQuestion answers: a one-line digest by question header, then each in full."""
    answers = as_dict(details.get("answers"))
    if not answers:
        return ""
    headers: dict[str, str] = {}
    questions = details.get("questions")
    for q in questions if isinstance(questions, list) else ():
        if isinstance(q, dict) and (question := as_str(q.get("question"))):
            headers[question] = as_str(q.get("header")) or question
    digest = "; ".join(f"{headers.get(q, q)}: {a}" for q, a in answers.items())
    return digest + "\n" + "\n".join(f"{q} = {a}" for q, a in answers.items())


def block_texts(blocks: list[Any]) -> str:
    """The text blocks of a message's content, joined."""
    return join_texts(
        t
        for b in blocks
        if isinstance(b, dict) and b.get("type") == "text" and (t := as_str(b.get("text")))
    )


def result_text(content: object) -> str:
    """A ``tool_result`` block's content as text."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return block_texts(content)
    return ""
