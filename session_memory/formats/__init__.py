"""Adapters that read Claude Code sessions and Codex CLI rollouts as native events.

The names below are imported on first use (:mod:`session_memory.core.startup` says why):
the command line needs the format names (:mod:`.names`), not the adapters.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from session_memory.core.startup import lazy_names

if TYPE_CHECKING:
    from session_memory.formats.base import Adapter, AdapterBase
    from session_memory.formats.claude_code import ClaudeCodeAdapter
    from session_memory.formats.codex import CodexAdapter
    from session_memory.formats.detect import (
        NO_KNOWN_FORMAT,
        AutoAdapter,
        classify_object,
        detect_format,
        make_adapter,
        read_transcript,
        restore_adapter,
    )
    from session_memory.formats.names import FORMAT_CHOICES, FormatChoice, FormatName
    from session_memory.formats.native import NativeAdapter

__all__ = [
    "FORMAT_CHOICES",
    "NO_KNOWN_FORMAT",
    "Adapter",
    "AdapterBase",
    "AutoAdapter",
    "ClaudeCodeAdapter",
    "CodexAdapter",
    "FormatChoice",
    "FormatName",
    "NativeAdapter",
    "classify_object",
    "detect_format",
    "make_adapter",
    "read_transcript",
    "restore_adapter",
]

__getattr__, __dir__ = lazy_names(globals(), __all__, (".names", ".base", ".detect"))
