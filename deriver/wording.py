"""How the rules word what they record: arguments as code spans, contained lines, goal texts.

Texts enter items only through the containment functions of :mod:`session_memory.redact`:
secrets are redacted, tool output is quoted.
"""

from __future__ import annotations

import functools
import re
from typing import Any, Final

from deriver.user_text import first_line
from session_memory.redact import contain_trusted_line, redact_secrets

__all__ = [
    "ARG_CHARS",
    "EXCERPT_CHARS",
    "MAX_OPEN_CALLS",
    "as_dict",
    "code",
    "describe",
    "detail_text",
    "goal_text",
    "line",
    "str_or_none",
    "uncertain_text",
]

MAX_OPEN_CALLS: Final = 1024
EXCERPT_CHARS: Final = 160
ARG_CHARS: Final = 160
_CONTROL_BUT_LINE_BREAK_AND_TAB: Final = re.compile("[\x00-\x08\x0b-\x1f]")


def as_dict(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def str_or_none(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


@functools.lru_cache(maxsize=4096)
def code(text: str, max_chars: int = ARG_CHARS) -> str:
    """An argument (path, command, pattern) as an inline code span on one line.

    Memoised (as is :func:`describe`): agents touch the same paths and commands again and
    again, and containment is the most expensive step of most events.
    """
    return "`" + contain_trusted_line(text, max_chars).replace("`", "'") + "`"


@functools.lru_cache(maxsize=4096)
def line(text: str, max_chars: int) -> str:
    """Agent-written text (a todo, a decision) on one contained line; memoised like code."""
    return contain_trusted_line(text, max_chars)


@functools.lru_cache(maxsize=4096)
def describe(tool: str, key: str | None) -> str:
    name = contain_trusted_line(tool, 60) or "tool"
    return f"{name} {code(key)}" if key else name


@functools.lru_cache(maxsize=2 * MAX_OPEN_CALLS)
def uncertain_text(open_started: int) -> str:
    # Memoised: the count goes up and down by one with every call, and the same string
    # object keeps its hash for the store's token cache.
    noun = "action was" if open_started == 1 else "actions were"
    return (
        f"{open_started} {noun} started but never finished; "
        "check their effects before replaying (see Todo)"
    )


def goal_text(content: str) -> str:
    """The user's request as the goal: secrets redacted, control characters dropped."""
    text = redact_secrets(content.replace("\r\n", "\n").replace("\r", "\n"))
    text = text.encode("utf-8", "replace").decode("utf-8")
    cleaned = _CONTROL_BUT_LINE_BREAK_AND_TAB.sub("", text)
    return cleaned.strip() or "(empty request)"


def detail_text(details: object) -> str:
    if isinstance(details, str):
        return first_line(details, 400)
    if isinstance(details, dict):
        for field in ("message", "summary", "reason", "error"):
            value = details.get(field)
            if isinstance(value, str) and value.strip():
                return first_line(value, 400)
    return ""
