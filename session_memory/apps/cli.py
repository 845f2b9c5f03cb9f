"""The ``session-memory`` command line: a thin adapter over the library.

It parses arguments, configures logging, calls the library, and maps every
:class:`SessionMemoryError` to one line on stderr and a non-zero exit code. Each command
imports what it needs when it runs, so ``--help`` and a hook call whose state is current
load neither the pydantic models, nor tiktoken, nor watchfiles.

A plain ``hook`` call (a fresh process per event of the agent) does not even build the
argparse parser: :func:`_hook_options` reads its few options by hand, and anything else
(``--help``, an abbreviation, a bad value) goes to argparse, which then parses, explains and
fails as for every command. Nothing at the top of this module imports :mod:`typing` or
:mod:`argparse`.
"""

from __future__ import annotations

import os
import stat
import sys

from session_memory.apps.memory_dir.typed_tuple import NamedTuple
from session_memory.core.errors import BudgetError, SessionMemoryError, TranscriptError

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable, Iterator, Sequence
    from typing import IO, Any, Final, NoReturn

    from deriver import SessionMemoryDeriver
    from session_memory.apps.hook import ClientName, OnClear
    from session_memory.core.event_struct import FoldRecord

    _SubParsers = argparse._SubParsersAction[argparse.ArgumentParser]
    Runner = Callable[[argparse.Namespace], int]

__all__ = ["add_format_argument", "cli", "main", "open_records"]

EXIT_USAGE = 2
"""Exit code for unusable input: a missing file, an unreadable one, a bad option."""

EXIT_UNWRITTEN = 1
"""Exit code of ``watch --once`` when some memory could not be written."""

# Defaults shared by the parsers and by a hook call read without them (_HookOptions).
_BUDGET = 1200
_NATS_PREFIX = "smem"
_NATS_TIMEOUT = 2.0


_ENDS_ITS_PROCESS: Final = frozenset({"derive", "view"})
"""Commands after which a process of their own has nothing left to do: it ends without
tearing the interpreter down (~150 ms of a ``derive`` of one line)."""


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the console script (``argv`` None: this process is the command's)."""
    own_process = argv is None
    argv = sys.argv[1:] if argv is None else list(argv)
    command = _command_of(argv)
    code = _main(argv, own_process)
    if own_process and command in _ENDS_ITS_PROCESS:
        _exit_now(code)
    return code


def _main(argv: list[str], own_process: bool) -> int:
    hook_options = _hook_options(argv)
    try:
        if hook_options is not None:
            return _hook_process(hook_options) if own_process else _hook(hook_options)
        return _parse_and_run(argv)
    except SessionMemoryError as exc:
        print(f"session-memory: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader went away (`... | head`): not an error of ours, and no traceback.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141


def _parse_and_run(argv: list[str]) -> int:
    args = _build_parser(_command_of(argv)).parse_args(argv)
    if args.logs:
        import logging

        logging.basicConfig(
            level=logging.DEBUG if args.verbose else logging.INFO,
            format="%(asctime)s %(levelname)s %(name)s: %(message)s",
            stream=sys.stderr,
        )
    run: Runner = args.run
    return run(args)


def cli(*args: str) -> int:
    """Run the command line with plain string arguments (for tests and embedding)."""
    return main(list(args))


def _build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser of every command, or of ``command`` alone when it is a known one: each
    subparser costs start-up time, and a hook call needs only its own."""
    import argparse

    parser = argparse.ArgumentParser(
        prog="session-memory",
        description="Keep a small, always-current memory of a coding-agent session.",
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="log debug details")
    # Whether main configures logging for the command (the hook keeps its own log).
    parser.set_defaults(logs=True)
    sub = parser.add_subparsers(dest="command", required=True)
    only = _SUBCOMMANDS.get(command or "")
    for add in [only] if only else dict.fromkeys(_SUBCOMMANDS.values()):
        add(sub)
    return parser


def _command_of(argv: Sequence[str]) -> str | None:
    """The subcommand named in ``argv``: its first argument that is not an option."""
    return next((arg for arg in argv if not arg.startswith("-")), None)


def _add_budget_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--budget", type=int, default=_BUDGET, metavar="N", help=f"token budget (default {_BUDGET})"
    )


def add_format_argument(parser: argparse.ArgumentParser) -> None:
    """Add ``--format auto|native|claude-code|codex`` (default auto) to a subcommand."""
    from session_memory.formats.names import FORMAT_CHOICES

    parser.add_argument(
        "--format",
        choices=FORMAT_CHOICES,
        default="auto",
        help="transcript format (default auto: detected from the first records)",
    )


def _add_transcript_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", help="transcript file (JSONL), or - for standard input")
    _add_budget_argument(parser)
    add_format_argument(parser)


def _derive(args: argparse.Namespace) -> SessionMemoryDeriver:
    """The deriver of the transcript named by ``path``, ``--budget`` and ``--format``: its
    ``memory_view`` is all that printing the memory needs, without the public model."""
    from deriver import SessionMemoryDeriver

    deriver = SessionMemoryDeriver(budget_tokens=args.budget)
    told = _FormatTold()
    deriver.apply_all(told.watch(open_records(args.path, args.format)))
    if told.unknown:
        where = "standard input" if args.path == "-" else repr(args.path)
        raise TranscriptError(
            f"{where} is in no known transcript format (native, claude-code, codex): "
            f"{deriver.memory_view.diagnostics.lines_skipped} lines skipped"
        )
    return deriver


class _FormatTold:
    """Whether a transcript's records ever told its format: some event, not only skips."""

    def __init__(self) -> None:
        self.events = 0
        self.untold = 0

    @property
    def unknown(self) -> bool:
        return self.events == 0 and self.untold > 0

    def watch(self, records: Iterator[FoldRecord]) -> Iterator[FoldRecord]:
        from session_memory.core.memory_view import SkippedLine
        from session_memory.formats import NO_KNOWN_FORMAT

        for record in records:
            if isinstance(record, SkippedLine):
                self.untold += record.reason == NO_KNOWN_FORMAT
            else:
                self.events += 1
            yield record


def _add_derive_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("derive", help="derive the memory of one transcript and print it")
    _add_transcript_arguments(p)
    p.add_argument("--json", action="store_true", help="print the SessionMemory as JSON")
    p.set_defaults(run=_run_derive)


def open_records(path: str, format: str = "auto") -> Iterator[FoldRecord]:
    """The records of a transcript named on the command line (``-`` is standard input), for
    a deriver to fold (see :func:`~session_memory.formats.read_fold_records`)."""
    from session_memory.formats import read_fold_records

    if path == "-":
        stdin: IO[bytes] = sys.stdin.buffer
        return read_fold_records(stdin, format)
    _refuse_special(path)
    return read_fold_records(path, format)


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


def _run_derive(args: argparse.Namespace) -> int:
    from viewbuilder import render_memory

    memory = _derive(args).memory_view
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


def _add_view_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "view",
        help="derive the memory and print the messages of a model call as JSON, with a "
        "session_memory object (memory_tokens, memory_changed, total_tokens, dropped_messages)",
    )
    _add_transcript_arguments(p)
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


def _run_view(args: argparse.Namespace) -> int:
    from viewbuilder import ViewInputError, build_model_view

    try:
        with open(args.system, encoding="utf-8") as f:
            system_prompt = f.read()
    except OSError as exc:
        raise ViewInputError(f"cannot read system prompt {args.system!r}: {exc.strerror}") from exc
    except UnicodeDecodeError as exc:
        raise ViewInputError(f"system prompt {args.system!r} is not UTF-8 text: {exc}") from exc
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


def _add_watch_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
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
    _add_budget_argument(p)
    add_format_argument(p)
    p.add_argument("--once", action="store_true", help="derive everything present and exit")
    p.set_defaults(run=_run_watch)


def _run_watch(args: argparse.Namespace) -> int:
    import signal
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
    if args.once:
        summary = service.run_once()
    else:
        # SIGINT and SIGTERM only set the stop event: the service finishes the line it is
        # on, writes outputs and state, and returns; exit status 0.
        def on_signal(signum: int, _frame: object) -> None:
            import logging

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
    if args.once and summary.failed:
        print(
            f"session-memory: error: the memory of {summary.failed} of {summary.transcripts} "
            "transcripts could not be written",
            file=sys.stderr,
        )
        return EXIT_UNWRITTEN
    return 0


def _add_publish_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from session_memory.apps.distributed.cli import add_publish_parser

    add_publish_parser(sub, add_format_argument)


def _add_worker_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from session_memory.apps.distributed.cli import add_worker_parser

    add_worker_parser(sub)


def _add_get_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from session_memory.apps.distributed.cli import add_get_parser

    add_get_parser(sub)


def _add_hook_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "hook",
        help="SessionStart / UserPromptSubmit hook for Claude Code and Codex (JSON on stdin)",
        description="Read a hook event on standard input and print the memory to inject. "
        "Any failure prints nothing, exits 0 and logs one line in STATE_DIR/hook.log.",
    )
    from session_memory.apps.hook import CLIENTS, ON_CLEAR_CHOICES

    p.add_argument("--client", choices=CLIENTS, help="default: detected from the input")
    p.add_argument(
        "--state-dir",
        metavar="DIR",
        help="memory and state directory, shared with `watch --out DIR` "
        "(default $SESSION_MEMORY_STATE_DIR, else ~/.cache/session-memory)",
    )
    _add_budget_argument(p)
    p.add_argument(
        "--on-clear",
        choices=ON_CLEAR_CHOICES,
        default=_HookOptions().on_clear,
        help="after /clear: inject nothing (default), or carry over the memory of the most "
        "recent other session of the same directory",
    )
    _add_nats_read_arguments(p)
    p.set_defaults(run=_run_hook, logs=False)


def _add_nats_read_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--nats",
        metavar="URL",
        help="read memories from the bucket the NATS workers keep instead of deriving here "
        "(a session is its transcript's file name without .jsonl)",
    )
    p.add_argument(
        "--nats-prefix", default=_NATS_PREFIX, metavar="P", help="as the workers' --prefix"
    )
    p.add_argument(
        "--nats-timeout",
        type=float,
        default=_NATS_TIMEOUT,
        metavar="S",
        help="give up after S seconds",
    )


class _HookOptions(NamedTuple):
    """The options of ``session-memory hook``, from argparse or from :func:`_hook_options`;
    the defaults are the parser's."""

    client: ClientName | None = None
    state_dir: str | None = None
    budget: int = _BUDGET
    on_clear: OnClear = "nothing"
    nats: str | None = None
    nats_prefix: str = _NATS_PREFIX
    nats_timeout: float = _NATS_TIMEOUT


def _hook_options(argv: Sequence[str]) -> _HookOptions | None:
    """The options of a plain ``hook`` call, read without argparse; None to use argparse.

    Only ``hook`` followed by its own options, each named in full (``--opt value`` or
    ``--opt=value``) with a value argparse accepts, is read here, into the values argparse
    gives for them. Anything else (another command, ``--help``, an abbreviation, an unknown
    option, a missing or refused value, a value starting with ``-``) returns None, and
    argparse parses it, with its own messages and exit code.
    """
    if not argv or argv[0] != "hook":
        return None
    options = _HookOptions()
    args = iter(argv[1:])
    for arg in args:
        flag, eq, text = arg.partition("=")
        if not eq:
            text = next(args, "-")
            if text.startswith("-"):
                return None
        elif not text:
            return None
        changed = _with_hook_option(options, flag, text)
        if changed is None:
            return None
        options = changed
    return options


def _with_hook_option(options: _HookOptions, flag: str, text: str) -> _HookOptions | None:
    """``options`` with ``flag`` set to ``text`` as argparse converts it; None when argparse
    would not accept it (or the flag is none of the hook's)."""
    from session_memory.apps.hook import CLIENTS, ON_CLEAR_CHOICES

    try:
        if flag == "--budget":
            return options._replace(budget=int(text))
        if flag == "--nats-timeout":
            return options._replace(nats_timeout=float(text))
    except ValueError:
        return None
    if flag == "--client":
        client = next((c for c in CLIENTS if c == text), None)
        return options._replace(client=client) if client else None
    if flag == "--on-clear":
        on_clear = next((c for c in ON_CLEAR_CHOICES if c == text), None)
        return options._replace(on_clear=on_clear) if on_clear else None
    if flag == "--state-dir":
        return options._replace(state_dir=text)
    if flag == "--nats":
        return options._replace(nats=text)
    if flag == "--nats-prefix":
        return options._replace(nats_prefix=text)
    return None


def _run_hook(args: argparse.Namespace) -> int:
    return _hook(
        _HookOptions(
            client=args.client,
            state_dir=args.state_dir,
            budget=args.budget,
            on_clear=args.on_clear,
            nats=args.nats,
            nats_prefix=args.nats_prefix,
            nats_timeout=args.nats_timeout,
        )
    )


def _hook(options: _HookOptions) -> int:
    from session_memory.apps.hook import HookConfig, hook_main
    from session_memory.apps.memory_dir.current import default_memory_path

    config = HookConfig(
        memory_dir=(
            os.path.expanduser(options.state_dir) if options.state_dir else default_memory_path()
        ),
        budget_tokens=options.budget,
        client=options.client,
        on_clear=options.on_clear,
        remote=_remote_reader(options.nats, options) if options.nats else None,
    )
    return hook_main(sys.stdin.buffer, sys.stdout.buffer, config)


def _hook_process(options: _HookOptions) -> NoReturn:
    """A hook call that owns its process, which lives for one event and ends with it.

    The cyclic garbage collector is off: reference counting frees what a fold allocates,
    and the collections its allocations triggered found next to nothing to free (~2% of
    a cold call). The process ends with :func:`os._exit` once its output is flushed:
    tearing the interpreter down (every module, the tokenizer's 100,000 ranks, a last
    collection) was ~10% of a cold call, and nothing is left to do at exit: the hook's
    writes are done, its log closed and its writer threads joined when it returns.
    """
    import gc

    gc.disable()
    _exit_now(_hook(options))


def _exit_now(code: int) -> NoReturn:
    """End this process once its output is flushed, without tearing the interpreter down."""
    for stream in (sys.stdout, sys.stderr):
        try:  # noqa: SIM105 - a hook call does not import contextlib
            stream.flush()
        except (OSError, ValueError):  # closed, or the reader went away
            pass
    os._exit(code)


def _remote_reader(url: str, options: _HookOptions) -> Any:
    """How ``hook --nats`` reads a transcript's memory (NATS and asyncio imported only here)."""
    import functools

    from session_memory.apps.distributed.remote import current_remote

    return functools.partial(
        current_remote, url, prefix=options.nats_prefix, timeout=options.nats_timeout
    )


def _add_install_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from session_memory.apps.hook import CLIENTS, ON_CLEAR_CHOICES

    for name, what in (
        ("install", "add the hook to Claude Code's or Codex's configuration"),
        ("uninstall", "remove the hook from Claude Code's or Codex's configuration"),
    ):
        p = sub.add_parser(name, help=what, description=what)
        p.add_argument("client", choices=CLIENTS)
        p.add_argument("--scope", choices=("user", "project"), default="user")
        p.add_argument(
            "--project", metavar="DIR", help="project directory for --scope project (default .)"
        )
        p.add_argument("--dry-run", action="store_true", help="print the diff, change nothing")
        if name == "install":
            p.add_argument(
                "--on-prompt",
                action="store_true",
                help="also inject on UserPromptSubmit when the memory changed",
            )
            p.add_argument(
                "--on-clear",
                choices=ON_CLEAR_CHOICES,
                default=_HookOptions().on_clear,
                help="after /clear, carry over the previous session's memory",
            )
            p.add_argument("--state-dir", metavar="DIR", help="passed on to the hook")
            p.add_argument("--budget", type=int, metavar="N", help="passed on to the hook")
            p.add_argument("--codex", metavar="PATH", help="the codex executable (trust step)")
        p.set_defaults(run=_run_install)


def _run_install(args: argparse.Namespace) -> int:
    from pathlib import Path

    from session_memory.apps.install import InstallOptions, run_install, run_uninstall

    hook_args: list[str] = []
    if getattr(args, "on_clear", "nothing") != "nothing":
        hook_args += ["--on-clear", args.on_clear]
    if getattr(args, "state_dir", None):
        hook_args += ["--state-dir", str(Path(args.state_dir).expanduser().absolute())]
    if getattr(args, "budget", None) is not None:
        hook_args += ["--budget", str(args.budget)]
    options = InstallOptions(
        client=args.client,
        scope=args.scope,
        project=Path(args.project).absolute() if args.project else None,
        dry_run=args.dry_run,
        on_prompt=getattr(args, "on_prompt", False),
        hook_args=tuple(hook_args),
        codex=getattr(args, "codex", None),
    )
    lines = (run_install if args.command == "install" else run_uninstall)(options)
    for line in lines:
        print(line)
    return 0


def _add_mcp_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "mcp",
        help="serve the known sessions' memories over MCP (stdio); needs the mcp extra",
    )
    p.add_argument(
        "--state-dir",
        metavar="DIR",
        help="memory directory, as for `hook` (default ~/.cache/session-memory)",
    )
    _add_nats_read_arguments(p)
    p.set_defaults(run=_run_mcp)


def _run_mcp(args: argparse.Namespace) -> int:
    import importlib.util
    from pathlib import Path

    from session_memory.apps.mcp_server import serve, serve_remote
    from session_memory.apps.memory_dir.current import default_memory_dir
    from session_memory.core.errors import ConfigError

    if importlib.util.find_spec("mcp") is None:
        raise ConfigError("session-memory mcp needs the MCP SDK: install session-memory[mcp]")
    if args.nats is not None:
        from session_memory.apps.distributed.remote import RemoteMemories

        serve_remote(RemoteMemories(args.nats, prefix=args.nats_prefix, timeout=args.nats_timeout))
        return 0
    memory_dir = Path(args.state_dir).expanduser() if args.state_dir else default_memory_dir()
    serve(memory_dir)
    return 0


_SUBCOMMANDS: dict[str, Callable[[_SubParsers], None]] = {
    "derive": _add_derive_parser,
    "view": _add_view_parser,
    "watch": _add_watch_parser,
    "hook": _add_hook_parser,
    "install": _add_install_parsers,
    "uninstall": _add_install_parsers,
    "mcp": _add_mcp_parser,
    "publish": _add_publish_parser,
    "worker": _add_worker_parser,
    "get": _add_get_parser,
}
"""Each command's parser; install and uninstall share one adder, which adds both."""


if __name__ == "__main__":
    sys.exit(main())
