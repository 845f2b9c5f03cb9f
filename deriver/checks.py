"""Checks in the memory: a test, build or lint run becomes a verification item."""

from __future__ import annotations

from deriver.check_output import check_passed, parse_check_output
from deriver.keys import check_key
from deriver.recording import verification
from deriver.shell import CheckRun
from deriver.store import MemoryStore, Stamp
from deriver.user_text import first_line
from deriver.wording import EXCERPT_CHARS, code
from session_memory.redact import quote_untrusted

__all__ = ["mark_checks_stale", "record_check"]


def record_check(
    store: MemoryStore, check: CheckRun, exit_code: int | None, output: str, stamp: Stamp
) -> None:
    """The check's latest run: passed, failed or unknown, with the counts it printed."""
    counts = parse_check_output(check.name, output)
    passed = check_passed(exit_code, counts, output)
    status = "passed" if passed else "failed" if passed is False else "warning"
    detail = ""
    if counts is not None:
        parts = [
            f"{n} {label}"
            for n, label in (
                (counts.failed, "failed"),
                (counts.errors, "errors"),
                (counts.passed, "passed"),
                (counts.skipped, "skipped"),
            )
            if n
        ]
        detail = ", ".join(parts)
    elif passed is None:
        detail = "outcome unknown"
    if passed is False and counts is None:
        detail = quote_untrusted(first_line(output, 400), EXCERPT_CHARS) if output.strip() else ""
    text = code(check.command, 120) + (f" ({detail})" if detail else "")
    verification(store, "check", status, text, stamp, key=check_key(check.command))


def mark_checks_stale(store: MemoryStore, stamp: Stamp) -> None:
    """An edit after a passing check: the check no longer says the code passes."""
    for item in store.items_of("verification_status"):
        if item.kind == "check" and item.status == "passed":
            store.update(item, stamp, status="stale", touch=False)
