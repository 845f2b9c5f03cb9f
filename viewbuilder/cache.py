"""The message token cache: what counting a chat message found, keyed by its content.

A loop that builds a view at every step sees the same history messages again and again;
:class:`MessageTokenCache` lets it count each one once. It is keyed by the digest of a
message's canonical JSON (with the encoding and shape), never by identity, so a message
changed in place is counted again. :func:`~viewbuilder.build_model_view` uses the process's
:data:`DEFAULT_MESSAGE_TOKEN_CACHE` unless the caller passes its own.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from session_memory.core.errors import ConfigError

__all__ = [
    "DEFAULT_CACHE_SIZE",
    "DEFAULT_MESSAGE_TOKEN_CACHE",
    "CacheInfo",
    "CacheKey",
    "MessageTokenCache",
]

DEFAULT_CACHE_SIZE: Final = 16384
"""Entries the default cache holds before it forgets the least recently used."""

CacheKey = tuple[str, str, bytes]
"""(encoding, shape or "text", digest of the canonical JSON or of the text)."""


@dataclass(frozen=True, slots=True)
class CacheInfo:
    """Statistics of a message token cache since it was made (or cleared)."""

    hits: int
    misses: int
    size: int
    maxsize: int


class MessageTokenCache:
    """A bounded, thread-safe LRU map from a message's content to what counting it found."""

    def __init__(self, maxsize: int = DEFAULT_CACHE_SIZE) -> None:
        if maxsize < 1:
            raise ConfigError(f"a message token cache holds at least 1 entry, not {maxsize}")
        self._data: OrderedDict[CacheKey, Any] = OrderedDict()
        self._maxsize = maxsize
        self._lock = threading.Lock()
        self._hits = 0
        self._misses = 0

    def get_many(self, keys: Sequence[CacheKey]) -> list[Any]:
        """The value stored for each key, None where there is none (counted as a miss)."""
        data = self._data
        found: list[Any] = []
        with self._lock:
            for key in keys:
                value = data.get(key)
                if value is not None:
                    data.move_to_end(key)
                found.append(value)
            hits = sum(v is not None for v in found)
            self._hits += hits
            self._misses += len(found) - hits
        return found

    def put_many(self, items: Sequence[tuple[CacheKey, Any]]) -> None:
        """Store each (key, value), forgetting the least recently used beyond ``maxsize``."""
        data = self._data
        with self._lock:
            for key, value in items:
                data[key] = value
                data.move_to_end(key)
            while len(data) > self._maxsize:
                data.popitem(last=False)

    def info(self) -> CacheInfo:
        """How often the cache answered (hits) or had to count (misses), and its size."""
        with self._lock:
            return CacheInfo(self._hits, self._misses, len(self._data), self._maxsize)

    def clear(self) -> None:
        """Forget every entry and reset the statistics."""
        with self._lock:
            self._data.clear()
            self._hits = self._misses = 0


DEFAULT_MESSAGE_TOKEN_CACHE: Final = MessageTokenCache()
"""The cache :func:`~viewbuilder.build_model_view` uses when the caller passes none."""
