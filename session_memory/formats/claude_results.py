"""Claude Code tool results: whether a call failed, and the text and exit code it reports.

A ``tool_result`` block says a call failed with ``is_error``, or its record's
``toolUseResult`` string does; a rejection by the user says so plainly; a failed Bash
call's "Exit code N" header is its exit code. A result reported as completed may still say
the call did not succeed (:data:`RESULT_MARKERS`). AskUserQuestion's and ExitPlanMode's
structured results say more than their text: the answers, the plan.
"""

from __future__ import annotations

import re
from typing import Any, Final

from session_memory.core.events import JsonObject
from session_memory.formats.base import as_dict, as_str, cap_text, join_texts
from session_memory.formats.outcomes import ResultMarkers

__all__ = [
    "RESULT_MARKERS",
    "block_texts",
    "completed_result",
    "failed_result",
    "is_failed",
    "result_text",
]

_REJECTED: Final = "User rejected tool use"
_REJECTION_TEXT: Final = "The user doesn't want to proceed with this tool use"
_SIBLING_ERRORED: Final = "Sibling tool call errored"
_ERROR_RESULT_PREFIXES: Final = ("Error:", "InputValidationError", _REJECTED, _SIBLING_ERRORED)
"""How a ``toolUseResult`` string says the call failed."""
RESULT_MARKERS: Final = ResultMarkers(
    rejected=(_REJECTED, _REJECTION_TEXT, _REJECTION_TEXT.replace("'", "\u2019")),
    errored=("<tool_use_error>", "InputValidationError:"),
    errored_whole=frozenset({_SIBLING_ERRORED}),
)
"""How a result Claude Code reports as completed says the call did not succeed."""
_PERSISTED: Final = "<persisted-output>"
"""How a tool result too large for the model starts: a preview, the whole output saved."""
_TOOL_ERROR_TAGS: Final = re.compile(r"</?tool_use_error>")
_EXIT_CODE: Final = re.compile(r"\bExit code (-?\d+)")
_EXIT_HEADER: Final = re.compile(r"\A(?:Error: )?Exit code -?\d+[ \t]*(?:\n|\Z)")


def is_failed(block: JsonObject, structured: object) -> bool:
    """Whether a ``tool_result`` block (with its record's ``toolUseResult``) says it failed."""
    return block.get("is_error") is True or (
        isinstance(structured, str) and structured.startswith(_ERROR_RESULT_PREFIXES)
    )


def failed_result(name: str | None, text: str, structured: object) -> tuple[str, int | None]:
    """A failed call's error text (a rejection says so plainly) and Bash's exit code."""
    if (
        structured == _REJECTED
        or text.startswith(_REJECTION_TEXT)
        or (isinstance(structured, str) and _REJECTION_TEXT in structured)
    ):
        return _REJECTED, None
    if text.startswith(_PERSISTED) and isinstance(structured, str):
        text = structured  # the model saw a preview; the transcript keeps the whole text
    text = _TOOL_ERROR_TAGS.sub("", text).strip() or (as_str(structured) or "error").strip()
    if name == "Bash" and (m := _EXIT_CODE.search(text[:200])):
        # The exit code is typed now: the error text starts with what the command said.
        body = _EXIT_HEADER.sub("", text, count=1).strip()
        return body or text, int(m.group(1))
    return text, None


def completed_result(
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
