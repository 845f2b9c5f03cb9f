"""The ``session-memory`` command line: a thin adapter over the library.

It parses arguments, configures logging, calls the library, and maps every
:class:`SessionMemoryError` to one line on stderr and a non-zero exit code.
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import IO

import orjson

from session_memory.errors import SessionMemoryError
from session_memory.reader import Record, read_records

__all__ = ["cli", "main"]

EXIT_USAGE = 2
"""Exit code for unusable input: a missing file, an unreadable one, a bad option."""

Runner = Callable[[argparse.Namespace], int]


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the console script."""
    parser = _build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.INFO,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        stream=sys.stderr,
    )
    run: Runner = args.run
    try:
        return run(args)
    except SessionMemoryError as exc:
        print(f"session-memory: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 130


def cli(*args: str) -> int:
    """Run the command line with plain string arguments (for tests and embedding)."""
    return main(list(args))


def _build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="session-memory",
        description="Keep a small, always-current memory of a coding-agent session.",
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="log debug details")
    sub = parser.add_subparsers(dest="command", required=True)
    _add_derive_parser(sub)
    _add_watch_parser(sub)
    return parser


def _add_budget_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--budget", type=int, default=1200, metavar="N", help="token budget (default 1200)"
    )


def _add_derive_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("derive", help="derive the memory of one transcript and print it")
    p.add_argument("path", help="transcript file (JSONL), or - for standard input")
    _add_budget_argument(p)
    p.add_argument("--json", action="store_true", help="print the SessionMemory as JSON")
    p.set_defaults(run=_run_derive)


def open_records(path: str) -> Iterator[Record]:
    """The records of a transcript named on the command line (``-`` is standard input)."""
    if path == "-":
        stdin: IO[bytes] = sys.stdin.buffer
        return read_records(stdin)
    return read_records(path)


def _run_derive(args: argparse.Namespace) -> int:
    from deriver import SessionMemoryDeriver
    from viewbuilder import render_memory

    deriver = SessionMemoryDeriver(budget_tokens=args.budget)
    deriver.apply_all(open_records(args.path))
    memory = deriver.memory
    if args.json:
        sys.stdout.buffer.write(
            orjson.dumps(memory.model_dump(mode="json"), option=orjson.OPT_INDENT_2)
        )
        sys.stdout.buffer.write(b"\n")
    else:
        sys.stdout.write(render_memory(memory))
    sys.stdout.flush()
    print(
        f"session-memory: {memory.event_count} events applied, "
        f"{memory.diagnostics.lines_skipped} lines skipped, "
        f"{memory.tokens_used}/{memory.budget_tokens} tokens",
        file=sys.stderr,
    )
    return 0


def _add_watch_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "watch",
        help="keep <session>.memory.json and .memory.md current as transcripts grow",
    )
    p.add_argument(
        "paths", nargs="+", metavar="PATH", help="transcript file, or directory watched for *.jsonl"
    )
    p.add_argument("--out", default=".", metavar="DIR", help="output directory (default .)")
    p.add_argument(
        "--state",
        default=None,
        metavar="DIR",
        help="state directory (default OUT/.session-memory-state)",
    )
    _add_budget_argument(p)
    p.add_argument("--once", action="store_true", help="derive everything present and exit")
    p.set_defaults(run=_run_watch)


def _run_watch(args: argparse.Namespace) -> int:
    import signal
    import threading

    from session_memory.service import MemoryService

    stop = threading.Event()
    service = MemoryService(
        args.paths, args.out, args.state, budget_tokens=args.budget, stop_event=stop
    )
    if args.once:
        summary = service.run_once()
    else:
        # SIGINT and SIGTERM only set the stop event: the service finishes the line it is
        # on, writes outputs and state, and returns; exit status 0.
        def on_signal(signum: int, _frame: object) -> None:
            logging.getLogger(__name__).info("%s: stopping", signal.Signals(signum).name)
            stop.set()

        previous = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGINT, signal.SIGTERM)}
        try:
            summary = service.run()
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)
    print(
        f"session-memory: {summary.transcripts} transcripts, {summary.events} events read, "
        f"{summary.skipped} lines skipped, {summary.outputs_written} outputs written",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
