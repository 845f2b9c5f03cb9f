"""pydantic-ai 2.x messages as native events.

Reads one ``ModelMessage`` at a time in its JSON form, as
``ModelMessagesTypeAdapter.dump_python(messages, mode="json")`` (and ``all_messages_json()``)
write it: ``{"kind": "request" | "response", "parts": [{"part_kind": ...}, ...], "run_id",
"conversation_id", ...}``. The mapping (``docs/pydantic-ai.md`` has the table):

* ``user-prompt`` parts of a request become one ``message(user)``: the goal (text only; images
  and files are not text);
* ``tool-call`` (and ``builtin-tool-call``) parts become ``requested`` + ``started``, with the
  arguments decoded when a provider sent them as a JSON string;
* ``tool-return`` parts close their call: ``completed`` for the outcome ``success``, else
  ``failed`` (``failed``, ``retried``: the tool raised ``ModelRetry``, ``denied``,
  ``interrupted``), as does a legacy ``retry-prompt`` naming a tool;
* ``text`` parts of a response become ``message(assistant)``, marked ``final`` when the
  response calls no tool (it ends the run);
* the system prompt, instructions, thinking, retry feedback (the output did not validate),
  tool search and capability loading, compaction, files and speech carry nothing for the
  memory and are passed over; a message or part of any other kind is a counted skip.

The message's ``run_id`` is the events' run, its ``conversation_id`` the session.
"""

from __future__ import annotations

from collections.abc import Iterator
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

__all__ = ["PydanticAIAdapter", "message_facts"]

_REQUEST: Final = "request"
_RESPONSE: Final = "response"
_CALLS: Final = frozenset({"tool-call", "builtin-tool-call"})
_RETURNS: Final = frozenset({"tool-return", "builtin-tool-return"})
_QUIET_REQUEST_PARTS: Final = frozenset(
    {
        "system-prompt",
        "retry-feedback",
        "speech",
        "tool-search-return",
        "capability-load-return",
        "tool-availability-delta",
        "capability-load-delta",
        "model-settings-delta",
        "instruction-delta",
        "instruction-baseline",
        "compaction",
        "capability",
    }
)
_QUIET_RESPONSE_PARTS: Final = frozenset(
    {
        "thinking",
        "compaction",
        "file",
        "speech",
        "tool-search-call",
        "capability-load-call",
        "builtin-tool-search-call",
        "builtin-tool-search-return",
    }
)
_FAILED_OUTCOMES: Final = frozenset({"failed", "retried", "denied", "interrupted"})
_NAMED_OUTCOMES: Final = frozenset({"denied", "interrupted"})


class PydanticAIAdapter(FrameworkAdapter):
    """pydantic-ai ``ModelMessage`` JSON objects, one message (its index as offset) at a time."""

    format_name: ClassVar[str] = "pydantic-ai"
    id_prefix: ClassVar[str] = "pa"

    def _feed(self, record: JsonObject, offset: int, out: list[Record]) -> None:
        kind = record.get("kind")
        parts = record.get("parts")
        if kind not in (_REQUEST, _RESPONSE) or not isinstance(parts, list):
            self._skip(out, offset, f"pydantic-ai message of unknown kind {kind!r}")
            return
        run_id = as_str(record.get("run_id"))
        if run_id is not None:
            self._run_id = run_id
        if self._session_id is None:
            self._session_id = as_str(record.get("conversation_id"))
        if kind == _REQUEST:
            self._request(parts, offset, out)
        else:
            self._response(parts, offset, out)

    def _parts(
        self, parts: list[object], index: int, out: list[Record]
    ) -> Iterator[tuple[int, str, JsonObject]]:
        """Each part with its number and kind; a part without a kind is a skip."""
        for number, raw in enumerate(parts):
            part = as_dict(raw)
            kind = part.get("part_kind") if part is not None else None
            if part is None or not isinstance(kind, str):
                self._skip(out, index, "pydantic-ai message part without a part_kind")
            else:
                yield number, kind, part

    def _request(self, parts: list[object], index: int, out: list[Record]) -> None:
        prompts: list[str] = []
        for number, kind, part in self._parts(parts, index, out):
            if kind == "user-prompt":
                prompts.append(_prompt_text(part.get("content")))
            elif kind in _RETURNS or (kind == "retry-prompt" and as_str(part.get("tool_name"))):
                self._closed(part, kind, index, number, out)
            elif kind not in _QUIET_REQUEST_PARTS and kind != "retry-prompt":
                self._skip(out, index, f"pydantic-ai request part of unknown kind {kind!r}")
        self._user(out, index, joined_text(prompts))

    def _response(self, parts: list[object], index: int, out: list[Record]) -> None:
        texts: list[str] = []
        calls: list[tuple[int, str, JsonObject]] = []
        for number, kind, part in self._parts(parts, index, out):
            if kind == "text":
                texts.append(as_text(part.get("content")))
            elif kind in _CALLS or kind == "builtin-tool-return":
                calls.append((number, kind, part))
            elif kind not in _QUIET_RESPONSE_PARTS:
                self._skip(out, index, f"pydantic-ai response part of unknown kind {kind!r}")
        final = not any(kind == "tool-call" for _, kind, _ in calls)
        self._assistant(out, index, joined_text(texts), final=final)
        for number, kind, part in calls:
            if kind in _CALLS:
                self._called(part, index, number, out)
            else:
                self._closed(part, kind, index, number, out)

    def _called(self, part: JsonObject, index: int, number: int, out: list[Record]) -> None:
        name, call_id = as_str(part.get("tool_name")), as_str(part.get("tool_call_id"))
        if name is None or call_id is None:
            self._skip(out, index, "pydantic-ai tool call without a tool name or call id")
            return
        self._call(out, index, number, name, call_id, decoded_args(part.get("args")))

    def _closed(
        self, part: JsonObject, kind: str, index: int, number: int, out: list[Record]
    ) -> None:
        call_id = as_str(part.get("tool_call_id"))
        if call_id is None:
            self._skip(out, index, "pydantic-ai tool return without a call id")
            return
        outcome = "retried" if kind == "retry-prompt" else part.get("outcome", "success")
        failed = outcome in _FAILED_OUTCOMES
        content = part.get("content")
        if failed and outcome in _NAMED_OUTCOMES:
            content = f"{outcome}: {as_text(content)}"
        name = as_str(part.get("tool_name"))
        self._result(out, index, number, call_id, content, failed=failed, name=name)


def _prompt_text(content: object) -> str:
    """A user prompt's text: the string, or the strings of a list of content items."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return joined_text(item for item in content if isinstance(item, str))
    return ""


def message_facts(message: JsonObject) -> MessageFacts:
    """What a model reads of one pydantic-ai message (JSON form), and the calls it links."""
    response = message.get("kind") == _RESPONSE
    parts = message.get("parts")
    found: dict[str, list[str]] = {"texts": [], "system": [], "issued": [], "answered": []}
    for raw in parts if isinstance(parts, list) else ():
        for field, value in _part_facts(as_dict(raw) or {}, response):
            found[field].append(value)
    return MessageFacts(
        texts=tuple(found["texts"]),
        system=tuple(found["system"]),
        issued=tuple(found["issued"]),
        answered=tuple(found["answered"]),
    )


def _part_facts(part: JsonObject, response: bool) -> list[tuple[str, str]]:
    """What one part adds to its message's facts, as (field, value) pairs."""
    kind = as_str(part.get("part_kind")) or ""
    call_id = as_str(part.get("tool_call_id"))
    if kind == "system-prompt":
        return [("system", as_text(part.get("content")))]
    if call_id is not None and response and kind.endswith("-call"):
        text = f"{as_text(part.get('tool_name'))} {as_text(part.get('args'))}"
        return [("issued", call_id), ("texts", text)]
    facts = [("texts", as_text(part.get("content")))]
    if call_id is not None and (kind.endswith("-return") or kind == "retry-prompt"):
        facts.append(("answered", call_id))
    return facts
