"""Claude Code's TaskCreate / TaskUpdate feed the todo list like TodoWrite does."""

from __future__ import annotations

from pathlib import Path

from deriver import SessionMemoryDeriver
from session_memory.formats import read_transcript
from tests.cc_session import ClaudeCodeSession


def todos(path: Path) -> list[tuple[str, str | None]]:
    deriver = SessionMemoryDeriver()
    deriver.apply_all(read_transcript(path))
    return [(i.text, i.status) for i in deriver.memory.todo_items]


class TestClaudeTasks:
    def test_created_tasks_are_open_todos_in_order(self, tmp_path: Path) -> None:
        """Each TaskCreate adds a pending todo, verbatim, in creation order."""
        s = ClaudeCodeSession(tmp_path / "s.jsonl")
        s.prompt("Fix checkout")
        s.task_create("Fix the rounding bug", "1")
        s.task_create("Run the full suite", "2")
        assert todos(s.path) == [
            ("Fix the rounding bug", "pending"),
            ("Run the full suite", "pending"),
        ]

    def test_updates_change_status_and_delete_removes(self, tmp_path: Path) -> None:
        """TaskUpdate moves a task through its statuses; status deleted drops it."""
        s = ClaudeCodeSession(tmp_path / "s.jsonl")
        s.prompt("Fix checkout")
        for n, subject in enumerate(("Fix the rounding bug", "Run the full suite", "Drop me"), 1):
            s.task_create(subject, str(n))
        s.task_update("1", "in_progress")
        s.task_update("3", "deleted")
        assert todos(s.path) == [
            ("Fix the rounding bug", "in_progress"),
            ("Run the full suite", "pending"),
        ]
        s.task_update("1", "completed")
        assert ("Run the full suite", "pending") in todos(s.path)
        assert ("Fix the rounding bug", "in_progress") not in todos(s.path)

    def test_a_failed_create_adds_nothing(self, tmp_path: Path) -> None:
        """A TaskCreate whose result is an error leaves the list as it was."""
        s = ClaudeCodeSession(tmp_path / "s.jsonl")
        s.prompt("Fix checkout")
        s.task_create("Kept", "1")
        s.tool("TaskCreate", {"subject": "Broken"}, "Error: invalid input", error=True)
        s.task_create("Also kept", "2")
        assert [t for t, _ in todos(s.path)] == ["Kept", "Also kept"]
