"""What a forge's listing of a pull request's or a run's CI checks says (``gh pr checks``,
``gh run watch``): how many passed, which failed, whether some are still pending.

``gh pr checks`` prints one row per check, tab-separated when its output is not a terminal
(an agent's shell): name, state (pass, fail, pending, skipping, cancel), time, link. With
``--watch`` it prints the table again at each refresh: the last state of each check counts.
A loop over several pull requests lists each one's checks: all of them count.
``gh run watch`` ends with "✓ Run CI (123) completed with 'success'".
"""

from __future__ import annotations

import re
from typing import Final, NamedTuple

from deriver.check_output import CheckCounts, CheckSummary
from deriver.output_scan import without_colours

__all__ = ["CI_CHECKS", "CiVerdict", "ci_verdict"]

CI_CHECKS: Final = frozenset({"gh pr checks", "gh run watch"})
"""The check table's names of the commands that list CI's checks."""

_ROW_RE: Final = re.compile(
    r"^([^\t\n]+)\t(pass|fail|pending|skipping|cancel)\t[^\t\n]*\t?([^\t\n]*)", re.M
)
_RUN_RE: Final = re.compile(r"\bRun (.+?) \(\d+\) completed with '(\w+)'")
_NAMES_CHARS: Final = 60


class CiVerdict(NamedTuple):
    """The checks' summary, and the verdict: passed, failed, or None while any is pending."""

    summary: CheckSummary
    passed: bool | None


def ci_verdict(output: str) -> CiVerdict | None:
    """What CI's checks listed in ``output`` say; None when it lists none (an error, a
    pull request without checks)."""
    text = without_colours(output)
    # A check is its name and link: the same check again (a refresh) says its later state,
    # another pull request's (a loop over several) is another check.
    states = {(name.strip(), link): state for name, state, link in _ROW_RE.findall(text)}
    if not states:
        runs = list(_RUN_RE.finditer(text))
        if not runs:
            return None
        run = runs[-1]
        passed = run.group(2) == "success"
        counts = CheckCounts(passed=int(passed), failed=int(not passed))
        return CiVerdict(CheckSummary(counts, f"run {run.group(1)}: {run.group(2)}"), passed)
    failed = [name for (name, _), state in states.items() if state in ("fail", "cancel")]
    passes = sum(state == "pass" for state in states.values())
    pending = sum(state == "pending" for state in states.values())
    words = [f"{passes} pass"]
    if pending:
        words.insert(0, f"{pending} pending")
    if failed:
        words.insert(0, f"{len(failed)} failing: {', '.join(failed)[:_NAMES_CHARS]}")
    verdict = False if failed else (True if passes and not pending else None)
    counts = CheckCounts(passed=passes, failed=len(failed))
    return CiVerdict(CheckSummary(counts, "; ".join(words)), verdict)
