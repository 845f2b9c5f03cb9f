"""The scripted session both clients run: todos, a failing then passing test, an edit.

A :class:`Script` answers like a model that follows a plan: the next step is the one after
the last step whose tool result is in the request (tool call ids carry the step number), so
it survives compaction, which drops earlier messages. It reports a large input usage once,
after the edit, to make the client compact on its own.
"""

from __future__ import annotations

import subprocess
import sys
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

PYTHON = sys.executable
GOAL = "Fix the failing checkout test: total() must round to cents."
RESUME_PROMPT = "continue"
TODO_FIX = "Fix the rounding in checkout.total"
TODO_SUITE = "Run the whole test suite before release"
TEST_COMMAND = f"{PYTHON} -m pytest -q -p no:cacheprovider test_checkout.py"
TEST_TIMEOUT_MS = 120_000
"""How long a client may wait for the test command (the machine may be slow)."""
SUMMARY = "Summary: the checkout rounding was being fixed."
RESUME_ANSWER = "Next: run the whole test suite before release."
FINAL_ANSWER = "Fixed checkout.total; the whole suite is still to run."

CHECKOUT = "def total(prices):\n    return round(sum(prices), 1)\n"
TEST = (
    "from checkout import total\n\n\n"
    "def test_total():\n    assert total([0.1, 0.2, 0.05]) == 0.35\n"
)


def write_project(work: Path) -> None:
    """The project the agent works on, a git repository with one commit: a rounding bug and
    the test that finds it."""
    work.mkdir(parents=True, exist_ok=True)
    (work / "checkout.py").write_text(CHECKOUT)
    (work / "test_checkout.py").write_text(TEST)
    git = ["git", "-C", str(work), "-c", "user.name=e2e", "-c", "user.email=e2e@example.invalid"]
    subprocess.run(["git", "init", "-q", "-b", "main", str(work)], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "the shop"], check=True)


Step = dict[str, Any]


@dataclass
class Script:
    """Steps of the goal prompt, in order; the last one is the final answer (text)."""

    steps: list[Step]
    compact_after: int
    """Index of the step whose reply reports a large usage (once)."""
    big_usage: int
    issued: dict[str, int] = field(default_factory=dict)
    progress: int = -1
    big_sent: bool = False
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def observe(self, answered_call_ids: Iterable[str]) -> None:
        """Note the steps whose results a request carries (every request, compaction ones
        included: the request after a compaction may no longer show them)."""
        with self._lock:
            for call_id in answered_call_ids:
                if call_id in self.issued:
                    self.progress = max(self.progress, self.issued[call_id])

    def next(self) -> tuple[Step, str, int]:
        """The next step, its call id and the input usage to report."""
        with self._lock:
            index = min(self.progress + 1, len(self.steps) - 1)
            call_id = f"call_s{index}_{len(self.issued)}"
            self.issued[call_id] = index
            big = index == self.compact_after and not self.big_sent
            self.big_sent = self.big_sent or big
            return self.steps[index], call_id, self.big_usage if big else 1000
