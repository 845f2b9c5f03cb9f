"""``hook``, ``install``, ``uninstall`` and ``mcp``: the memory inside the coding agents."""

from __future__ import annotations

import os
import sys
from types import SimpleNamespace

from session_memory.apps.cli.arguments import (
    NATS_PREFIX,
    NATS_TIMEOUT,
    add_budget_argument,
    add_nats_read_arguments,
)
from session_memory.apps.hook import CLIENTS, ON_CLEAR_CHOICES, HookConfig
from session_memory.core.startup import read_options
from session_memory.core.tokens import DEFAULT_BUDGET

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable
    from typing import Any

    from session_memory.apps.install import InstallOptions

    SubParsers = argparse._SubParsersAction[argparse.ArgumentParser]

__all__ = [
    "add_hook_parser",
    "add_install_parser",
    "add_mcp_parser",
    "add_uninstall_parser",
    "hook_arguments",
]

_ON_CLEAR_DEFAULT: str = HookConfig._field_defaults["on_clear"]

_HOOK_OPTIONS: dict[str, Callable[[str], object] | tuple[str, ...]] = {
    "--client": CLIENTS,
    "--state-dir": str,
    "--budget": int,
    "--on-clear": ON_CLEAR_CHOICES,
    "--nats": str,
    "--nats-prefix": str,
    "--nats-timeout": float,
}
"""The options of ``hook`` (:func:`add_hook_parser`), each with its ``type`` or ``choices``."""


def add_hook_parser(sub: SubParsers) -> None:
    """``hook [--client C] [--state-dir DIR] [--budget N] [--on-clear O] [--nats URL ...]``."""
    p = sub.add_parser(
        "hook",
        help="SessionStart / UserPromptSubmit hook for Claude Code and Codex (JSON on stdin)",
        description="Read a hook event on standard input and print the memory to inject. "
        "Any failure prints nothing, exits 0 and logs one line in STATE_DIR/hook.log.",
    )
    p.add_argument("--client", choices=CLIENTS, help="default: detected from the input")
    p.add_argument(
        "--state-dir",
        metavar="DIR",
        help="memory and state directory, shared with `watch --out DIR` "
        "(default $SESSION_MEMORY_STATE_DIR, else ~/.cache/session-memory)",
    )
    add_budget_argument(p)
    p.add_argument(
        "--on-clear",
        choices=ON_CLEAR_CHOICES,
        default=_ON_CLEAR_DEFAULT,
        help="after /clear: inject nothing (default), or carry over the memory of the most "
        "recent other session of the same directory",
    )
    add_nats_read_arguments(p)
    # The hook logs its failures to STATE_DIR/hook.log, never to stderr.
    p.set_defaults(run=_run_hook, logs=False)


def hook_arguments(argv: list[str]) -> SimpleNamespace | None:
    """The arguments of ``hook`` as the whole parser gives them, read without argparse
    (:func:`~session_memory.core.startup.read_options` says why); None when ``argv`` is not
    ``hook`` followed by options of :data:`_HOOK_OPTIONS` that it reads."""
    if argv[:1] != ["hook"]:
        return None
    read = read_options(argv[1:], _HOOK_OPTIONS)
    if read is None:
        return None
    defaults = {
        "verbose": False,
        "logs": False,
        "command": "hook",
        "client": None,
        "state_dir": None,
        "budget": DEFAULT_BUDGET,
        "on_clear": _ON_CLEAR_DEFAULT,
        "nats": None,
        "nats_prefix": NATS_PREFIX,
        "nats_timeout": NATS_TIMEOUT,
        "run": _run_hook,
    }
    return SimpleNamespace(**{**defaults, **read})


def add_install_parser(sub: SubParsers) -> None:
    """``install CLIENT [--scope S] [--project DIR] [--dry-run]`` and the hook's options."""
    p = _add_client_config_parser(sub, "install", "add the hook to")
    _add_installed_hook_arguments(p)
    p.set_defaults(run=_run_install)


def add_uninstall_parser(sub: SubParsers) -> None:
    """``uninstall CLIENT [--scope S] [--project DIR] [--dry-run]``."""
    p = _add_client_config_parser(sub, "uninstall", "remove the hook from")
    p.set_defaults(run=_run_uninstall)


def _add_client_config_parser(sub: SubParsers, name: str, does: str) -> argparse.ArgumentParser:
    what = f"{does} Claude Code's or Codex's configuration"
    p = sub.add_parser(name, help=what, description=what)
    p.add_argument("client", choices=CLIENTS)
    p.add_argument("--scope", choices=("user", "project"), default="user")
    p.add_argument(
        "--project", metavar="DIR", help="project directory for --scope project (default .)"
    )
    p.add_argument("--dry-run", action="store_true", help="print the diff, change nothing")
    return p


def _add_installed_hook_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--on-prompt",
        action="store_true",
        help="also inject on UserPromptSubmit when the memory changed",
    )
    p.add_argument(
        "--on-clear",
        choices=ON_CLEAR_CHOICES,
        default=_ON_CLEAR_DEFAULT,
        help="after /clear, carry over the previous session's memory",
    )
    p.add_argument("--state-dir", metavar="DIR", help="passed on to the hook")
    p.add_argument("--budget", type=int, metavar="N", help="passed on to the hook")
    p.add_argument("--codex", metavar="PATH", help="the codex executable (trust step)")


def add_mcp_parser(sub: SubParsers) -> None:
    """``mcp [--state-dir DIR] [--nats URL ...]``."""
    p = sub.add_parser(
        "mcp",
        help="serve the known sessions' memories over MCP (stdio); needs the mcp extra",
    )
    p.add_argument(
        "--state-dir",
        metavar="DIR",
        help="memory directory, as for `hook` (default ~/.cache/session-memory)",
    )
    add_nats_read_arguments(p)
    p.set_defaults(run=_run_mcp)


def _run_hook(args: argparse.Namespace | SimpleNamespace) -> int:
    from session_memory.apps.hook import hook_main
    from session_memory.apps.memory_dir.current import default_memory_dir

    config = HookConfig(
        memory_dir=os.path.expanduser(args.state_dir) if args.state_dir else default_memory_dir(),
        budget_tokens=args.budget,
        client=args.client,
        on_clear=args.on_clear,
        remote=_remote_reader(args) if args.nats else None,
    )
    return hook_main(sys.stdin.buffer, sys.stdout.buffer, config)


def _remote_reader(args: argparse.Namespace | SimpleNamespace) -> Any:
    """How ``hook --nats`` reads a transcript's memory (NATS and asyncio imported only here)."""
    import functools

    from session_memory.apps.distributed.remote import current_remote

    return functools.partial(
        current_remote, args.nats, prefix=args.nats_prefix, timeout=args.nats_timeout
    )


def _run_install(args: argparse.Namespace) -> int:
    import dataclasses
    from pathlib import Path

    from session_memory.apps.install import run_install

    hook_args: list[str] = []
    if args.on_clear != _ON_CLEAR_DEFAULT:
        hook_args += ["--on-clear", args.on_clear]
    if args.state_dir:
        hook_args += ["--state-dir", str(Path(args.state_dir).expanduser().absolute())]
    if args.budget is not None:
        hook_args += ["--budget", str(args.budget)]
    options = dataclasses.replace(
        _install_options(args),
        on_prompt=args.on_prompt,
        hook_args=tuple(hook_args),
        codex=args.codex,
    )
    return _print_lines(run_install(options))


def _run_uninstall(args: argparse.Namespace) -> int:
    from session_memory.apps.install import run_uninstall

    return _print_lines(run_uninstall(_install_options(args)))


def _install_options(args: argparse.Namespace) -> InstallOptions:
    """The options ``install`` and ``uninstall`` share."""
    from pathlib import Path

    from session_memory.apps.install import InstallOptions

    return InstallOptions(
        client=args.client,
        scope=args.scope,
        project=Path(args.project).absolute() if args.project else None,
        dry_run=args.dry_run,
    )


def _print_lines(lines: list[str]) -> int:
    for line in lines:
        print(line)
    return 0


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
    memory_dir = Path(args.state_dir).expanduser() if args.state_dir else Path(default_memory_dir())
    serve(memory_dir)
    return 0
