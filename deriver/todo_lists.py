"""Todo lists: the list a todo tool writes (TodoWrite, todo_write, Codex update_plan), and
the issues of a task tracker used through the shell (:mod:`deriver.task_tracker`), as todos.
"""

from __future__ import annotations

from typing import Final

from deriver.keys import done_key, issue_key
from deriver.recording import bump
from deriver.store import MemoryStore, Stamp
from deriver.task_tracker import TrackerChange
from deriver.wording import as_dict, line
from session_memory.core.outcome import payload_text
from session_memory.core.redact import quote_untrusted

__all__ = ["MAX_TODOS", "Todo", "TodoLists", "todo_list"]

MAX_TODOS: Final = 100
_TODO_STATUSES: Final = frozenset({"pending", "in_progress"})
"""The statuses of an open todo that have a tag of their own; "completed" moves it to done."""
_SUPERSEDED: Final = frozenset({"todo", "summary_todo", "summary_resume"})
"""The todos a new list replaces: the last list's, and a compaction summary's pending tasks
and current work."""
_STATUS_CHARS: Final = 40
_TODO_CHARS: Final = 300
_MAX_ISSUES: Final = 8  # tracker issues kept as todos: the latest touched
_ISSUE_CHARS: Final = 60
_ISSUE_TITLE_CHARS: Final = 80

Todo = tuple[str, str]
"""A todo's content and status."""


def todo_list(args: object) -> list[Todo] | None:
    """The (content, status) pairs of a todo tool call, in order, or None if malformed."""
    data = as_dict(args)
    raw = data.get("todos")
    content_key = "content"
    if not isinstance(raw, list):
        raw, content_key = data.get("plan"), "step"
    if not isinstance(raw, list):
        return None
    todos = []
    for entry in raw[:MAX_TODOS]:
        entry = as_dict(entry)
        content = payload_text(entry.get(content_key))
        status = entry.get("status")
        if content.strip():
            todos.append((content, status if isinstance(status, str) else "pending"))
    return todos


class TodoLists:
    """The todo items of the latest list and of the tracker's issues, and the todos already
    moved to completed work."""

    def __init__(self, store: MemoryStore) -> None:
        self.store = store
        self.done: list[str] = []

    def replace(self, todos: list[Todo], stamp: Stamp) -> None:
        """The todo list becomes the tool's latest list, verbatim and in order."""
        store = self.store
        for item in store.items_of("todo_items"):
            if item.kind in _SUPERSEDED:
                store.remove(item, stamp)
        for content, status in todos:
            text = line(content, _TODO_CHARS)
            if status == "completed":
                self._completed(text, stamp)
            elif status in _TODO_STATUSES:
                store.add("todo_items", "todo", text, stamp, status=status)
            else:
                # Any other status is data, never a tag: the open box, the status quoted.
                shown = f"(status {quote_untrusted(status, _STATUS_CHARS)})"
                store.add("todo_items", "todo", f"{text} {shown}" if text else shown, stamp,
                          status="pending")  # fmt: skip
        del self.done[: -MAX_TODOS * 2]

    def _completed(self, text: str, stamp: Stamp) -> None:
        """A todo done: completed work, once."""
        if text not in self.done:
            self.done.append(text)
            self.store.add("completed_work", "todo_done", f"done: {text}", stamp)

    def track_issues(self, changes: list[TrackerChange], stamp: Stamp) -> None:
        """A task tracker's issues as todos, one per issue: claimed, listed, closed."""
        for change in changes:
            if change.status == "closed":
                self._issue_closed(change.issue, stamp)
            else:
                self._issue_seen(change, stamp)
        store = self.store
        issues = [i for i in store.items_of("todo_items") if i.kind == "tracker_todo"]
        for item in issues[: max(0, len(issues) - _MAX_ISSUES)]:
            store.remove(item, stamp)

    def _issue_closed(self, issue: str, stamp: Stamp) -> None:
        store = self.store
        item = store.get(issue_key(issue))
        if item is not None:
            store.remove(item, stamp)
        done = f"done: {item.text if item is not None else line(issue, _ISSUE_CHARS)}"
        bump(store, "completed_work", "todo_done", done, stamp, done_key(done))

    def _issue_seen(self, change: TrackerChange, stamp: Stamp) -> None:
        """An issue claimed, listed or created: its todo, with its title when known."""
        store = self.store
        key = issue_key(change.issue)
        title = line(change.title, _ISSUE_TITLE_CHARS) if change.title else None
        text = f"{line(change.issue, _ISSUE_CHARS)}: {title}" if title else None
        item = store.get(key)
        if item is None:
            store.add("todo_items", "tracker_todo", text or line(change.issue, _ISSUE_CHARS),
                      stamp, status=change.status or "pending", key=key)  # fmt: skip
        else:
            store.update(item, stamp, text=text, status=change.status)
