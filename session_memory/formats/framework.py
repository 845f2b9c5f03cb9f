"""What the agent-framework adapters share: events made per message, and message facts.

An agent framework (pydantic-ai, the OpenAI Agents SDK, LangChain) keeps a conversation as a
list of messages. Its adapter reads one message at a time in the message's JSON form (the
framework's own serialisation, named in each adapter's docstring), with the message's index
in the conversation as the offset, and emits native events: a user prompt becomes the goal, a
tool call ``requested`` + ``started``, its result ``completed`` or ``failed``, an answer that
ends a turn a ``final`` assistant message. A message or part of a kind the adapter does not
know is a :class:`SkippedLine` (counted by the deriver), never an exception.

:class:`MessageFacts` is what fitting a conversation into a token budget needs to know of one
message: the texts the model reads, the system prompt in it, and the tool calls it makes and
answers, so that a call is never separated from its result.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, NamedTuple

import orjson

from session_memory.core.events import JsonObject, Record, SkippedLine
from session_memory.core.outcome import tool_outcome
from session_memory.formats.base import AdapterBase, cap_text

if TYPE_CHECKING:
    from collections.abc import Iterable

__all__ = ["FrameworkAdapter", "MessageFacts", "as_text", "decoded_args", "joined_text"]


class MessageFacts(NamedTuple):
    """What a model reads of one framework message, and how it links to other messages."""

    texts: tuple[str, ...]
    """Each part the model reads, as text: content, a tool call's name and arguments, a
    result. What a token estimate counts."""
    system: tuple[str, ...] = ()
    """The parts that are the system prompt: kept, whatever the budget."""
    issued: tuple[str, ...] = ()
    """Ids of the tool calls the message makes."""
    answered: tuple[str, ...] = ()
    """Ids of the tool calls whose results the message carries."""
    joins_next: bool = False
    """The message belongs with the one after it (a reasoning item before its call)."""


def as_text(value: object) -> str:
    """A JSON value as the text a model reads: a string as it is, else compact JSON."""
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    return orjson.dumps(value, default=str).decode()


def joined_text(parts: Iterable[str]) -> str:
    """Non-blank texts joined by newlines."""
    return "\n".join(p for p in parts if p.strip())


def decoded_args(args: object) -> JsonObject:
    """Tool-call arguments as an object: decoded when a JSON string, ``{"raw": s}`` when not."""
    if isinstance(args, dict):
        return args
    if isinstance(args, str):
        try:
            decoded = orjson.loads(args) if args.strip() else {}
        except orjson.JSONDecodeError:
            return {"raw": args}
        return decoded if isinstance(decoded, dict) else {"raw": args}
    return {} if args is None else {"raw": as_text(args)}


def _result_text(result: object) -> tuple[str, int | None]:
    """A tool's result as text, and the exit code it states (objects read as native results)."""
    if isinstance(result, str):
        return result, None
    if isinstance(result, dict):
        read = tool_outcome({"status": "completed", "result": result})
        if read is not None:
            return read.output, read.exit_code
    return as_text(result), None


class FrameworkAdapter(AdapterBase):
    """Event building for one framework's messages, fed one message (a JSON object) at a time.

    Event ids are ``<prefix>:<message index>:<part>:<phase>``: the same conversation gives the
    same ids. The open calls (their tool names and runs, so that a result is keyed like its
    call) are the state, bounded like every adapter's.
    """

    _STATE: ClassVar[tuple[str, ...]] = ("_open_calls",)
    id_prefix: ClassVar[str] = "fw"

    def __init__(self) -> None:
        super().__init__()
        self._open_calls: dict[str, list[str | None]] = {}

    def _state_is_valid(self) -> bool:
        calls = self._open_calls
        return (
            super()._state_is_valid()
            and isinstance(calls, dict)
            and all(isinstance(v, list) and len(v) == 2 for v in calls.values())
        )

    def _id(self, index: int, part: int | str) -> str:
        return f"{self.id_prefix}:{index}:{part}"

    def _user(self, out: list[Record], index: int, text: str) -> None:
        """A prompt the user wrote: the goal, unless it is blank."""
        if text.strip():
            payload: JsonObject = {"role": "user", "content": cap_text(text)}
            out.append(self._event(self._id(index, "user"), "message", payload, None))

    def _assistant(self, out: list[Record], index: int, text: str, *, final: bool) -> None:
        """What the model said; ``final`` when it ended the turn with it."""
        if text.strip():
            payload: JsonObject = {"role": "assistant", "content": cap_text(text)}
            if final:
                payload["metadata"] = {"action_type": "final"}
            out.append(self._event(self._id(index, "assistant"), "message", payload, None))

    def _call(
        self, out: list[Record], index: int, part: int, name: str, call_id: str, args: JsonObject
    ) -> None:
        """A tool call the model made: ``requested`` and ``started``."""
        self._tool_call(out, self._id(index, part), name, call_id, args, None, self._open_calls)

    def _result(
        self,
        out: list[Record],
        index: int,
        part: int,
        call_id: str,
        result: object,
        *,
        failed: bool,
        name: str | None = None,
    ) -> None:
        """A tool call's result: ``completed``, or ``failed`` with the result as the error.

        ``result`` is a string, or an object read as a native result is (``{stdout, stderr,
        exit_code}``, ``{output, returncode}``...), so a tool that returns its exit code has
        it on the outcome. A result for a call not seen (a conversation handed over from its
        middle) is kept when the framework names the tool, else dropped: nothing is invented.
        """
        entry = self._open_calls.pop(call_id, None)
        if entry is None:
            if name is None:
                return
            entry = [name, self._run_id]
        text, exit_code = _result_text(result)
        self._tool_end(
            out,
            self._id(index, part),
            call_id,
            entry,
            failed=failed,
            text=text,
            timestamp=None,
            exit_code=exit_code,
        )

    def _skip(self, out: list[Record], index: int, reason: str) -> None:
        out.append(SkippedLine(offset=index, reason=reason))
