"""The name of the default token encoding, importable without tiktoken or :mod:`typing`.

A state file records the encoding its memory was counted with, and a hook call whose state
is current compares it with the default; :mod:`session_memory.core.tokens`, which counts, imports
more than that call needs.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

__all__ = ["DEFAULT_ENCODING"]

DEFAULT_ENCODING: Final = "cl100k_base"
