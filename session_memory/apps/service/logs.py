"""What the service says in its log beyond single lines: skipped lines, failing writes.

Every module of the service logs to one logger, the package's
(``session_memory.apps.service``), so that one name filters all it says.
"""

from __future__ import annotations

import logging
from typing import Final

from session_memory.apps.service.options import Clock

__all__ = ["ERROR_REPORT_SECONDS", "SKIPS_LOGGED", "FailureLog", "log_skip", "logger"]

logger = logging.getLogger(__name__.rpartition(".")[0])

SKIPS_LOGGED: Final = 10
"""The skipped lines of one transcript named at info level; the others at debug level."""

ERROR_REPORT_SECONDS: Final = 60.0
"""While writes keep failing, one ERROR summarises them at most this often."""


def log_skip(path: str, count: int, offset: int, reason: str) -> None:
    """Log the ``count``-th skipped line of a transcript.

    Every skip is counted in the memory's diagnostics; the log names the first few per
    transcript so a file of garbage cannot flood it.
    """
    if count <= SKIPS_LOGGED:
        logger.info("skipped line at byte %d of %s: %s", offset, path, reason)
        if count == SKIPS_LOGGED:
            logger.info("further skipped lines of %s are logged at debug level", path)
    else:
        logger.debug("skipped line at byte %d of %s: %s", offset, path, reason)


class FailureLog:
    """ERRORs for failing writes: the first at once, then one summary per interval.

    Disk full or a read-only output directory makes every transcript fail on every sweep;
    one line per transcript per second would bury everything else in the log.
    """

    def __init__(self, clock: Clock, interval: float = ERROR_REPORT_SECONDS) -> None:
        self._clock = clock
        self._interval = interval
        self._failing: dict[str, str] = {}
        self._unreported = 0
        self._last_report: float | None = None

    @property
    def failing(self) -> int:
        """How many transcripts' memories cannot be written right now."""
        return len(self._failing)

    def failed(self, path: str, exc: OSError) -> None:
        self._failing[path] = str(exc)
        self._unreported += 1
        now = self._clock()
        if self._last_report is None or now - self._last_report >= self._interval:
            self.report(path)
        else:
            logger.debug("cannot write the memory of %s: %s", path, exc)

    def is_failing(self, path: str) -> bool:
        return path in self._failing

    def succeeded(self, path: str) -> None:
        if self._failing.pop(path, None) is not None:
            logger.info("the memory of %s is written again", path)

    def report(self, path: str | None = None) -> None:
        """Log one ERROR for what failed since the last one (nothing when nothing did)."""
        if not self._failing or not self._unreported:
            return
        path = path if path in self._failing else next(iter(self._failing))
        logger.error(
            "cannot write the memory of %d transcript(s) (%d failed write(s) since the last "
            "report; next report in %.0f s at most); latest: %s: %s",
            len(self._failing),
            self._unreported,
            self._interval,
            path,
            self._failing[path],
        )
        self._unreported = 0
        self._last_report = self._clock()
