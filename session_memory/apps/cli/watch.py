"""``watch``: keep the memories of live transcripts current on disk."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from session_memory.apps.cli.arguments import add_budget_argument, add_format_argument

if TYPE_CHECKING:
    import threading

    from session_memory.apps.service import MemoryService, ServiceSummary

    SubParsers = argparse._SubParsersAction[argparse.ArgumentParser]

__all__ = ["EXIT_UNWRITTEN", "add_watch_parser"]

EXIT_UNWRITTEN = 1
"""Exit code of ``watch --once`` when some memory could not be written."""


def add_watch_parser(sub: SubParsers) -> None:
    """``watch PATH... [--out DIR] [--state DIR] [--budget N] [--format F] [--once]``."""
    p = sub.add_parser(
        "watch",
        help="keep <session>.memory.json and .memory.md current as transcripts grow",
    )
    p.add_argument(
        "paths",
        nargs="+",
        metavar="PATH",
        help="transcript file, or directory watched for *.jsonl and *.jsonl.zst",
    )
    p.add_argument("--out", default=".", metavar="DIR", help="output directory (default .)")
    p.add_argument(
        "--state",
        default=None,
        metavar="DIR",
        help="state directory (default OUT/.session-memory-state)",
    )
    add_budget_argument(p)
    add_format_argument(p)
    p.add_argument("--once", action="store_true", help="derive everything present and exit")
    p.set_defaults(run=_run_watch)


def _run_watch(args: argparse.Namespace) -> int:
    import threading

    from session_memory.apps.service import MemoryService

    stop = threading.Event()
    service = MemoryService(
        args.paths,
        args.out,
        args.state,
        budget_tokens=args.budget,
        format=args.format,
        stop_event=stop,
    )
    summary = service.run_once() if args.once else _run_until_stopped(service, stop)
    print(
        f"session-memory: {summary.transcripts} transcripts, {summary.events} events read, "
        f"{summary.skipped} lines skipped, {summary.outputs_written} outputs written",
        file=sys.stderr,
    )
    if args.once and summary.failed:
        print(
            f"session-memory: error: the memory of {summary.failed} of {summary.transcripts} "
            "transcripts could not be written",
            file=sys.stderr,
        )
        return EXIT_UNWRITTEN
    return 0


def _run_until_stopped(service: MemoryService, stop: threading.Event) -> ServiceSummary:
    """Run the service until SIGINT or SIGTERM, which only set the stop event: the service
    finishes the line it is on, writes outputs and state, and returns."""
    import logging
    import signal

    def on_signal(signum: int, _frame: object) -> None:
        logging.getLogger(__name__).info("%s: stopping", signal.Signals(signum).name)
        stop.set()

    previous = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        return service.run()
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
