"""The ``session-memory`` command line: a thin adapter over the library.

It parses arguments with argparse (one subcommand per command), configures logging, calls
the library, and maps every :class:`~session_memory.core.errors.SessionMemoryError` to one
line on stderr and a non-zero exit code. The modules, one per group of commands:

- :mod:`.parser`: the parser, ``main`` and ``cli``, the mapping of errors to exit codes;
- :mod:`.arguments`: the options several commands share (budget, format, NATS reads);
- :mod:`.transcripts`: ``derive`` and ``view``, on one transcript;
- :mod:`.watch`: ``watch``, the service;
- :mod:`.agents`: ``hook``, ``install``, ``uninstall`` and ``mcp``, for the coding agents;
- ``publish``, ``worker`` and ``get`` live with the distributed fold
  (:mod:`session_memory.apps.distributed.cli`).

Each command imports what it needs when it runs: ``--help`` and a hook call whose state is
current load neither the pydantic models, nor tiktoken, nor watchfiles, nor the deriver.
"""

from __future__ import annotations

from session_memory.apps.cli.parser import EXIT_USAGE, build_parser, cli, main

__all__ = ["EXIT_USAGE", "build_parser", "cli", "main"]
