"""A long scripted agent run, the same for every framework, and what a model must know in it.

Four user turns of a coding task: the first asks to make a search case-insensitive, the second
says to continue, the third changes the goal to pagination, the fourth says to continue. The
agent writes a todo list and updates it, reads many files (some two at a time), writes a test
that fails, fixes the code, sees the test pass, and ends each turn with an answer: over 200
tool calls. The tools run against a small
:class:`Workspace`, so the test results follow from the edits.

:func:`must_know` says, for every model call, what the request must carry for the model to go
on: the current goal, the open todos, and the verdict of the last check (its summary line,
unique to each run of the tests). :func:`present` looks for those facts in a request's text.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final

__all__ = [
    "CHECK_COMMAND",
    "PROMPTS",
    "SCRIPT",
    "STEPS",
    "SYSTEM_PROMPT",
    "MustKnow",
    "Present",
    "Step",
    "ToolCall",
    "Turn",
    "Workspace",
    "must_know",
    "present",
    "tool_calls",
]

SYSTEM_PROMPT: Final = (
    "You are a careful coding agent. Use the tools; run the tests before you finish."
)
CHECK_COMMAND: Final = "python -m pytest -q tests"
PROMPTS: Final = (
    "Make the search endpoint case-insensitive so that Foo and foo find the same documents",
    "continue",
    "Now add pagination to the search results with twenty results per page",
    "please continue",
)
_TODOS: Final = (
    (
        "Write a failing test for mixed-case queries",
        "Lower-case the query in search",
        "Note the change in the changelog",
    ),
    (
        "Add a page parameter to search",
        "Test pagination at the last page",
        "Document the page parameter",
    ),
)


@dataclass(frozen=True, slots=True)
class ToolCall:
    """One tool call the scripted model makes."""

    call_id: str
    name: str
    args: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Step:
    """One model response: tool calls, or (with none) the answer that ends the turn."""

    calls: tuple[ToolCall, ...] = ()
    text: str = ""


@dataclass(frozen=True, slots=True)
class Turn:
    """A user prompt and the model's responses until it answers."""

    prompt: str
    goal: str
    """What the user wants during the turn: the prompt, unless it only says to go on."""
    steps: tuple[Step, ...]


class _Builder:
    def __init__(self, turn: int) -> None:
        self.turn = turn
        self.steps: list[Step] = []

    def call(self, *calls: tuple[str, dict[str, Any]]) -> None:
        number = len(self.steps)
        made = tuple(
            ToolCall(f"call_{self.turn}_{number}_{i}", name, args)
            for i, (name, args) in enumerate(calls)
        )
        self.steps.append(Step(made))

    def todos(self, contents: tuple[str, ...], done: int) -> None:
        todos = [
            {
                "content": c,
                "status": "completed" if i < done else "in_progress" if i == done else "pending",
            }
            for i, c in enumerate(contents)
        ]
        self.call(("todo_write", {"todos": todos}))

    def reads(self, folder: str, count: int, *, pairs: int = 0) -> None:
        for i in range(pairs):
            self.call(
                ("read_file", {"path": f"{folder}/pair_{i}_a.py"}),
                ("read_file", {"path": f"{folder}/pair_{i}_b.py"}),
            )
        for i in range(count):
            self.call(("read_file", {"path": f"{folder}/module_{i}.py"}))

    def answer(self, text: str) -> None:
        self.steps.append(Step(text=text))

    def check(self) -> None:
        self.call(("bash", {"command": CHECK_COMMAND}))

    def edit(self, path: str) -> None:
        self.call(("edit_file", {"path": path, "old": "pass", "new": "return result"}))


def _script() -> tuple[Turn, ...]:
    first = _Builder(1)
    first.todos(_TODOS[0], 0)
    first.reads("src/search", 35, pairs=4)
    first.edit("tests/test_search.py")
    first.check()
    first.reads("src/index", 10)
    first.answer("The new test fails as expected; the fix comes next.")
    second = _Builder(2)
    second.reads("src/search/query", 20)
    second.edit("src/search/query.py")
    second.check()
    second.todos(_TODOS[0], 2)
    second.reads("docs", 25)
    second.answer("Search is case-insensitive now; the changelog entry is still open.")
    third = _Builder(3)
    third.todos(_TODOS[1], 0)
    third.reads("src/search/pages", 35, pairs=4)
    third.edit("tests/test_pagination.py")
    third.check()
    third.reads("src/api", 10)
    third.answer("The last-page test fails; the page parameter comes next.")
    fourth = _Builder(4)
    fourth.reads("src/search/pages/impl", 20)
    fourth.edit("src/search/pages.py")
    fourth.check()
    fourth.todos(_TODOS[1], 1)
    fourth.reads("src/web", 25)
    fourth.answer("Pagination works; its last-page test and its docs are still open.")
    return (
        Turn(PROMPTS[0], PROMPTS[0], tuple(first.steps)),
        Turn(PROMPTS[1], PROMPTS[0], tuple(second.steps)),
        Turn(PROMPTS[2], PROMPTS[2], tuple(third.steps)),
        Turn(PROMPTS[3], PROMPTS[2], tuple(fourth.steps)),
    )


SCRIPT: Final = _script()
STEPS: Final = tuple(step for turn in SCRIPT for step in turn.steps)
"""Every model response of the run, in order: response ``k`` answers model call ``k``."""


def tool_calls() -> int:
    """How many tool calls the run makes."""
    return sum(len(step.calls) for step in STEPS)


_EDITS: Final[dict[str, tuple[int, str, bool]]] = {
    # path: (tests it adds, the test it concerns, whether that test fails after the edit)
    "tests/test_search.py": (1, "test_case_insensitive", True),
    "src/search/query.py": (0, "test_case_insensitive", False),
    "tests/test_pagination.py": (2, "test_last_page", True),
    "src/search/pages.py": (0, "test_last_page", False),
}


@dataclass
class Workspace:
    """The project the tools work on: which tests exist and which of them fail."""

    tests: int = 9
    failing: set[str] = field(default_factory=set)

    def run(self, name: str, args: dict[str, Any]) -> str:
        """What the tool ``name`` returns for ``args``."""
        if name == "read_file":
            return _file_text(str(args.get("path")))
        if name == "todo_write":
            return f"Todo list updated ({len(args.get('todos') or [])} items)"
        if name == "edit_file":
            added, test, fails = _EDITS.get(str(args.get("path")), (0, "", False))
            self.tests += added
            (self.failing.add if fails else self.failing.discard)(test)
            return f"Edited {args.get('path')}"
        if name == "bash" and "pytest" in str(args.get("command")):
            return self._pytest()
        return ""

    def _pytest(self) -> str:
        if not self.failing:
            return f"{'.' * self.tests}\n{self.tests} passed in 0.12s"
        lines = [f"FAILED tests/test_search.py::{t} - AssertionError" for t in sorted(self.failing)]
        passed = self.tests - len(self.failing)
        return "\n".join(
            ["F" + "." * passed, *lines, f"{len(self.failing)} failed, {passed} passed in 0.14s"]
        )


def _file_text(path: str) -> str:
    """A source file of about 300 tokens, different for every path."""
    name = path.rsplit("/", 1)[-1].removesuffix(".py")
    lines = [
        f'"""{path}: part of the search service."""',
        "",
        "from __future__ import annotations",
        "",
    ]
    for i in range(12):
        lines.append(f"def {name}_step_{i}(query: str, limit: int = {i + 10}) -> list[str]:")
        lines.append(f"    return [item for item in INDEX.get(query, [])][:limit]  # {path}:{i}")
    return "\n".join(lines)


@dataclass(frozen=True, slots=True)
class MustKnow:
    """What the request of one model call must carry."""

    goal: str
    todos: tuple[str, ...]
    """The open todos of the latest todo list."""
    check: str | None
    """The summary line of the latest test run (None before the first)."""


def must_know() -> list[MustKnow]:
    """For each model call of the run, in order, what its request must carry."""
    workspace = Workspace()
    found: list[MustKnow] = []
    todos: tuple[str, ...] = ()
    check: str | None = None
    for turn in SCRIPT:
        for step in turn.steps:
            found.append(MustKnow(turn.goal, todos, check))
            for call in step.calls:
                result = workspace.run(call.name, call.args)
                if call.name == "todo_write":
                    todos = tuple(
                        t["content"] for t in call.args["todos"] if t["status"] != "completed"
                    )
                elif call.name == "bash":
                    check = (
                        result.rsplit("\n", 1)[-1]
                        .removesuffix(" in 0.12s")
                        .removesuffix(" in 0.14s")
                    )
    return found


@dataclass(frozen=True, slots=True)
class Present:
    """Which must-know facts a request carries."""

    goal: bool
    todos: int
    todos_open: int
    check: bool | None

    @property
    def complete(self) -> bool:
        return self.goal and self.todos == self.todos_open and self.check is not False

    @property
    def score(self) -> tuple[int, int]:
        """Facts present and facts expected: the goal, each open todo, the check."""
        expected = 1 + self.todos_open + (self.check is not None)
        return (self.goal + self.todos + bool(self.check), expected)


def present(must: MustKnow, text: str) -> Present:
    """Which of ``must``'s facts occur in ``text``, the whole text of a request."""
    return Present(
        goal=must.goal in text,
        todos=sum(todo in text for todo in must.todos),
        todos_open=len(must.todos),
        check=None if must.check is None else must.check in text,
    )
