"""What of a Codex user message the user typed, and the fixed texts Codex writes around it.

Codex writes context as user messages: AGENTS.md instructions ("# AGENTS.md instructions
for ..."), ``<environment_context>``, ``<user_instructions>``, ``<turn_aborted>``, a
sub-agent's ``<subagent_notification>``, ``<recommended_plugins>``: each wholly one content
item, several of them sometimes in one message. An IDE extension puts a preamble ("# Context
from my IDE setup: ... ## My request for Codex:") before the request. A compaction's
summary opens with Codex's fixed handoff preamble ("Another language model started to solve
this problem ... use the information in this summary to assist with your own analysis:"),
and the ``compacted`` record keeps the earlier user messages in its ``replacement_history``
(with the summary as one more user message, or "(no summary available)"). None of these
texts is what the user typed, nor part of what the summary says.

An approval reviewer's prompt (a ``guardian`` sub-agent of Codex's auto-review) quotes the
reviewed agent's history between ``>>> TRANSCRIPT START`` and ``END`` (or a ``DELTA``) as
evidence, then the action to assess between ``>>> APPROVAL REQUEST START`` and ``END``: what
it asks is whether that action may run. The history is not what anyone asked of it, nor what
the user reported.
"""

from __future__ import annotations

import re
from typing import Final

import orjson

from session_memory.formats.base import as_dict, as_str, join_texts

__all__ = ["earlier_requests", "handoff_summary", "request", "typed_text"]

HANDOFF_PREAMBLE: Final = "Another language model started to solve this problem"
"""How Codex's fixed text before a compaction summary opens."""
_INJECTED: Final = re.compile(
    r"\A\s*(?:# AGENTS\.md instructions\b"
    r"|<(?P<tag>[\w -]{1,64})>.*</(?P=tag)>\s*\Z"
    rf"|{re.escape(HANDOFF_PREAMBLE)}"
    r"|\(no summary available\)\s*\Z)",
    re.S,
)
"""A content item that is context or a summary Codex wrote, not text the user typed."""
_IDE_REQUEST: Final = re.compile(r"^#+ My request for Codex:[ \t]*$", re.M)
"""The heading after which an IDE extension's prompt holds what the user typed."""
_PREAMBLE_END: Final = re.compile(r":[ \t]*$", re.M)
_ASSESSED: Final = re.compile(
    r"^>>> APPROVAL REQUEST START[ \t]*$(.*?)^>>> APPROVAL REQUEST END", re.M | re.S
)
_ASSESSED_CHARS: Final = 400
_PREAMBLE_CHARS: Final = 1000


def typed_text(content: list[object]) -> str:
    """The text of a message's content items that the user typed; injected items left out."""
    return join_texts(
        text
        for item in content
        if (text := as_str((as_dict(item) or {}).get("text"))) and not _INJECTED.match(text)
    )


def request(text: str) -> str:
    """A prompt without an IDE extension's preamble (what follows "My request for Codex:"),
    or the question an approval reviewer's prompt asks."""
    if ">>> APPROVAL REQUEST START" in text and (found := _ASSESSED.search(text)) is not None:
        return _assessed(found.group(1))
    return _IDE_REQUEST.split(text, maxsplit=1)[-1].strip()


def _assessed(block: str) -> str:
    """The question of an approval request: may the action it plans (a command, or a patch
    of some files) run, for the reason the reviewed agent gave."""
    start = block.find("{")
    try:
        action = as_dict(orjson.loads(block[start:].strip())) if start >= 0 else None
    except orjson.JSONDecodeError:
        action = None
    if action is None:
        return block.strip()
    command = action.get("command")
    words = [w for w in command if isinstance(w, str)] if isinstance(command, list) else []
    files = action.get("files")
    if words:
        what = f"`{words[-1][:_ASSESSED_CHARS]}`"  # ["/bin/zsh", "-lc", "git fetch"]: the script
    elif isinstance(files, list) and files:
        what = "a patch of " + ", ".join(f"`{f}`" for f in files if isinstance(f, str))
    else:
        what = as_str(action.get("tool")) or "the planned action"
    why = as_str(action.get("justification"))
    reason = f" The reviewed agent's reason: {why[:_ASSESSED_CHARS]}" if why else ""
    return f"May this action run: {what}?{reason}"


def handoff_summary(message: str) -> str:
    """A compaction summary without Codex's handoff preamble (the fixed text up to the
    line that ends with a colon, else its first line)."""
    text = message.strip()
    if not text.startswith(HANDOFF_PREAMBLE):
        return text
    end = _PREAMBLE_END.search(text, 0, _PREAMBLE_CHARS)
    cut = end.end() if end is not None else (text.find("\n") + 1 or len(text))
    return text[cut:].strip()


def earlier_requests(history: object) -> tuple[list[str], str]:
    """The user messages a ``compacted`` record's ``replacement_history`` keeps, in order,
    and the summary it holds as a user message ("" when none)."""
    requests: list[str] = []
    summary = ""
    for item in history if isinstance(history, list) else ():
        entry = as_dict(item) or {}
        content = entry.get("content")
        if entry.get("type") != "message" or entry.get("role") != "user":
            continue
        if not isinstance(content, list):
            continue
        whole = join_texts(t for c in content if (t := as_str((as_dict(c) or {}).get("text"))))
        if whole.startswith(HANDOFF_PREAMBLE):
            summary = handoff_summary(whole)
        elif text := request(typed_text(content)):
            requests.append(text)
    return requests, summary
