"""The typed outcome of a finished tool call, and how a native transcript writes one.

The fold knows a finished call only as a :class:`ToolOutcome`. The Claude Code and Codex
adapters translate their formats' results (``is_error``, ``<tool_use_error>``, rejections,
``metadata.exit_code``, ``aborted``...) into the native ``tool_lifecycle`` payload they emit;
:func:`tool_outcome` is the one place that reads such a payload, so it is where the shapes
MyCodeAgent writes are understood.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final, Literal

__all__ = ["OutcomeStatus", "ToolOutcome", "is_failure_text", "payload_text", "tool_outcome"]

OutcomeStatus = Literal["completed", "failed", "rejected", "interrupted", "errored"]
"""``failed``: the transcript says the call failed. ``rejected``, ``interrupted`` and
``errored``: the call was reported as completed, but its result says the user rejected it,
it was interrupted, or it is an error report."""


@dataclass(frozen=True, slots=True)
class ToolOutcome:
    """How a tool call ended: its status, exit code when known, output and error text."""

    status: OutcomeStatus
    exit_code: int | None
    output: str
    error: str


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
_REJECTION_PREFIXES: Final = _FAILURE_PREFIXES[4:7]
_FAILURE_EXACT: Final = frozenset({"aborted", "Sibling tool call errored"})


def payload_text(value: object) -> str:
    """A text field of a payload: strings as they are, content parts joined, else empty."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        parts = []
        for part in value:
            if isinstance(part, str):
                parts.append(part)
            elif isinstance(part, dict) and isinstance(part.get("text"), str):
                parts.append(part["text"])
        return "\n".join(parts)
    return ""


def is_failure_text(text: str) -> bool:
    """Whether a completed tool result is really an error reported as text.

    Conservative: only the markers agents use for it (``<tool_use_error>``, a leading
    "Error:", a rejected tool use, Codex "aborted" and "write_stdin failed:").
    """
    if not isinstance(text, str):
        return False
    head = text[:512].lstrip()
    return head.startswith(_FAILURE_PREFIXES) or head.rstrip() in _FAILURE_EXACT


def _completed_status(result: str) -> OutcomeStatus:
    if not is_failure_text(result):
        return "completed"
    head = result[:512].lstrip()
    if head.startswith(_REJECTION_PREFIXES):
        return "rejected"
    return "interrupted" if head.rstrip() == "aborted" else "errored"


def tool_outcome(payload: Mapping[str, object]) -> ToolOutcome | None:
    """The outcome a native ``tool_lifecycle`` payload reports; None unless it finished.

    ``exit_code`` is taken only when it is an integer; a failed call's error text is its
    ``error``, else its ``result``, else "failed".
    """
    status = payload.get("status")
    if status != "completed" and status != "failed":
        return None
    exit_code = payload.get("exit_code")
    code = exit_code if type(exit_code) is int else None
    result = payload_text(payload.get("result"))
    if status == "failed":
        error = payload_text(payload.get("error")) or result or "failed"
        return ToolOutcome("failed", code, result, error)
    return ToolOutcome(_completed_status(result), code, result, "")
