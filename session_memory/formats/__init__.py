"""Adapters that read Claude Code sessions and Codex CLI rollouts as native events."""

from session_memory.formats._base import Adapter, AdapterBase, FormatName
from session_memory.formats.claude_code import ClaudeCodeAdapter
from session_memory.formats.codex import CodexAdapter
from session_memory.formats.detect import (
    FORMAT_CHOICES,
    NO_KNOWN_FORMAT,
    AutoAdapter,
    FormatChoice,
    classify_object,
    detect_format,
    make_adapter,
    read_transcript,
    restore_adapter,
)
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
