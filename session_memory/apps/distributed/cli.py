"""``session-memory publish``, ``worker`` and ``get``: the command line of the distributed fold.

Parsers are built without importing the NATS client, so the core command line works
without the ``nats`` extra; the commands import it when they run. Building them imports
neither asyncio nor logging either (with ssl, socket and the rest they cost every command,
``hook`` included, a tenth of a second): each command imports them when it runs.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from session_memory.apps.cli.arguments import (
    NATS_PREFIX,
    add_budget_argument,
    add_format_argument,
)
from session_memory.core.errors import (
    ConfigError,
    MemoryNotFound,
    TranscriptError,
    TransportError,
)

__all__ = [
    "add_get_parser",
    "add_publish_parser",
    "add_worker_parser",
    "read_memory",
]

if TYPE_CHECKING:
    SubParsers = argparse._SubParsersAction[argparse.ArgumentParser]


def _add_nats_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--nats",
        required=True,
        metavar="URL",
        help="NATS server URL(s), comma-separated (nats://127.0.0.1:4222)",
    )
    p.add_argument("--prefix", default=NATS_PREFIX, help="name prefix of stream and buckets")
    p.add_argument(
        "--replicas", type=int, default=1, metavar="N", help="replicas of stream and buckets"
    )
    p.add_argument(
        "--partitions",
        type=int,
        default=16,
        metavar="N",
        help="partitions, when this creates the stream (default 16)",
    )


def _add_log_argument(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--log-format", choices=("json", "text"), default="json", help="log lines (default json)"
    )


def add_publish_parser(sub: SubParsers) -> None:
    """``publish PATH... --nats URL``: tail transcripts and publish their events."""
    p = sub.add_parser("publish", help="tail transcripts and publish their events to NATS")
    p.add_argument("paths", nargs="+", metavar="PATH", help="transcript file or directory")
    _add_nats_arguments(p)
    p.add_argument(
        "--state",
        default=".session-memory-publish-state",
        metavar="DIR",
        help="where the publisher keeps its offsets",
    )
    add_format_argument(p)
    p.add_argument("--once", action="store_true", help="publish everything present and exit")
    _add_log_argument(p)
    p.set_defaults(run=_run_publish)


def add_worker_parser(sub: SubParsers) -> None:
    """``worker --nats URL``: fold the sessions of the partitions this worker claims."""
    p = sub.add_parser("worker", help="fold sessions from NATS into memories kept in NATS")
    _add_nats_arguments(p)
    add_budget_argument(p)
    p.add_argument(
        "--lease-seconds", type=float, default=3.0, metavar="S", help="claims expire after S"
    )
    p.add_argument(
        "--snapshot-every", type=int, default=1000, metavar="N", help="state written every N"
    )
    p.add_argument(
        "--metrics", type=float, default=0.0, metavar="S", help="print a metrics line every S"
    )
    _add_log_argument(p)
    p.set_defaults(run=_run_worker)


def add_get_parser(sub: SubParsers) -> None:
    """``get SESSION --nats URL [--json]``: print a session's memory from the bucket."""
    p = sub.add_parser("get", help="print a session's memory from NATS")
    p.add_argument("session", help="session (a transcript's file name without .jsonl)")
    _add_nats_arguments(p)
    p.add_argument("--json", action="store_true", help="print the SessionMemory as JSON")
    p.set_defaults(run=_run_get)


def _structured_logs(args: argparse.Namespace) -> None:
    if getattr(args, "log_format", "text") != "json":
        return
    import logging

    from session_memory.apps.distributed.logs import JsonFormatter

    for handler in logging.getLogger().handlers:
        handler.setFormatter(JsonFormatter())


async def _connect(args: argparse.Namespace, **kw: Any) -> Any:
    try:
        from session_memory.apps.distributed.jetstream import connect
    except ImportError as exc:  # the extra is not installed
        raise ConfigError(
            "the NATS commands need the nats extra: pip install 'session-memory[nats]'"
        ) from exc
    return await connect(
        args.nats,
        prefix=args.prefix,
        partitions=args.partitions,
        replicas=args.replicas,
        **kw,
    )


def _on_signals(callback: Callable[[], None]) -> None:
    import asyncio
    import signal

    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, callback)


def _run_publish(args: argparse.Namespace) -> int:
    import asyncio

    _structured_logs(args)
    return asyncio.run(_publish(args))


async def _publish(args: argparse.Namespace) -> int:
    import threading

    from session_memory.apps.distributed.publisher import FilePublisher

    stop = threading.Event()
    transport = await _connect(args, name="session-memory-publish")
    try:
        publisher = FilePublisher(transport, args.paths, args.state, format=args.format, stop=stop)
        _on_signals(stop.set)
        summary = await (publisher.run_once() if args.once else publisher.run())
    finally:
        await transport.close()
    print(
        f"session-memory: {summary.transcripts} transcripts, {summary.records} records published",
        file=sys.stderr,
    )
    return 0


def _run_worker(args: argparse.Namespace) -> int:
    import asyncio

    _structured_logs(args)
    return asyncio.run(_work(args))


async def _print_metrics(worker: Any) -> None:
    import orjson

    sys.stdout.write(orjson.dumps({"metrics": worker.metrics_line()}).decode() + "\n")
    sys.stdout.flush()


async def _work(args: argparse.Namespace) -> int:
    import asyncio
    import logging

    from session_memory.apps.distributed.worker import Worker, WorkerConfig

    config = WorkerConfig(
        budget_tokens=args.budget,
        lease_seconds=args.lease_seconds,
        snapshot_every=args.snapshot_every,
    )
    stop = asyncio.Event()
    transport = await _connect(args, lease_seconds=args.lease_seconds, name="session-memory-worker")
    try:
        worker = Worker(transport, config, stop)

        def on_stop() -> None:
            logging.getLogger(__name__).info(
                "stopping: finishing the batch in hand, storing state, releasing claims"
            )
            stop.set()

        _on_signals(on_stop)
        await worker.run(_print_metrics if args.metrics > 0 else None, args.metrics)
        if args.metrics > 0:
            await _print_metrics(worker)
    finally:
        await transport.close()
    return 0


async def read_memory(transport: Any, session: str, *, json: bool = False) -> bytes:
    """A session's memory from the bucket: rendered Markdown, or the JSON with ``json``.

    This is what ``session-memory hook`` or ``mcp`` call to read instead of deriving. As
    ``derive`` refuses a transcript whose records never told its format, this raises
    :class:`TranscriptError` for a session whose memory holds no event and skips of records
    in no known format; :class:`MemoryNotFound` for a session the bucket does not hold.
    """
    from session_memory.apps.distributed.keys import memory_keys
    from session_memory.apps.distributed.wire import session_key

    json_key, md_key = memory_keys(session_key(session))
    found = await transport.get("memory", json_key)
    if found is not None:
        _refuse_unknown_format(session, found.value)
        if not json:
            found = await transport.get("memory", md_key)
    if found is None:
        raise MemoryNotFound(f"no memory for session {session!r} in the bucket")
    data: bytes = found.value
    return data


def _refuse_unknown_format(session: str, memory_json: bytes) -> None:
    """:class:`TranscriptError` for a memory of skipped lines only (records of no known shape,
    or no JSON lines at all; see ``derive``'s message)."""
    import orjson

    try:
        memory = orjson.loads(memory_json)
        events, skipped = memory["event_count"], memory["diagnostics"]["lines_skipped"]
    except (orjson.JSONDecodeError, KeyError, TypeError) as exc:
        raise TransportError(f"the bucket's memory of {session!r} is unreadable: {exc}") from exc
    if events == 0 and skipped > 0:
        raise TranscriptError(
            f"session {session!r} is in no known transcript format (native, claude-code, "
            f"codex): {skipped} lines skipped"
        )


def _run_get(args: argparse.Namespace) -> int:
    import asyncio

    async def get() -> bytes:
        transport = await _connect(
            args, name="session-memory-get", connect_seconds=3.0, wait_for_server=False
        )
        try:
            return await read_memory(transport, args.session, json=args.json)
        finally:
            await transport.close()

    sys.stdout.buffer.write(asyncio.run(get()))
    sys.stdout.flush()
    return 0
