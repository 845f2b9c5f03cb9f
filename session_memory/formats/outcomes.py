"""How an adapter turns its format's tool result into the typed outcome it puts on the event.

Each adapter decides how a call ended from its own format: whether the record says the call
failed, and, for a call reported as completed, which leading texts of its result say the
user rejected it, that it was interrupted, or that it is an error report
(:class:`ResultMarkers`, one per adapter). The event then carries the outcome in the native
``outcome`` field (:func:`session_memory.core.outcome.outcome_payload`).
"""

from __future__ import annotations

from dataclasses import dataclass

from session_memory.core.outcome import OutcomeStatus, ToolOutcome, reports_error

__all__ = ["HEAD_CHARS", "ResultMarkers", "result_outcome"]

HEAD_CHARS = 512
"""How much of a result's text is looked at: the markers open it."""


@dataclass(frozen=True, slots=True)
class ResultMarkers:
    """How a format's completed results say that the call did not succeed.

    ``rejected`` and ``errored`` are leading texts; ``interrupted`` are
    whole results (surrounding white space aside); ``stale`` are texts in a result's head,
    failed or not, that say an edit did not apply because the file was not as the agent
    last saw it. A leading "Error:" is an error report in every format
    (:func:`~session_memory.core.outcome.reports_error`).
    """

    rejected: tuple[str, ...] = ()
    errored: tuple[str, ...] = ()
    interrupted: frozenset[str] = frozenset()
    stale: tuple[str, ...] = ()

    def is_stale(self, text: str) -> bool:
        """Whether a result says an edit did not apply: the file was not as last seen."""
        head = text[:HEAD_CHARS]
        return any(marker in head for marker in self.stale)

    def status_of(self, result: str) -> OutcomeStatus:
        """How a call reported as completed ended, by what its result text opens with."""
        head = result[:HEAD_CHARS].lstrip()
        if self.is_stale(head):
            return "stale"
        if head.startswith(self.rejected):
            return "rejected"
        whole = head.rstrip()
        if whole in self.interrupted:
            return "interrupted"
        if reports_error(head) or head.startswith(self.errored):
            return "errored"
        return "completed"


def result_outcome(
    markers: ResultMarkers, *, failed: bool, text: str, exit_code: int | None
) -> ToolOutcome:
    """The outcome of a call whose record says it ``failed`` (or not), with its result text.

    A failed call's text is its error: "failed" when it says nothing, empty when its exit
    code says it all (a search that found nothing prints nothing); a completed call's text
    is its output, and ``markers`` tell whether it really succeeded.
    """
    if failed:
        status: OutcomeStatus = "stale" if markers.is_stale(text) else "failed"
        return ToolOutcome(status, exit_code, "", text or ("" if exit_code else "failed"))
    status = markers.status_of(text)
    if status == "rejected":
        return ToolOutcome(status, exit_code, "", text)  # no words of the user's but these
    return ToolOutcome(status, exit_code, text, "")
