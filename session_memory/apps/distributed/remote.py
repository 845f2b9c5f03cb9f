"""Memories read from the bucket instead of derived here: ``hook --nats`` and ``mcp --nats``.

The workers keep every session's memory in the memory bucket (``<key>.json`` and
``<key>.md``); a reader needs only those two values. A session is named as ``publish``
names it, by its transcript's file name without ``.jsonl``. Every read is bounded by a
timeout: a server that is down or slow is a :class:`TransportError`, a session the bucket
does not hold is :class:`MemoryNotFound`.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Awaitable
from dataclasses import dataclass
from typing import Any, Final, TypeVar

import orjson

from session_memory.apps.distributed.keys import memory_keys
from session_memory.apps.distributed.transport import Transport, TransportError
from session_memory.apps.distributed.wire import session_key
from session_memory.apps.memory_dir.current import CurrentMemory
from session_memory.core.errors import MemoryNotFound

__all__ = [
    "DEFAULT_TIMEOUT",
    "RemoteMemories",
    "RemoteMemory",
    "current_remote",
    "fetch_memory",
    "read_remote",
    "remote_sessions",
    "session_of",
]

DEFAULT_TIMEOUT: Final = 2.0
"""Seconds a read may take, connecting included."""

_T = TypeVar("_T")


@dataclass(frozen=True, slots=True)
class RemoteMemory:
    """One session's memory as the bucket holds it."""

    session: str
    markdown: str
    json: bytes
    tokens: int
    session_id: str | None
    budget_tokens: int

    @property
    def header(self) -> dict[str, Any]:
        found = orjson.loads(self.json)
        return found if isinstance(found, dict) else {}


def session_of(transcript: str) -> str:
    """The session of a transcript, as ``publish`` names it: its file name without .jsonl."""
    return os.path.basename(transcript).removesuffix(".jsonl")


async def fetch_memory(transport: Transport, session: str) -> RemoteMemory:
    """Both memory values of ``session``, read at once; :class:`MemoryNotFound` if absent."""
    json_key, md_key = memory_keys(session_key(session))
    found_json, found_md = await asyncio.gather(
        transport.get("memory", json_key), transport.get("memory", md_key)
    )
    if found_json is None or found_md is None:
        raise MemoryNotFound(f"no memory for session {session!r} in the bucket")
    try:
        header = orjson.loads(found_json.value)
        tokens, budget = header["tokens_used"], header["budget_tokens"]
        session_id = header.get("session_id")
        markdown = found_md.value.decode("utf-8")
    except (orjson.JSONDecodeError, KeyError, TypeError, UnicodeDecodeError) as exc:
        raise TransportError(f"the bucket's memory of {session!r} is unreadable: {exc}") from exc
    return RemoteMemory(
        session,
        markdown,
        found_json.value,
        int(tokens),
        session_id if isinstance(session_id, str) else None,
        int(budget),
    )


async def remote_sessions(transport: Transport) -> list[str]:
    """The session keys the bucket holds a memory for, sorted."""
    return sorted(
        k.removesuffix(".json") for k in await transport.keys("memory", "") if k.endswith(".json")
    )


def read_remote(
    servers: str, session: str, *, prefix: str = "smem", timeout: float = DEFAULT_TIMEOUT
) -> RemoteMemory:
    """One session's memory from the bucket, in at most ``timeout`` seconds (blocking)."""

    async def read() -> RemoteMemory:
        transport = await _reader(servers, prefix, timeout)
        try:
            return await fetch_memory(transport, session)
        finally:
            await transport.close()

    return _bounded(read(), timeout, servers)


def current_remote(
    servers: str, transcript: str, *, prefix: str = "smem", timeout: float = DEFAULT_TIMEOUT
) -> CurrentMemory:
    """The memory of a transcript's session from the bucket, as the hook takes it."""
    found = read_remote(servers, session_of(transcript), prefix=prefix, timeout=timeout)
    return CurrentMemory(
        transcript, found.markdown, found.tokens, found.session_id, found.budget_tokens, False
    )


def _bounded(work: Awaitable[_T], timeout: float, servers: str) -> _T:
    async def run() -> _T:
        try:
            return await asyncio.wait_for(work, timeout)
        except TimeoutError as exc:
            raise TransportError(f"no answer from NATS at {servers} in {timeout:g} s") from exc

    return asyncio.run(run())


async def _reader(servers: str, prefix: str, timeout: float) -> Transport:
    try:
        from session_memory.apps.distributed.jetstream import connect_reader
    except ImportError as exc:  # the extra is not installed
        raise TransportError("reading from NATS needs the nats extra") from exc
    transport: Transport = await connect_reader(servers, prefix=prefix, timeout=timeout)
    return transport


class RemoteMemories:
    """What ``mcp --nats`` answers from: one connection, opened on first use and again
    after a failure; every call bounded by ``timeout``.

    The bucket knows sessions by name, not their working directories or transcripts'
    lines: ask by session (or transcript path); provenance comes without byte offsets.
    """

    def __init__(self, servers: str, *, prefix: str = "smem", timeout: float = DEFAULT_TIMEOUT):
        self.servers = servers
        self.prefix = prefix
        self.timeout = timeout
        self._transport: Transport | None = None

    async def _call(self, work: Any) -> Any:
        try:
            async with asyncio.timeout(self.timeout):
                if self._transport is None:
                    self._transport = await _reader(self.servers, self.prefix, self.timeout)
                return await work(self._transport)
        except (TransportError, TimeoutError) as exc:
            transport, self._transport = self._transport, None
            if transport is not None:
                await transport.close()
            if isinstance(exc, TransportError):
                raise
            raise TransportError(f"no answer from NATS at {self.servers}") from exc

    @staticmethod
    def session_of(transcript: str) -> str:
        """The session of a transcript (its file name without .jsonl)."""
        return session_of(transcript)

    async def memory(self, session: str) -> RemoteMemory:
        found: RemoteMemory = await self._call(lambda t: fetch_memory(t, session))
        return found

    async def sessions(self) -> list[str]:
        found: list[str] = await self._call(remote_sessions)
        return found

    async def close(self) -> None:
        transport, self._transport = self._transport, None
        if transport is not None:
            await transport.close()
