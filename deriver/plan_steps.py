"""A plan's verification: the steps a plan says will show its work is right (its
"Verification" or "Testing" section, "验证方式" or "Проверка" too: ``go test ./...``, "Manual:
send SIGTERM and check the logs"), and those the session was not seen to take.

The plan is the one the user approved (a plan-mode exit) or one a request carries. A step
that names a command is taken when a command line runs it, or a broader run of the same
check (any check of its kind when it says "or equivalent"); a step of checks named without
a command ("all existing tests pass") when any check runs after the plan; a step done by
hand (watching logs, clicking through a page) is never seen taken. What is left is a todo:
at the end of the session, what no one has verified.
"""

from __future__ import annotations

import re
from typing import Any, Final

from deriver.check_commands import CheckRun, detect_check
from deriver.check_runners import kinds_of
from deriver.keys import PLAN_STEPS_KEY
from deriver.store import MemoryStore, Stamp
from deriver.wording import quoted_some

__all__ = ["PlanSteps", "verification_steps"]

_SECTION_RE: Final = re.compile(
    r"^#{1,6}[ \t]*(?:\d{1,2}[.)][ \t]*)?(?:(?:verification|testing|test plan|validation|"
    r"how to (?:verify|test)|v[ée]rification|verificaci[óo]n|verifica[çc][ãa]o|pruebas|"
    r"überprüfung|verifizierung|проверка|тестирование)\b"
    # Words that stand with no space after them: "验证方式", "検証手順", "검증 방법".
    r"|验证|驗證|测试|測試|検証|テスト|검증|테스트)[^\n]*\n",
    re.IGNORECASE | re.MULTILINE,
)
_HEADING_RE: Final = re.compile(r"^#{1,6}\s", re.MULTILINE)
_STEP_RE: Final = re.compile(r"^(?:\d{1,2}[.)]|[-*+])[ \t]+(\S.*)$")
"""A step: an item of the section's list at its first level (not a detail under one)."""
_COMMAND_RE: Final = re.compile(r"`([^`\n]{2,200})`")
_CHECKED_RE: Final = re.compile(
    r"\b(?:tests?|builds?|compiles?|lint\w*|type ?checks?|vet)\b", re.IGNORECASE
)
_BY_HAND_RE: Final = re.compile(
    r"\b(?:manual\w*|by hand|visual\w*|browser|load|stress|soak|benchmark\w*)\b", re.IGNORECASE
)
"""Steps no check of the suite takes: done by hand, or a load the suite does not put on."""
_ANY_LIKE_RE: Final = re.compile(r"\bor (?:an? |the )?(?:equivalent|similar)\b", re.IGNORECASE)
"""A step that names a command as one way among others: any check of its kind takes it."""
_MAX_STEPS: Final = 8
_STEPS_SHOWN: Final = 2
_TOKENS_PER_STEP: Final = 240
"""A step shown for each share of the budget this size, two at least (five at 1200)."""
_STEP_CHARS: Final = 80


def verification_steps(plan: str) -> list[str]:
    """The steps of a plan's verification section, in order (none without one)."""
    found = _SECTION_RE.search(plan)
    if found is None:
        return []
    body = plan[found.end() :]
    end = _HEADING_RE.search(body)
    steps = [
        match.group(1).strip()
        for text in (body[: end.start()] if end else body).splitlines()
        if (match := _STEP_RE.match(text))
    ]
    return steps[:_MAX_STEPS]


def _takes(step: str, command: str, ran: CheckRun | None) -> bool:
    """Whether a command line (the check it runs: ``ran``) takes a step: runs a command the
    step names (or a broader run of its check), or any check for a step of checks named
    without a command."""
    named = _COMMAND_RE.findall(step)
    if not named:
        return (
            ran is not None
            and _CHECKED_RE.search(step) is not None
            and _BY_HAND_RE.search(step) is None
        )
    for wanted in named:
        if " ".join(wanted.split()) in " ".join(command.split()):
            return True
        check = detect_check(wanted)
        if check is None or ran is None:
            continue
        if ran.name == check.name and ran.scope.covers(check.scope):
            return True
        if _ANY_LIKE_RE.search(step) and ran.kind in kinds_of(check.name, check.kind):
            return True  # "`npm run build` (or equivalent)": `npx astro build` takes it
    return False


class PlanSteps:
    """The steps of the latest plan's verification not yet seen taken, as one todo."""

    def __init__(self, store: MemoryStore) -> None:
        self.store = store
        self.steps: list[str] = []

    def planned(self, plan: str, stamp: Stamp, *, approved: bool) -> None:
        """A plan: an approved one replaces the last plan's steps; a request replaces them
        only when it carries steps of its own."""
        steps = verification_steps(plan)
        if steps or approved:
            self.steps = steps
            self._show(stamp)

    def ran(self, command: str, stamp: Stamp) -> None:
        """A command line ran: the steps it takes are done."""
        if not self.steps:
            return
        ran = detect_check(command)
        left = [step for step in self.steps if not _takes(step, command, ran)]
        if len(left) != len(self.steps):
            self.steps = left
            self._show(stamp)

    def _show(self, stamp: Stamp) -> None:
        store = self.store
        item = store.get(PLAN_STEPS_KEY)
        if item is not None:
            store.remove(item, stamp)
        if not self.steps:
            return
        count = max(_STEPS_SHOWN, store.budget_tokens // _TOKENS_PER_STEP)
        shown = quoted_some(self.steps, count, _STEP_CHARS, "; ")
        text = f"the plan's verification, not seen done: {shown}"
        store.add("todo_items", "plan_step", text, stamp, status="pending", key=PLAN_STEPS_KEY)

    def to_state(self) -> list[str]:
        return list(self.steps)

    def load_state(self, state: Any) -> None:
        self.steps = [s for s in state if isinstance(s, str)] if isinstance(state, list) else []
