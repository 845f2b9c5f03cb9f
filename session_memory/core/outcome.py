"""The typed outcome of a finished tool call, and how a native ``tool_lifecycle`` payload states it.

The fold knows a finished call only as a :class:`ToolOutcome`. A payload states it in one of
two ways (``docs/formats.md`` has the fields):

* ``outcome``, the typed outcome itself (:func:`outcome_payload` writes it). The format
  adapters write this one: each decides from its own format how a call ended.
* ``result``, as MyCodeAgent writes it (its envelope) or as other agents do (plain objects,
  strings), with a top-level ``exit_code`` and ``error`` from older writers.

:func:`tool_outcome` is the one reader of both.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final, Literal, cast, get_args

import msgspec

__all__ = [
    "ELIDED",
    "OutcomeStatus",
    "ToolOutcome",
    "outcome_payload",
    "payload_text",
    "reports_error",
    "tool_outcome",
]

ELIDED: Final = " characters elided ...]"
"""How an output cut to its head and tail says where its middle was ("[... 35000 characters
elided ...]"): counts summed over what is left are not the whole run's."""

OutcomeStatus = Literal["completed", "failed", "rejected", "interrupted", "errored", "stale"]
"""``failed``: the transcript says the call failed. ``rejected``, ``interrupted`` and
``errored``: the call was reported as completed, but its result says the user rejected it,
it was interrupted, or it is an error report. ``stale``: an edit that did not apply because
the file was not as the agent last saw it (not read yet, changed since, the text to replace
not found): an edit of the file that works makes it good. A rejected call's ``error`` says
so; its ``output`` is what the user said when rejecting it, when the client records it."""


@dataclass(frozen=True, slots=True)
class ToolOutcome:
    """How a tool call ended: its status, exit code when known, output and error text."""

    status: OutcomeStatus
    exit_code: int | None
    output: str
    error: str


_STATUSES: Final = frozenset(get_args(OutcomeStatus))
_ERROR_PREFIXES: Final = ("Error:", "ERROR:")


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


def reports_error(text: str) -> bool:
    """Whether a result's text opens as an error report does: a leading "Error:" or "ERROR:".

    The one convention every writer shares; what else marks an error report is a format's
    own vocabulary, which its adapter knows.
    """
    return text[:512].lstrip().startswith(_ERROR_PREFIXES)


def outcome_payload(outcome: ToolOutcome) -> dict[str, object]:
    """The ``outcome`` field of a native ``tool_lifecycle`` payload that states ``outcome``."""
    return {
        "status": outcome.status,
        "exit_code": outcome.exit_code,
        "output": outcome.output,
        "error": outcome.error,
    }


def _stated(value: object) -> ToolOutcome | None:
    """The outcome an ``outcome`` field states; None unless it is an object with a status."""
    if not isinstance(value, dict):
        return None
    status = value.get("status")
    if not isinstance(status, str) or status not in _STATUSES:
        return None
    output, error = value.get("output"), value.get("error")
    return ToolOutcome(
        cast("OutcomeStatus", status),
        _int(value.get("exit_code")),
        output if isinstance(output, str) else "",
        error if isinstance(error, str) else "",
    )


_ENVELOPE_STATUSES: Final = frozenset({"success", "partial", "error"})
_EXIT_FIELDS: Final = ("exit_code", "returncode", "exitCode")
_DENIAL_MARKERS: Final = ("DENIED", "REJECT")
_UNKNOWN_SHAPE_CHARS: Final = 64 * 1024


class _Result(msgspec.Struct, frozen=True, gc=False):
    """What a ``result`` field says: its text, exit code and error text when it has them.

    A struct: one is made per finished tool call, six times as fast as a named tuple; it
    serves the fold's speed target (benchmarks/bench_apply.py, issue 35's 1.1x of 2836343)."""

    output: str
    exit_code: int | None
    error: str
    denied: bool


def _int(value: object) -> int | None:
    return value if type(value) is int else None


def _exit_code(fields: Mapping[str, object]) -> int | None:
    for name in _EXIT_FIELDS:
        code = fields.get(name)
        if type(code) is int:
            return code
    return None


def _streams(fields: Mapping[str, object]) -> str | None:
    """``stdout`` then ``stderr`` joined, or None when the object has neither."""
    if "stdout" not in fields and "stderr" not in fields:
        return None
    out, err = payload_text(fields.get("stdout")), payload_text(fields.get("stderr"))
    return f"{out}\n{err}" if out and err else out or err


def _as_json(value: object) -> str:
    """An object of an unknown shape as compact JSON text, so that it is never lost."""
    try:
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
    except (TypeError, ValueError, RecursionError):
        text = str(value)
    return text[:_UNKNOWN_SHAPE_CHARS]


def _envelope(result: Mapping[str, object]) -> _Result:
    """MyCodeAgent's tool result envelope: ``status``, ``data``, ``text``, ``error``."""
    data = result.get("data")
    fields: Mapping[str, object] = data if isinstance(data, dict) else {}
    text = payload_text(result.get("text"))
    streams = _streams(fields)
    output = text if streams is None else streams
    raw_error = result.get("error")
    error = ""
    denied = False
    if isinstance(raw_error, dict):
        error = payload_text(raw_error.get("message"))
        code = raw_error.get("code")
        denied = isinstance(code, str) and any(m in code.upper() for m in _DENIAL_MARKERS)
    elif isinstance(raw_error, str):
        error = raw_error
    if result.get("status") == "error" and not error:
        error = text or output
    return _Result(output, _exit_code(fields), error, denied)


def _plain_object(result: Mapping[str, object]) -> _Result:
    """The objects other agents write: stdout/stderr/exit_code, output/returncode, content."""
    streams = _streams(result)
    if streams is not None:
        output = streams
    elif "output" in result:
        output = payload_text(result.get("output"))
    elif "content" in result:
        output = payload_text(result.get("content"))
    else:
        return _Result(_as_json(result), None, "", False)
    return _Result(output, _exit_code(result), "", False)


def _read_result(value: object) -> _Result:
    if isinstance(value, str):
        return _Result(value, None, "", False)
    if isinstance(value, dict):
        status = value.get("status")
        if isinstance(status, str) and status in _ENVELOPE_STATUSES:
            return _envelope(value)
        return _plain_object(value)
    if isinstance(value, list):
        text = payload_text(value)
        return _Result(text if text or not value else _as_json(value), None, "", False)
    if value is None:
        return _Result("", None, "", False)
    return _Result(_as_json(value), None, "", False)


def tool_outcome(payload: Mapping[str, object]) -> ToolOutcome | None:
    """The outcome a native ``tool_lifecycle`` payload reports; None unless it finished.

    An ``outcome`` object with a known ``status`` is the outcome as it states it. Else
    ``result`` is read in every shape agents write: a string; MyCodeAgent's envelope
    (output from ``data.stdout``/``data.stderr``, else ``text``; exit code from
    ``data.exit_code``; error text from ``error.message``, else ``text``); the plain objects
    ``{stdout, stderr, exit_code}``, ``{output, returncode}``, ``{content: [...]}``; any
    other object as its compact JSON. A top-level integer ``exit_code`` is read when the
    result has none. A completed call with a non-zero exit code keeps status "completed"
    (the envelope says "partial"): the rules read its exit code as the failure it is. An
    error code saying the call was denied makes it "rejected"; a completed call whose
    envelope says "error", or whose text opens as an error report (:func:`reports_error`),
    is "errored".
    """
    status = payload.get("status")
    if status != "completed" and status != "failed":
        return None
    stated = _stated(payload.get("outcome"))
    if stated is not None:
        return stated
    result = _read_result(payload.get("result"))
    code = result.exit_code if result.exit_code is not None else _int(payload.get("exit_code"))
    if result.denied:
        error = result.error or result.output or "denied"
        return ToolOutcome("rejected", code, "", error)
    if status == "failed":
        error = result.error or payload_text(payload.get("error")) or result.output or "failed"
        return ToolOutcome("failed", code, result.output, error)
    if result.error:
        return ToolOutcome("errored", code, result.error, result.error)
    errored = reports_error(result.output)
    return ToolOutcome("errored" if errored else "completed", code, result.output, "")
