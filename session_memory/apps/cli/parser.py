"""The parser of every command, and the entry point that runs one and maps its errors."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence

from session_memory.core.errors import SessionMemoryError

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from typing import Any

    SubParsers = argparse._SubParsersAction[argparse.ArgumentParser]

__all__ = ["EXIT_USAGE", "build_parser", "cli", "main"]

EXIT_USAGE = 2
"""Exit code for unusable input: a missing file, an unreadable one, a bad option."""

EXIT_INTERRUPTED = 130
"""Exit code after Ctrl-C, as a shell reports a process ended by SIGINT."""

EXIT_BROKEN_PIPE = 141
"""Exit code when the reader of standard output went away, as for SIGPIPE."""

if TYPE_CHECKING:
    Runner = Callable[[Any], int]
    """What a subcommand's parser sets as ``run``: the command, given its parsed arguments
    (an :class:`argparse.Namespace`, or the same names read without argparse for a hook
    call)."""

COMMANDS: dict[str, str] = {
    "derive": "session_memory.apps.cli.transcripts",
    "view": "session_memory.apps.cli.transcripts",
    "watch": "session_memory.apps.cli.watch",
    "hook": "session_memory.apps.cli.agents",
    "install": "session_memory.apps.cli.agents",
    "uninstall": "session_memory.apps.cli.agents",
    "mcp": "session_memory.apps.cli.agents",
    "publish": "session_memory.apps.distributed.cli",
    "worker": "session_memory.apps.distributed.cli",
    "get": "session_memory.apps.distributed.cli",
}
"""Every command, in the order ``--help`` lists them, and the module whose
``add_<command>_parser(sub)`` adds its subparser."""


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser of the whole command line, one subcommand per command; with ``command``
    (a known one), the parser with that subcommand alone.

    A hook call is a fresh process per event of the agent, within a budget of 60 ms of CPU
    and 4 times ``python -c pass`` when its state is current (``benchmarks/bench_startup.py``).
    Building the nine other subparsers and importing their modules took half a ``python -c
    pass`` of it (13.6 ms at a load of 7, interleaved: 99.9 ms against 86.3, ``python -c
    pass`` 25.2 ms), and with them the call was at 3.97 times, so :func:`main` builds only
    the subparser of the command it runs (and a hook call none: :func:`main`).
    """
    import argparse
    import importlib

    parser = argparse.ArgumentParser(
        prog="session-memory",
        description="Keep a small, always-current memory of a coding-agent session.",
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="log debug details")
    # Whether main configures logging for the command (the hook keeps its own log).
    parser.set_defaults(logs=True)
    sub = parser.add_subparsers(dest="command", required=True)
    for name in [command] if command in COMMANDS else COMMANDS:
        add_parser: Callable[[SubParsers], None] = getattr(
            importlib.import_module(COMMANDS[name]), f"add_{name}_parser"
        )
        add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command named in ``argv`` (default: this process's arguments); its exit code.

    A :class:`SessionMemoryError` is one line on stderr and exit code 2; argparse exits 2
    itself on a bad command line. The command line of a hook call, as ``install`` writes it,
    is read without argparse (:func:`~session_memory.apps.cli.agents.hook_arguments`).
    """
    argv = sys.argv[1:] if argv is None else list(argv)
    # The command is the first argument that is not an option (there is no option with a
    # value before it); anything else gets the whole parser, to explain what is wrong.
    command = next((arg for arg in argv if not arg.startswith("-")), None)
    args: Any = None
    if command == "hook":
        from session_memory.apps.cli.agents import hook_arguments

        args = hook_arguments(argv)
    if args is None:
        args = build_parser(command).parse_args(argv)
    if args.logs:
        _configure_logging(verbose=args.verbose)
    run: Runner = args.run
    try:
        return run(args)
    except SessionMemoryError as exc:
        print(f"session-memory: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # The reader went away (`... | head`): not an error of ours, and no traceback.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_BROKEN_PIPE


def cli(*args: str) -> int:
    """Run the command line with plain string arguments (for tests and embedding)."""
    return main(list(args))


def _configure_logging(*, verbose: bool) -> None:
    import logging

    logging.basicConfig(
        level=logging.DEBUG if verbose else logging.INFO,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        stream=sys.stderr,
    )
