"""Rendering a :class:`SessionMemory` to Markdown, byte-stable."""

from __future__ import annotations

from session_memory.core.arguments import check_argument
from session_memory.core.errors import ViewInputError
from session_memory.core.layout import (
    HEADER,
    RENDER_ORDER,
    STANDS_SECTION,
    body,
    goal_block,
    item_prefix,
    marker_line,
    section_header,
)
from session_memory.core.memory import MemoryItem, SessionMemory

__all__ = ["render_memory"]


def render_memory(memory: SessionMemory) -> str:
    """Render the memory as Markdown; the empty memory renders as the empty string.

    The same memory always renders to the same text: no clock, no dict-order accident.
    Anything but a :class:`SessionMemory` is a :class:`ViewInputError`.
    """
    check_argument("memory", memory, SessionMemory, error=ViewInputError)
    if memory.is_empty:
        return ""
    parts = [HEADER]
    goal = memory.current_goal
    if goal is not None:
        parts.append(
            goal_block(goal.text, goal.truncated, goal.acknowledgements, goal.last_acknowledgement)
        )
    if memory.where_stands:
        parts.append(section_header(STANDS_SECTION))
        parts.extend(_line(item) for item in memory.where_stands)
    for section in RENDER_ORDER:
        items = memory.section(section)
        omitted = memory.omitted.get(section, 0)
        if not items and not omitted:
            continue
        parts.append(section_header(section))
        if omitted:
            parts.append(marker_line(section, omitted))
        parts.extend(_line(item) for item in items)
    return "".join(parts)


def _line(item: MemoryItem) -> str:
    return item_prefix(item.status, item.count, item.safe_to_replay) + body(item.text)
