"""``derive`` and ``view``: the memory of one transcript, printed, or put into a model call."""

from __future__ import annotations

import argparse
import os
import stat
import sys
from collections.abc import Iterator
from typing import IO, TYPE_CHECKING

from session_memory.apps.cli.arguments import add_transcript_arguments
from session_memory.core.errors import BudgetError, TranscriptError

if TYPE_CHECKING:
    from deriver import SessionMemoryDeriver
    from session_memory.core.events import Record

    SubParsers = argparse._SubParsersAction[argparse.ArgumentParser]

__all__ = ["add_derive_parser", "add_view_parser", "open_records"]


def add_derive_parser(sub: SubParsers) -> None:
    """``derive PATH [--budget N] [--format F] [--json]``."""
    p = sub.add_parser("derive", help="derive the memory of one transcript and print it")
    add_transcript_arguments(p)
    p.add_argument("--json", action="store_true", help="print the SessionMemory as JSON")
    p.set_defaults(run=_run_derive)


def add_view_parser(sub: SubParsers) -> None:
    """``view PATH --system FILE [--history FILE] [--shape S] [--context-window N] ...``."""
    p = sub.add_parser(
        "view",
        help="derive the memory and print the messages of a model call as JSON, with a "
        "session_memory object (memory_tokens, memory_changed, total_tokens, dropped_messages)",
    )
    add_transcript_arguments(p)
    p.add_argument("--system", required=True, metavar="FILE", help="system prompt (text file)")
    p.add_argument(
        "--history",
        metavar="FILE",
        help="chat history: a JSON list of messages, or an object with a messages list",
    )
    p.add_argument("--shape", choices=("openai", "anthropic"), default="openai")
    p.add_argument("--context-window", type=int, metavar="N", help="fit the view into N tokens")
    p.add_argument(
        "--reserve-output", type=int, default=0, metavar="N", help="tokens kept for the answer"
    )
    p.set_defaults(run=_run_view)


def open_records(path: str, format: str = "auto") -> Iterator[Record]:
    """The records of a transcript named on the command line (``-`` is standard input), for
    a deriver to fold (see :func:`~session_memory.formats.read_transcript`)."""
    from session_memory.formats import read_transcript

    if path == "-":
        stdin: IO[bytes] = sys.stdin.buffer
        return read_transcript(stdin, format)
    _refuse_special(path)
    return read_transcript(path, format)


def _refuse_special(path: str) -> None:
    """A FIFO, socket or device named as a transcript: refused before ``open`` can block."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return  # reading reports a missing or unreadable file in its own words
    if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
        raise TranscriptError(
            f"{path!r} is not a regular file (a FIFO or device?); to read a stream, "
            "pipe it to standard input and name the transcript -"
        )


def _derive(args: argparse.Namespace) -> SessionMemoryDeriver:
    """The deriver of the transcript named by ``path``, ``--budget`` and ``--format``."""
    from deriver import SessionMemoryDeriver

    deriver = SessionMemoryDeriver(budget_tokens=args.budget)
    told = _FormatTold()
    deriver.apply_all(told.watch(open_records(args.path, args.format)))
    if told.unknown:
        where = "standard input" if args.path == "-" else repr(args.path)
        what = (
            "in no known transcript format (native, claude-code, codex)"
            if args.format == "auto"
            else f"no {args.format} transcript"
        )
        raise TranscriptError(
            f"{where} is {what}: {deriver.memory.diagnostics.lines_skipped} lines skipped"
        )
    return deriver


class _FormatTold:
    """Whether a transcript's records ever told its format: some event, not only skips (lines
    of no known shape, or no JSON lines at all: a pretty-printed JSON document)."""

    def __init__(self) -> None:
        self.events = 0
        self.skipped = 0

    @property
    def unknown(self) -> bool:
        return self.events == 0 and self.skipped > 0

    def watch(self, records: Iterator[Record]) -> Iterator[Record]:
        from session_memory.core.events import SkippedLine

        for record in records:
            if isinstance(record, SkippedLine):
                self.skipped += 1
            else:
                self.events += 1
            yield record


def _run_derive(args: argparse.Namespace) -> int:
    from viewbuilder import render_memory

    memory = _derive(args).memory
    if args.json:
        sys.stdout.buffer.write(memory.to_json())
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


def _run_view(args: argparse.Namespace) -> int:
    from viewbuilder import ViewInputError, build_model_view

    system_prompt = _read_system_prompt(args.system)
    history = [] if args.history is None else _read_history(args.history)
    if args.shape == "anthropic" and not history:
        # The Messages API rejects a request without messages; say so instead of printing one.
        raise ViewInputError(
            "the Anthropic shape needs at least one message: give the conversation with --history"
        )

    try:
        view = build_model_view(
            system_prompt,
            _derive(args).memory,
            history,  # type: ignore[arg-type]  # checked message by message by build_model_view
            shape=args.shape,
            context_window=args.context_window,
            reserve_output_tokens=args.reserve_output,
        )
    except BudgetError as exc:
        if args.context_window is None:
            raise
        raise BudgetError(f"--context-window {args.context_window} is too small: {exc}") from exc
    output = view.to_request()
    # Beside the request fields, under one key a caller drops before sending the request.
    output["session_memory"] = {
        "memory_tokens": view.memory_tokens,
        "memory_changed": view.memory_changed,
        "total_tokens": view.total_tokens,
        "dropped_messages": view.dropped_messages,
    }
    import orjson

    sys.stdout.buffer.write(orjson.dumps(output, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS))
    sys.stdout.buffer.write(b"\n")
    sys.stdout.flush()
    print(
        f"session-memory: {len(view.messages)} messages, ~{view.total_tokens} tokens "
        f"(system {view.system_tokens}, memory {view.memory_tokens}, "
        f"history {view.history_tokens}), {view.dropped_messages} history messages dropped",
        file=sys.stderr,
    )
    return 0


def _read_system_prompt(path: str) -> str:
    from viewbuilder import ViewInputError

    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except OSError as exc:
        raise ViewInputError(f"cannot read system prompt {path!r}: {exc.strerror}") from exc
    except UnicodeDecodeError as exc:
        raise ViewInputError(f"system prompt {path!r} is not UTF-8 text: {exc}") from exc


def _read_history(path: str) -> list[object]:
    """The history messages in a JSON file: a list, or an object with a ``messages`` list."""
    import orjson

    from viewbuilder import ViewInputError

    try:
        with open(path, "rb") as fb:
            data = orjson.loads(fb.read())
    except OSError as exc:
        raise ViewInputError(f"cannot read history {path!r}: {exc.strerror}") from exc
    except orjson.JSONDecodeError as exc:
        raise ViewInputError(f"history {path!r} is not valid JSON: {exc}") from exc
    if isinstance(data, dict) and isinstance(data.get("messages"), list):
        data = data["messages"]
    if not isinstance(data, list):
        raise ViewInputError(f"history {path!r} must be a JSON list of messages")
    return data
