"""Todo lists: the list a todo tool writes (TodoWrite, todo_write, Codex update_plan), and
the issues of a task tracker used through the shell (:mod:`deriver.task_tracker`), as todos.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, Final

from deriver.check_commands import detect_check
from deriver.keys import done_key, issue_key
from deriver.plan_steps import PlanSteps
from deriver.recording import bump, verification
from deriver.store import Item, MemoryStore, Stamp
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
_STEPS_SHOWN: Final = 4  # the last steps done, of one line of completed work
_STEP_CHARS: Final = 100
_STEPS_KEY: Final = done_key("\x00steps")
_ISSUE_TITLE_CHARS: Final = 80
_MAX_SEEN: Final = 256  # listed issues remembered, in case the session takes them on later
# A step whose words say it verifies the work: "Test the layout", "Run the tests".
_VERIFYING_RE: Final = re.compile(
    r"^(?:test|verify|validate|run (?:the |all |full )?(?:tests?|test suite|checks?|linters?|"
    r"lint|build|type ?checks?))\b",
    re.IGNORECASE,
)
_NAMES_CHECKS_RE: Final = re.compile(r"^(?:run|verify|check)\b(.*)", re.IGNORECASE)
_CHECK_WORD_RE: Final = re.compile(r"[\w./:-]+")
_SHIPS_RE: Final = re.compile(r"\b(?:commit|push|merge|deploy|release|publish)", re.IGNORECASE)


def checks_named(step: str) -> frozenset[str]:
    """The checks a step names by their programs ("Run ruff, mypy, and pytest" names mypy,
    pytest and ruff), none for a step that also ships the work ("commit and push")."""
    said = _NAMES_CHECKS_RE.match(step)
    if said is None or _SHIPS_RE.search(step):
        return frozenset()
    words = _CHECK_WORD_RE.findall(said.group(1))[:8]
    found = {
        detect_check(" ".join(words[i : i + 2])) or detect_check(w) for i, w in enumerate(words)
    }
    return frozenset(check.name for check in found if check is not None)


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
        self.retracted: set[str] = set()
        """Steps done that the agent later said were wrong: no longer shown done."""
        self.own: set[str] = set()
        """Families of the tracker issues this session changed (claimed, created, closed)."""
        self.seen: dict[str, tuple[str | None, str | None]] = {}
        """Issues a listing showed, by id: their status and title, the latest last."""
        self.worked_on = False
        """Whether the agent changed something (an edit, a command, a check) since the list
        was last written: work its list no longer tells."""
        self.left_behind = False
        """Whether the agent ended a turn after it worked on past the list's last update."""
        self.checks_run = 0
        """How many checks (tests, builds, linters) the session ran."""
        self.planned: dict[str, int] = {}
        """Each step of the lists, by text: how many checks had run when it was planned."""
        self.passes = 0
        """How many checks passed."""
        self.last_passed = False
        """Whether the latest check passed."""
        self.started: dict[str, int] = {}
        """Each step the lists showed in progress, by text: how many checks had passed
        when it began."""
        self.passed_last: dict[str, int] = {}
        """Each check, by name: how many checks had passed when it last passed."""
        self.plan_steps = PlanSteps(store)
        """The steps of the latest plan's verification not yet seen taken."""

    def replace(self, todos: list[Todo], stamp: Stamp) -> None:
        """The todo list becomes the tool's latest list, verbatim and in order."""
        store = self.store
        for item in store.items_of("todo_items"):
            if item.kind in _SUPERSEDED:
                store.remove(item, stamp)
        store.forget_evicted("todo_items", _SUPERSEDED)
        planned = self.planned
        for content, status in todos:
            text = line(content, _TODO_CHARS)
            if text not in planned:
                # A step first seen already completed may have been checked before: any
                # check of the session counts for it.
                planned[text] = self.checks_run if status != "completed" else 0
            if status == "in_progress":
                self.started.setdefault(text, self.passes)
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
        for steps in (planned, self.started):
            for text in list(steps)[: max(0, len(steps) - MAX_TODOS * 2)]:
                del steps[text]
        self.worked_on = self.left_behind = False

    def new_request(self, stamp: Stamp) -> None:
        """The user asked for something new after the agent left its list behind: the list
        was that request's plan, its steps left open are not this one's to do (the closing
        message says how that work ended). A list the agent left as it stood when it
        stopped working still says what is open."""
        if self.left_behind:
            self._drop(lambda item: True, stamp)

    def turn_closed(self, stamp: Stamp) -> None:
        """The agent ended its turn: when it worked on past the list, it left the list
        behind. A step that verifies the work, in progress, with checks passed since it
        began (the latest of them too), was done though the list never said so."""
        self.left_behind = self.left_behind or self.worked_on
        if self.last_passed:
            passes, started = self.passes, self.started
            self._drop(
                lambda item: (
                    item.status == "in_progress"
                    and passes > started.get(item.text, passes)
                    and _VERIFYING_RE.match(item.text) is not None
                ),
                stamp,
            )

    def checked(self, passed: bool, names: tuple[str, ...], stamp: Stamp) -> None:
        """A check ran (a test, a build, a linter): it passed or not, and with it the
        ``names`` of the checks its command line passed. A step in progress that names its
        checks ("Run ruff, mypy, and pytest") is done once each passed since it began."""
        self.checks_run += 1
        self.passes += passed
        self.last_passed = passed
        if not passed:
            return
        last, started = self.passed_last, self.started
        for name in names:
            last.pop(name, None)
            last[name] = self.passes
            if len(last) > MAX_TODOS * 2:
                del last[next(iter(last))]

        def done(item: Item) -> bool:
            named = checks_named(item.text) if item.status == "in_progress" else frozenset()
            begun = started.get(item.text, self.passes)
            return bool(named) and all(last.get(name, 0) > begun for name in named)

        self._drop(done, stamp)

    def _drop(self, which: Callable[[Item], bool], stamp: Stamp) -> None:
        store = self.store
        for item in store.items_of("todo_items"):
            if item.kind == "todo" and which(item):
                store.remove(item, stamp)

    def _completed(self, text: str, stamp: Stamp) -> None:
        """A todo done: completed work, once. A step that verifies the work, marked done
        while no check ran since it was planned, is no verification: a warning says so."""
        if text in self.done or text in self.retracted:
            return
        self.done.append(text)
        if _VERIFYING_RE.match(text) and self.checks_run <= self.planned.get(text, 0):
            warning = f"marked done, but no test, build or linter ran: {text}"
            verification(self.store, "unchecked_step", "warning", warning, stamp,
                         key=done_key(text))  # fmt: skip
            return
        self._steps_done(stamp)

    def _steps_done(self, stamp: Stamp) -> None:
        """The steps of the lists done so far, as one line of completed work: how many, and
        the last few (each a line of its own would crowd out what is still to do)."""
        store = self.store
        steps = [
            text for text in self.done
            if text not in self.retracted
            and not (_VERIFYING_RE.match(text) and store.get(done_key(text)) is not None)
        ]  # fmt: skip
        item = store.get(_STEPS_KEY)
        if not steps:
            if item is not None:
                store.remove(item, stamp)
            return
        last: list[str] = []  # the last few, each once
        for text in reversed(steps):
            if text not in last:
                last.insert(0, text)
                if len(last) == _STEPS_SHOWN:
                    break
        shown = "; ".join(line(text, _STEP_CHARS) for text in last)
        if len(steps) > len(last):
            shown = f"{len(steps)} steps, the last: {shown}"
        if item is None:
            store.add("completed_work", "todo_done", f"done: {shown}", stamp, key=_STEPS_KEY)
        else:
            store.update(item, stamp, text=f"done: {shown}")

    def said_wrong(self, lines: list[str], stamp: Stamp) -> None:
        """The agent said, closing a turn, that work it did is wrong ("the README instructions
        I just wrote are wrong"): the steps done that those lines name (by most of their
        words) are no longer done."""
        said = set().union(*(_words(ln) for ln in lines))
        wrong = {
            text for text in self.done
            if len(words := _words(text)) >= 2 and 2 * len(words & said) >= len(words)
        }  # fmt: skip
        if wrong - self.retracted:
            self.retracted |= wrong
            self._steps_done(stamp)

    def track_issues(self, changes: list[TrackerChange], stamp: Stamp) -> None:
        """A task tracker's issues as todos, one per issue the session claimed, created or
        closed, and the open issues listed under them (:mod:`deriver.task_tracker`): a
        listing alone is a read of everyone's work."""
        for change in changes:
            family = _family(change.issue)
            if change.listed:
                self._remember(change)
                if family in self.own:
                    self._issue_changed(change, stamp)
                continue
            if change.title is None and change.issue in self.seen:
                change = change._replace(title=self.seen[change.issue][1])
            if change.status == "closed":
                self._remember(change)
            self._issue_changed(change, stamp)
            if family not in self.own:
                self.own.add(family)
                self._take_on(family, stamp)
        store = self.store
        issues = [i for i in store.items_of("todo_items") if i.kind == "tracker_todo"]
        for item in issues[: max(0, len(issues) - _MAX_ISSUES)]:
            store.remove(item, stamp)

    def filed_gone(self, issues: list[str], stamp: Stamp) -> None:
        """Todos filed as notes whose file a later read or edit found missing: gone with it."""
        for issue in issues:
            if (item := self.store.get(issue_key(issue))) is not None:
                self.store.remove(item, stamp)

    def _take_on(self, family: str, stamp: Stamp) -> None:
        """The open issues of a family listed before the session took it on are its todos."""
        for issue, (status, title) in list(self.seen.items()):
            if (
                _family(issue) == family
                and status != "closed"
                and self.store.get(issue_key(issue)) is None
            ):
                self._issue_changed(TrackerChange(issue, status, title, True), stamp)

    def _remember(self, change: TrackerChange) -> None:
        seen = self.seen
        status, title = seen.pop(change.issue, (None, None))
        seen[change.issue] = (change.status or status, change.title or title)
        if len(seen) > _MAX_SEEN:
            del seen[next(iter(seen))]

    def _issue_changed(self, change: TrackerChange, stamp: Stamp) -> None:
        if change.status == "closed":
            self._issue_closed(change, stamp)
        elif not change.listed or change.status is not None:
            self._issue_seen(change, stamp)

    def _issue_closed(self, change: TrackerChange, stamp: Stamp) -> None:
        store = self.store
        item = store.get(issue_key(change.issue))
        if item is not None:
            store.remove(item, stamp)
        elif change.listed:
            return  # a listing of an issue already closed says nothing this session did
        if item is not None:
            what = item.text
        else:
            what = line(change.issue, _ISSUE_CHARS)
            if change.title:
                what += f": {line(change.title, _ISSUE_TITLE_CHARS)}"
        done = f"done: {what}"
        bump(store, "completed_work", "todo_done", done, stamp, done_key(done))

    def _issue_seen(self, change: TrackerChange, stamp: Stamp) -> None:
        """An issue claimed, created or listed under the session's: its todo, titled."""
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

    def tracker_state(self) -> dict[str, Any]:
        return {
            "own": sorted(self.own),
            "seen": [[k, s, t] for k, (s, t) in self.seen.items()],
            "worked_on": self.worked_on,
            "left_behind": self.left_behind,
            "checks_run": self.checks_run,
            "planned": [[text, count] for text, count in self.planned.items()],
            "passes": self.passes,
            "last_passed": self.last_passed,
            "started": [[text, count] for text, count in self.started.items()],
            "passed_last": [[name, count] for name, count in self.passed_last.items()],
            "retracted": sorted(self.retracted),
            "plan_steps": self.plan_steps.to_state(),
        }

    def load_tracker_state(self, state: object) -> None:
        raw = state if isinstance(state, dict) else {}
        self.own = {f for f in raw.get("own", ()) if isinstance(f, str)}
        self.seen = {
            e[0]: (e[1], e[2]) for e in raw.get("seen", ()) if isinstance(e, list) and len(e) == 3
        }
        self.worked_on = raw.get("worked_on") is True
        self.left_behind = raw.get("left_behind") is True
        self.checks_run = _count(raw.get("checks_run"))
        self.planned = _step_counts(raw.get("planned", ()))
        self.passes = _count(raw.get("passes"))
        self.last_passed = raw.get("last_passed") is True
        self.started = _step_counts(raw.get("started", ()))
        self.passed_last = _step_counts(raw.get("passed_last", ()))
        self.retracted = {t for t in raw.get("retracted", ()) if isinstance(t, str)}
        self.plan_steps.load_state(raw.get("plan_steps"))


_WORD_RE: Final = re.compile(r"[a-z][a-z0-9_-]{3,}")


def _words(text: str) -> set[str]:
    """The words of a text that can name work: four letters or more, lowercase."""
    return set(_WORD_RE.findall(text.lower()))


def _count(value: object) -> int:
    return value if isinstance(value, int) else 0


def _step_counts(saved: Any) -> dict[str, int]:
    """Steps and their counts, as :meth:`TodoLists.tracker_state` saved them."""
    return {e[0]: e[1] for e in saved if isinstance(e, list) and len(e) == 2}


def _family(issue: str) -> str:
    """The issue an id belongs under: ``app-fum`` for ``app-fum``, ``app-fum.3``..."""
    return issue.split(".", 1)[0]
