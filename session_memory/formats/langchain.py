"""LangChain 1.x messages as native events.

Reads one message at a time in its JSON form, ``message.model_dump(mode="json")``:
``{"type": "human" | "ai" | "tool" | "system" | ..., "content": ..., ...}``. The mapping
(``docs/langchain.md`` has the table):

* a ``human`` message becomes ``message(user)``: the goal. The summary that LangChain's
  ``SummarizationMiddleware`` puts in its place (``additional_kwargs.lc_source ==
  "summarization"``) is not the user's and carries nothing;
* an ``ai`` message (or chunk) becomes ``message(assistant)``, marked ``final`` when it calls
  no tool; each of its ``tool_calls`` becomes ``requested`` + ``started``;
* a ``tool`` message closes its call: ``completed``, or ``failed`` when its ``status`` is
  ``error``;
* a ``chat`` message counts by its role (``user``, ``assistant``); ``system`` messages,
  legacy ``function`` messages and ``remove`` markers carry nothing; a message of any other
  type is a counted skip.

Each human message starts a turn: the events' run is ``lc-turn:<its index>``.
"""

from __future__ import annotations

from typing import ClassVar, Final

from session_memory.core.events import JsonObject, Record
from session_memory.formats.base import as_dict, as_str
from session_memory.formats.framework import (
    FrameworkAdapter,
    MessageFacts,
    as_text,
    decoded_args,
    joined_text,
)

__all__ = ["SUMMARY_SOURCE", "LangChainAdapter", "content_text", "message_facts"]

SUMMARY_SOURCE: Final = "summarization"
"""``additional_kwargs.lc_source`` of the message SummarizationMiddleware writes."""

_HUMAN: Final = frozenset({"human", "HumanMessageChunk"})
_AI: Final = frozenset({"ai", "AIMessageChunk"})
_TOOL: Final = frozenset({"tool", "ToolMessageChunk"})
_SYSTEM: Final = frozenset({"system", "SystemMessageChunk"})
_QUIET: Final = frozenset({"function", "FunctionMessageChunk", "remove"})
_CHAT: Final = frozenset({"chat", "ChatMessageChunk"})
_TEXT_BLOCKS: Final = frozenset({"text", "text-plain"})


def content_text(content: object) -> str:
    """A message's text: the string, or the strings and text blocks of its content list."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    texts = []
    for block in content:
        if isinstance(block, str):
            texts.append(block)
        elif isinstance(block, dict) and block.get("type") in _TEXT_BLOCKS:
            texts.append(as_text(block.get("text")))
    return joined_text(texts)


def _tool_calls(message: JsonObject) -> list[JsonObject]:
    calls = message.get("tool_calls")
    return [c for c in calls if isinstance(c, dict)] if isinstance(calls, list) else []


class LangChainAdapter(FrameworkAdapter):
    """LangChain message JSON objects, one message (its index as offset) at a time."""

    format_name: ClassVar[str] = "langchain"
    id_prefix: ClassVar[str] = "lc"

    def _feed(self, record: JsonObject, offset: int, out: list[Record]) -> None:
        kind = as_str(record.get("type"))
        if kind in _CHAT:
            kind = {"user": "human", "assistant": "ai"}.get(as_str(record.get("role")) or "")
            if kind is None:
                return
        if kind in _HUMAN:
            self._human(record, offset, out)
        elif kind in _AI:
            self._ai(record, offset, out)
        elif kind in _TOOL:
            self._tool(record, offset, out)
        elif kind not in _SYSTEM and kind not in _QUIET:
            self._skip(out, offset, f"LangChain message of unknown type {kind!r}")

    def _human(self, message: JsonObject, index: int, out: list[Record]) -> None:
        extra = as_dict(message.get("additional_kwargs")) or {}
        if extra.get("lc_source") == SUMMARY_SOURCE:
            return
        self._run_id = f"{self.id_prefix}-turn:{index}"
        self._user(out, index, content_text(message.get("content")))

    def _ai(self, message: JsonObject, index: int, out: list[Record]) -> None:
        calls = _tool_calls(message)
        self._assistant(out, index, content_text(message.get("content")), final=not calls)
        for number, call in enumerate(calls):
            name, call_id = as_str(call.get("name")), as_str(call.get("id"))
            if name is None or call_id is None:
                self._skip(out, index, "LangChain tool call without a name or id")
                continue
            self._call(out, index, number, name, call_id, decoded_args(call.get("args")))

    def _tool(self, message: JsonObject, index: int, out: list[Record]) -> None:
        call_id = as_str(message.get("tool_call_id"))
        if call_id is None:
            self._skip(out, index, "LangChain tool message without a tool_call_id")
            return
        content = message.get("content")
        result = content if isinstance(content, str | dict) else content_text(content)
        failed = message.get("status") == "error"
        name = as_str(message.get("name"))
        self._result(out, index, 0, call_id, result, failed=failed, name=name)


def message_facts(message: JsonObject) -> MessageFacts:
    """What a model reads of one LangChain message (JSON form), and the calls it links."""
    kind = as_str(message.get("type")) or ""
    text = content_text(message.get("content"))
    if kind in _SYSTEM:
        return MessageFacts((), (text,))
    if kind in _TOOL:
        call_id = as_str(message.get("tool_call_id"))
        return MessageFacts((as_text(message.get("content")),), answered=_ids(call_id))
    calls = _tool_calls(message)
    issued = tuple(i for c in calls if (i := as_str(c.get("id"))) is not None)
    call_texts = tuple(f"{as_text(c.get('name'))} {as_text(c.get('args'))}" for c in calls)
    return MessageFacts((text, *call_texts), issued=issued)


def _ids(call_id: str | None) -> tuple[str, ...]:
    return () if call_id is None else (call_id,)
