"""The current goal as the store keeps it, and its text cut to fit its cap."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from deriver.output_scan import error_lines

__all__ = ["GoalState", "Stamp", "fit_goal", "stamp_of", "steps_apart"]

Stamp = tuple[str, int | None]
"""An event id and its step: where a fact came from."""


@dataclass(slots=True)
class GoalState:
    """The current goal as the store keeps it; :meth:`MemoryStore.goal_item` freezes it."""

    text: str
    source: Stamp
    run_id: str | None
    truncated: bool = False
    acknowledgements: int = 0
    last_ack: str = ""
    tokens: int = 0
    root: bool = False
    """Whether this is the session's first request (pinned once later goals replace it)."""
    worked: bool = False
    """Whether a file was changed while this was the goal."""
    shipped: bool = False
    """Whether a commit, push or pull request was made while this was the goal."""

    def to_state(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "source": list(self.source),
            "run_id": self.run_id,
            "truncated": self.truncated,
            "acknowledgements": self.acknowledgements,
            "last_ack": self.last_ack,
            "tokens": self.tokens,
            "root": self.root,
            "worked": self.worked,
            "shipped": self.shipped,
        }

    @classmethod
    def from_state(cls, state: dict[str, Any]) -> GoalState:
        return cls(
            text=state["text"],
            source=stamp_of(state["source"]),
            run_id=state["run_id"],
            truncated=state["truncated"],
            acknowledgements=state["acknowledgements"],
            last_ack=state["last_ack"],
            tokens=state["tokens"],
            root=bool(state.get("root", False)),
            worked=bool(state.get("worked", False)),
            shipped=bool(state.get("shipped", False)),
        )


def stamp_of(state: list[Any]) -> Stamp:
    """A stamp as a snapshot saved it."""
    event_id, step = state
    return (event_id, step)


def steps_apart(then: Stamp, now: Stamp) -> int:
    """How many events ``now`` is after ``then`` (0 when either has no step)."""
    return now[1] - then[1] if then[1] is not None and now[1] is not None else 0


def fit_goal(goal: GoalState, count: Callable[[str, bool, int, str], int], cap: int) -> None:
    """Shorten ``goal``'s text until its block (``count``: text, truncated, acknowledgements,
    last acknowledgement) takes at most ``cap`` tokens; never drop it."""
    full = goal.text

    def block(text: str, truncated: bool) -> int:
        return count(text, truncated, goal.acknowledgements, goal.last_ack)

    tokens = block(full, False)
    if tokens <= cap:
        goal.tokens, goal.truncated = tokens, False
        return
    # The longest head-and-tail cut whose block fits: what a request asks for is often
    # at its end. A token covers at most a few dozen characters, so the search starts
    # from a bounded cut of a possibly huge text.
    # The lines that report an error stay too: a request quoting a log asks about them.
    lo, hi = 0, min(len(full), cap * 64)
    marks = error_lines(full, _MARKS, _MARK_CHARS)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if block(_head_tail(full, mid, marks), True) <= cap:
            lo = mid
        else:
            hi = mid - 1
    goal.text = _head_tail(full, lo, marks)
    goal.truncated = True
    goal.tokens = block(goal.text, True)


_GOAL_HEAD_SHARE: Final = 0.6
_MARK_CHARS: Final = 200  # a line of a pasted log that reports an error, kept in a cut goal
_MARKS: Final = 2


def _head_tail(text: str, chars: int, marks: tuple[tuple[int, str], ...] = ()) -> str:
    """``chars`` characters of ``text``: its head and its tail around an ellipsis, and
    between them the lines of ``marks`` the cut would drop, when they fit."""
    head = int(chars * _GOAL_HEAD_SHARE)
    between = [line for start, line in marks if head <= start < len(text) - (chars - head)]
    room = chars - sum(len(line) + 3 for line in between)
    if between and room >= chars // 2:
        chars, head = room, int(room * _GOAL_HEAD_SHARE)
        middle = "".join(f" \u2026 {line}" for line in between)
    else:
        middle = ""
    tail = text[len(text) - (chars - head) :] if chars > head else ""
    return f"{text[:head].rstrip()}{middle} \u2026 {tail.lstrip()}".strip()
