"""Codex 0.16x rollouts: the prompt as a completed UserMessage item, new record types."""

from __future__ import annotations

from typing import Any

from session_memory.core.events import TranscriptEvent
from session_memory.core.memory import SkippedLine
from session_memory.formats import CodexAdapter


def feed(*records: dict[str, Any]) -> list[Any]:
    adapter = CodexAdapter()
    out: list[Any] = []
    for offset, record in enumerate(records):
        out.extend(adapter.feed(record, offset * 100))
    return out


USER_ITEM = {
    "type": "event_msg",
    "payload": {
        "type": "item_completed",
        "turn_id": "t1",
        "item": {"type": "UserMessage", "content": [{"type": "text", "text": "Fix checkout"}]},
    },
}


class TestCodex0169:
    def test_a_completed_user_message_item_is_the_prompt(self) -> None:
        """item_completed with a UserMessage item becomes message(user)."""
        (event,) = feed(USER_ITEM)
        assert isinstance(event, TranscriptEvent)
        assert event.payload == {"role": "user", "content": "Fix checkout", "metadata": {}}

    def test_other_completed_items_are_not_messages(self) -> None:
        """Completed agent messages, commands and compactions stay out (they come elsewhere)."""
        other = {
            "type": "event_msg",
            "payload": {"type": "item_completed", "item": {"type": "AgentMessage"}},
        }
        assert feed(other) == []

    def test_new_record_types_are_ignored_not_skipped(self) -> None:
        """world_state, token_usage_record and thread_settings_applied are not skipped lines."""
        out = feed(
            {"type": "world_state", "payload": {"full": True}},
            {"type": "token_usage_record", "payload": {}},
            {"type": "event_msg", "payload": {"type": "thread_settings_applied"}},
        )
        assert not any(isinstance(r, SkippedLine) for r in out)
