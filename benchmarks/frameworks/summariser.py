"""An ideal scripted summariser for LangChain's ``SummarizationMiddleware``.

It is a chat model that answers the summary prompt with every must-know fact of the scripted
run (a goal, a todo, a test summary) that occurs in the prompt, one per line, and nothing
else: no real model keeps more of what it is shown. It counts its calls and the tokens of the
prompts it was sent (tiktoken, cl100k_base).
"""

from __future__ import annotations

from typing import Any

from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult

from benchmarks.frameworks.script import must_know
from session_memory.core.tokens import DEFAULT_ENCODING, counter

__all__ = ["IdealSummariser"]


def _facts() -> list[str]:
    """Every goal, todo and test summary the run ever has, in the order they first occur."""
    found: dict[str, None] = {}
    for must in must_know():
        for fact in (must.goal, *must.todos, must.check):
            if fact:
                found[fact] = None
    return list(found)


class IdealSummariser(BaseChatModel):
    """Summarises to the must-know facts it is shown; counts its calls and prompt tokens."""

    calls: int = 0
    prompt_tokens: int = 0

    @property
    def _llm_type(self) -> str:
        return "ideal-summariser"

    def _generate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> ChatResult:
        prompt = "\n".join(message.text for message in messages)
        self.calls += 1
        self.prompt_tokens += counter(DEFAULT_ENCODING).count(prompt)
        kept = [f"- {fact}" for fact in _facts() if fact in prompt]
        summary = "\n".join(kept) or "None"
        return ChatResult(generations=[ChatGeneration(message=AIMessage(summary))])
