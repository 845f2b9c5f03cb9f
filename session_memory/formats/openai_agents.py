"""OpenAI Agents SDK input items as native events.

Reads one input item at a time: the Responses API's input items, plain JSON objects, as
``RunResult.to_input_list()`` gives them and ``RunConfig.call_model_input_filter`` receives
them. The mapping (``docs/openai-agents.md`` has the table):

* a ``user`` message (``{"role": "user", "content": ...}``, with or without ``"type":
  "message"``) becomes ``message(user)``: the goal; ``system`` and ``developer`` messages are
  instructions and carry nothing for the memory;
* an ``assistant`` message becomes ``message(assistant)``. It is held until the next item:
  it is ``final`` unless a tool call of the same response follows it;
* ``function_call`` and ``custom_tool_call`` become ``requested`` + ``started`` (``arguments``
  decoded from its JSON string); the SDK's own shell and patch tools too: ``shell_call`` as a
  ``shell`` call whose ``command`` is its commands joined by ``&&``, ``apply_patch_call`` as
  an ``apply_patch`` call with the operation's ``path`` and ``diff``;
* their outputs close them: ``completed``, its outcome ``errored`` when the output is the
  SDK's message for a tool that raised ("An error occurred while running the tool"),
  ``rejected`` when the call was not approved; ``failed`` when the tool timed out, a shell
  command timed out, or a patch failed (a shell command's exit code is on its outcome);
* reasoning, hosted tools (web and file search, computer use, code interpreter, image
  generation, MCP), tool search, item references and compaction items are passed over; an
  item of any other type is a counted skip.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar, Final

from session_memory.core.events import JsonObject, Record
from session_memory.formats.base import as_dict, as_int, as_str
from session_memory.formats.framework import (
    FrameworkAdapter,
    MessageFacts,
    as_text,
    decoded_args,
    joined_text,
)
from session_memory.formats.outcomes import ResultMarkers

__all__ = ["OpenAIAgentsAdapter", "item_facts"]

_CALLS: Final = frozenset({"function_call", "custom_tool_call", "shell_call", "apply_patch_call"})
_QUIET_ITEMS: Final = frozenset(
    {
        "reasoning",
        "web_search_call",
        "file_search_call",
        "computer_call",
        "computer_call_output",
        "code_interpreter_call",
        "image_generation_call",
        "local_shell_call",
        "local_shell_call_output",
        "mcp_list_tools",
        "mcp_approval_request",
        "mcp_approval_response",
        "mcp_call",
        "tool_search_call",
        "tool_search_output",
        "additional_tools",
        "configuration_update",
        "item_reference",
        "compaction",
        "compaction_trigger",
        "program",
        "program_output",
    }
)
_TIMEOUT_PREFIX: Final = "Tool '"
_TIMEOUT_MARKER: Final = "' timed out after "
_CONTENT_TEXT_TYPES: Final = frozenset({"input_text", "output_text", "text", "refusal"})


def _item_type(item: JsonObject) -> str | None:
    kind = as_str(item.get("type"))
    if kind is None and "role" in item:
        return "message"
    return kind


def _content_text(content: object) -> str:
    """A message's text: the string, or the text parts of its content list."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    texts = []
    for part in content:
        part_dict = as_dict(part) or {}
        if part_dict.get("type") in _CONTENT_TEXT_TYPES:
            texts.append(as_text(part_dict.get("text") or part_dict.get("refusal")))
    return joined_text(texts)


def _timed_out(text: str) -> bool:
    """Whether an output is the SDK's message for a tool that timed out."""
    head = text[:256]
    return head.startswith(_TIMEOUT_PREFIX) and _TIMEOUT_MARKER in head


class OpenAIAgentsAdapter(FrameworkAdapter):
    """Agents SDK input items (JSON objects), one item (its index as offset) at a time."""

    format_name: ClassVar[str] = "openai-agents"
    id_prefix: ClassVar[str] = "oa"
    result_markers: ClassVar[ResultMarkers] = ResultMarkers(
        rejected=("Tool execution was not approved",),
        errored=("An error occurred while running the tool",),
    )
    _STATE: ClassVar[tuple[str, ...]] = ("_open_calls", "_held")

    def __init__(self) -> None:
        super().__init__()
        self._held: list[int | str] | None = None
        """[index, text] of an assistant message whose turn may or may not go on."""
        self._handlers: dict[str, Callable[[JsonObject, int, list[Record]], None]] = {
            "message": self._message,
            "function_call": self._function_call,
            "custom_tool_call": self._custom_call,
            "shell_call": self._shell_call,
            "apply_patch_call": self._patch_call,
            "function_call_output": self._output,
            "custom_tool_call_output": self._output,
            "shell_call_output": self._shell_output,
            "apply_patch_call_output": self._patch_output,
        }

    def _state_is_valid(self) -> bool:
        held = self._held
        return super()._state_is_valid() and (
            held is None
            or (len(held) == 2 and isinstance(held[0], int) and isinstance(held[1], str))
        )

    def _feed(self, record: JsonObject, offset: int, out: list[Record]) -> None:
        kind = _item_type(record)
        if kind in _CALLS:
            self._release(out, final=False)
        elif kind != "reasoning":
            self._release(out, final=True)
        handler = self._handlers.get(kind) if kind is not None else None
        if handler is not None:
            handler(record, offset, out)
        elif kind not in _QUIET_ITEMS:
            self._skip(out, offset, f"Agents SDK input item of unknown type {kind!r}")

    def finish(self) -> list[Record]:
        """The assistant message held back, as the final answer of its turn."""
        out: list[Record] = []
        self._release(out, final=True)
        return out

    def _release(self, out: list[Record], *, final: bool) -> None:
        held, self._held = self._held, None
        if held is not None:
            index, text = held
            assert isinstance(index, int) and isinstance(text, str)
            self._assistant(out, index, text, final=final)

    def _message(self, item: JsonObject, index: int, out: list[Record]) -> None:
        role = item.get("role")
        text = _content_text(item.get("content"))
        if role == "user":
            self._run_id = f"{self.id_prefix}-turn:{index}"
            self._user(out, index, text)
        elif role == "assistant" and text.strip():
            self._held = [index, text]
        elif role not in ("system", "developer", "assistant"):
            self._skip(out, index, f"Agents SDK message of unknown role {role!r}")

    def _called(
        self, item: JsonObject, index: int, out: list[Record], name: str | None, args: JsonObject
    ) -> None:
        call_id = as_str(item.get("call_id"))
        if name is None or call_id is None:
            self._skip(out, index, "Agents SDK tool call without a name or call id")
            return
        self._call(out, index, 0, name, call_id, args)

    def _function_call(self, item: JsonObject, index: int, out: list[Record]) -> None:
        args = decoded_args(item.get("arguments"))
        self._called(item, index, out, as_str(item.get("name")), args)

    def _custom_call(self, item: JsonObject, index: int, out: list[Record]) -> None:
        self._called(item, index, out, as_str(item.get("name")), {"input": item.get("input")})

    def _shell_call(self, item: JsonObject, index: int, out: list[Record]) -> None:
        commands = (as_dict(item.get("action")) or {}).get("commands")
        lines = [c for c in commands if isinstance(c, str)] if isinstance(commands, list) else []
        self._called(item, index, out, "shell", {"command": " && ".join(lines)})

    def _patch_call(self, item: JsonObject, index: int, out: list[Record]) -> None:
        operation = as_dict(item.get("operation")) or {}
        args: JsonObject = {k: operation[k] for k in ("type", "path", "diff") if k in operation}
        self._called(item, index, out, "apply_patch", args)

    def _closed(
        self, item: JsonObject, index: int, out: list[Record], result: object, *, failed: bool
    ) -> None:
        call_id = as_str(item.get("call_id"))
        if call_id is None:
            self._skip(out, index, "Agents SDK tool output without a call id")
            return
        self._result(out, index, 0, call_id, result, failed=failed, name=as_str(item.get("name")))

    def _output(self, item: JsonObject, index: int, out: list[Record]) -> None:
        output = item.get("output")
        text = output if isinstance(output, str) else _content_text(output)
        self._closed(item, index, out, text, failed=_timed_out(text))

    def _shell_output(self, item: JsonObject, index: int, out: list[Record]) -> None:
        result, timed_out = _shell_result(item.get("output"))
        if timed_out:
            self._closed(item, index, out, f"timed out\n{result['stdout']}", failed=True)
        else:
            self._closed(item, index, out, result, failed=False)

    def _patch_output(self, item: JsonObject, index: int, out: list[Record]) -> None:
        text = as_text(item.get("output"))
        failed = item.get("status") == "failed"
        self._closed(item, index, out, text or ("failed" if failed else "done"), failed=failed)


def _shell_result(output: object) -> tuple[JsonObject, bool]:
    """A shell call's output chunks as one ``{stdout, stderr, exit_code}`` result, and
    whether the command timed out."""
    chunks = [c for c in output if isinstance(c, dict)] if isinstance(output, list) else []
    outcome = (as_dict(chunks[-1].get("outcome")) or {}) if chunks else {}
    result: JsonObject = {
        "stdout": joined_text(as_text(c.get("stdout")) for c in chunks),
        "stderr": joined_text(as_text(c.get("stderr")) for c in chunks),
    }
    exit_code = as_int(outcome.get("exit_code"))
    if exit_code is not None:
        result["exit_code"] = exit_code
    return result, outcome.get("type") == "timeout"


def item_facts(item: JsonObject) -> MessageFacts:
    """What a model reads of one input item, and the calls it links."""
    kind = _item_type(item) or ""
    call_id = as_str(item.get("call_id"))
    if kind == "message":
        text = _content_text(item.get("content"))
        system = item.get("role") in ("system", "developer")
        return MessageFacts((), (text,)) if system else MessageFacts((text,))
    if kind == "reasoning":
        return MessageFacts((as_text(item.get("summary")),), joins_next=True)
    if call_id is None:
        return MessageFacts((as_text(item),))
    if kind.endswith("_call"):
        call = {k: v for k, v in item.items() if k != "id"}
        return MessageFacts((as_text(call),), issued=(call_id,))
    if kind.endswith("_output"):
        return MessageFacts((as_text(item.get("output")),), answered=(call_id,))
    return MessageFacts((as_text(item),))
