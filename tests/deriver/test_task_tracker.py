"""A task tracker used through the shell (beads ``bd``) feeds the todo list, one todo per
issue (CAUSES T1)."""

from __future__ import annotations

from deriver.task_tracker import TrackerChange, tracker_changes
from tests.deriver.test_rules import call, derive, texts

_LIST = (
    "\u25cb app-gqc.7 [\u25cf P2] [task] - Launch review conversation (blocked by: app-gqc)\n"
    "\u25cb app-gqc.6 [\u25cf P2] [task] - Close review session by closing annotations\n"
)
_SHOW = (
    "\u25cb app-fum \u00b7 Render transcripts   [\u25cf P2 \u00b7 OPEN]\n\nDESCRIPTION\n"
    "Builds on app-old.2 and app-old.3.\n\nCHILDREN\n"
    "  \u21b3 \u25cb app-fum.3: Integrate highlight.js for code blocks \u25cf P2\n"
    "  \u21b3 \u25cb app-fum.4: Add regression coverage \u25cf P2\n"
)


def bd(command: str, output: str, call_id: str) -> list[dict[str, object]]:
    return call("Bash", {"command": command}, call_id=call_id, result=output)


def test_a_listing_alone_makes_no_todos() -> None:
    """``bd list`` rows are a read of everyone's work: no todo, no completed work."""
    memory = derive(bd("bd list --status=open 2>&1 | grep gqc", _LIST, "c1"))
    assert memory.todo_items == ()
    assert memory.completed_work == ()


def test_a_claim_makes_the_listed_issues_of_its_family_todos() -> None:
    """Claiming ``app-gqc.6`` makes it ``[~]`` and the open ``app-gqc`` rows listed before
    todos, titled, without their blocking notes; other families listed stay reads."""
    other = "1. [\u25cf P2] [task] app-u4u.1: Wire the API\n"
    memory = derive(
        bd("bd list --status=open", _LIST, "c1"),
        bd("bd ready", other, "c2"),
        bd(
            "bd update app-gqc.6 --status in_progress 2>&1", "\u2713 Updated issue: app-gqc.6", "c3"
        ),
    )
    assert [(i.text, i.status) for i in memory.todo_items] == [
        ("app-gqc.6: Close review session by closing annotations", "in_progress"),
        ("app-gqc.7: Launch review conversation", "pending"),
    ]


def test_a_close_completes_the_claimed_issue() -> None:
    """``bd close X`` moves the session's issue from the todos to completed work."""
    memory = derive(
        bd("bd list --status=open", _LIST, "c1"),
        bd("bd update app-gqc.6 --status in_progress", "", "c2"),
        bd("bd close app-gqc.7 --reason='done'", "\u2713 Closed app-gqc.7: done", "c3"),
    )
    assert texts(memory.todo_items) == ["app-gqc.6: Close review session by closing annotations"]
    assert texts(memory.completed_work) == ["done: app-gqc.7: Launch review conversation"]


def test_an_options_value_is_no_issue() -> None:
    """``bd update X --assignee worker-1 --parent app-fum``: the issue is X; the worker a
    claim names and the parent an option gives are no issues of the session's."""
    command = (
        "bd update av-cykw --assignee readme-pr1572-cont --status in_progress "
        "--set-metadata worker=readme-pr1572-cont --parent app-fum --json"
    )
    memory = derive(bd(command, "", "c1"))
    assert [(i.text, i.status) for i in memory.todo_items] == [("av-cykw", "in_progress")]


def test_children_of_a_claimed_epic_are_todos_and_mentions_are_not() -> None:
    """``bd show``'s CHILDREN block adds the issues of an epic the session works on; ids in
    the description add nothing."""
    memory = derive(
        bd("bd show app-fum", _SHOW, "c1"),
        bd("bd update app-fum.3 --status in_progress", "", "c2"),
    )
    shown = texts(memory.todo_items)
    assert "app-fum.3: Integrate highlight.js for code blocks" in shown
    assert "app-fum.4: Add regression coverage" in shown
    assert not any("app-old" in text for text in shown)


def test_created_and_ready_issues() -> None:
    """``bd create`` output and ``bd ready`` rows are read by their documented shapes."""
    created = tracker_changes(
        "bd create --title='Add export'", "\u2713 Created issue: app-x.5\n  Title: Add export\n"
    )
    assert created == [
        TrackerChange("app-x.5", "pending", None),
        TrackerChange("app-x.5", None, "Add export"),
    ]
    ready = tracker_changes("bd ready", "1. [\u25cf P2] [task] app-u4u.1: Wire the API\n")
    assert ready == [TrackerChange("app-u4u.1", "pending", "Wire the API", listed=True)]


def test_other_commands_are_not_trackers() -> None:
    """A command line without ``bd`` is no tracker call, whatever its output."""
    assert tracker_changes("cat notes.txt", _LIST) is None


def test_an_issue_the_session_opens_is_its_todo_until_it_closes_it() -> None:
    """``gh issue create`` files work for later: a todo, titled, numbered by the URL printed;
    ``gh issue close`` (``glab`` alike) moves it to completed work. Listing issues is a read."""
    memory = derive(
        bd("gh issue list --state open", "12\tOPEN\tFix login redirect\tbug\n", "c1"),
        bd("gh issue create --title 'Flaky upload test' --body 'seen twice'",
           "https://github.com/o/r/issues/14\n", "c2"),
        bd("glab issue create -t 'Pin the toolchain' -d x",
           "https://gitlab.com/o/r/-/issues/3\n", "c3"),
    )  # fmt: skip
    assert [(i.text, i.status) for i in memory.todo_items] == [
        ("#14: Flaky upload test", "pending"),
        ("#3: Pin the toolchain", "pending"),
    ]
    memory = derive(
        bd("gh issue create --title 'Flaky upload test'", "https://github.com/o/r/issues/14\n",
           "c1"),
        bd("gh issue close 14 --comment 'fixed in #15'",
           "\u2713 Closed issue o/r#14 (Flaky upload test)\n", "c2"),
        bd("gh issue close https://github.com/o/r/issues/9",
           "\u2713 Closed issue o/r#9 (Old bug)\n", "c3"),
    )  # fmt: skip
    assert memory.todo_items == ()
    assert texts(memory.completed_work) == ["done: #14: Flaky upload test", "done: #9: Old bug"]


def test_issues_opened_on_one_command_line_are_numbered_in_turn() -> None:
    """Two ``gh issue create`` on one line print their URLs in turn: the first title is the
    first number's, the second the second's."""
    two = (
        "gh issue create --title 'Header comment is stale' --body x; echo ---; "
        "gh issue create --title 'No label taxonomy' --body y"
    )
    output = "https://github.com/o/r/issues/2\n---\nhttps://github.com/o/r/issues/3\n"
    memory = derive(bd(two, output, "c1"))
    assert texts(memory.todo_items) == ["#2: Header comment is stale", "#3: No label taxonomy"]


def test_a_note_written_into_a_todo_directory_is_a_filed_todo_until_moved_to_done() -> None:
    """A file the session writes into a todo directory (``.planning/todos/pending/``,
    ``todos/``) is work it filed for later; moved into ``done/`` it is done. Notes already in
    ``done/``, and other files (a plan written into ``docs/backlog/``), are none."""
    name = "2026-02-21-phase14-security-review-deferred.md"
    memory = derive(
        call("Write", {"file_path": f"/p/.planning/todos/pending/{name}", "content": "x"},
             call_id="w1"),
        call("Write", {"file_path": "/p/.planning/todos/done/2026-01-01-old.md", "content": "x"},
             call_id="w2"),
        call("Write", {"file_path": "/p/docs/todo-list-design.md", "content": "x"}, call_id="w3"),
        call("Write", {"file_path": "/p/docs/backlog/packaging.md", "content": "x"}, call_id="w4"),
    )  # fmt: skip
    assert [(i.text, i.status) for i in memory.todo_items] == [(f"todo {name}", "pending")]
    memory = derive(
        call("Write", {"file_path": f"/p/todos/{name}", "content": "x"}, call_id="w1"),
        bd(f"git mv todos/{name} todos/done/", "", "c1"),
    )
    assert memory.todo_items == ()
    assert texts(memory.completed_work) == [f"done: todo {name}"]


def test_a_filed_todo_whose_note_is_found_missing_is_gone() -> None:
    """A todo filed as a note is gone with its file: a later read or edit of the note that
    finds it missing leaves no todo (it was removed, or reset away)."""
    memory = derive(
        call("Write", {"file_path": "/p/todos/packaging.md", "content": "x"}, call_id="w1"),
        call("Read", {"file_path": "/p/todos/packaging.md"}, "failed", call_id="r1",
             error="File does not exist."),
    )  # fmt: skip
    assert memory.todo_items == ()
