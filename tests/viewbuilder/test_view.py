"""build_model_view: order, shapes, context fitting, caching and byte stability."""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

import msgspec
import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from session_memory.core.errors import BudgetError, ConfigError
from session_memory.core.memory import Goal, MemoryItem, Provenance, SessionMemory
from session_memory.core.tokens import counter
from viewbuilder import (
    MessageTokenCache,
    ModelView,
    ViewInputError,
    build_model_view,
    message_tokens,
    render_memory,
)
from viewbuilder.counting import (
    ATTACHMENT_TOKENS,
    MESSAGE_OVERHEAD_TOKENS,
    clear_message_token_cache,
    message_token_cache_info,
)

SYSTEM = "You are a careful coding agent."


def make_memory(goal: str = "Refactor the auth module", *done: str) -> SessionMemory:
    """A SessionMemory built by hand, as the deriver would build it."""
    tok = counter()
    items = tuple(
        MemoryItem(
            id=f"done-{i}",
            kind="final_answer",
            text=text,
            tokens=tok.count(text),
            provenance=Provenance(created_by=f"evt-{i}", changed_by=f"evt-{i}"),
        )
        for i, text in enumerate(done)
    )
    memory = SessionMemory(
        current_goal=Goal(text=goal, event_id="evt-0", tokens=tok.count(goal)),
        completed_work=items,
        budget_tokens=1200,
        encoding="cl100k_base",
        tokens_used=0,
    )
    return msgspec.structs.replace(memory, tokens_used=tok.count(render_memory(memory)))


EMPTY_MEMORY = SessionMemory(budget_tokens=1200, encoding="cl100k_base", tokens_used=0)


def openai_history() -> list[dict[str, Any]]:
    return [
        {"role": "user", "content": "Add a --verbose flag"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "Read", "arguments": '{"path": "cli.py"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "def main(): ...\n" * 20},
        {"role": "assistant", "content": "Done: the flag is in."},
        {"role": "user", "content": "Now add tests"},
    ]


def anthropic_history() -> list[dict[str, Any]]:
    return [
        {"role": "user", "content": "Add a --verbose flag"},
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Reading the CLI."},
                {"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {"path": "cli.py"}},
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "toolu_1", "content": "def main(): ..."}
            ],
        },
        {"role": "assistant", "content": [{"type": "text", "text": "Done: the flag is in."}]},
        {"role": "user", "content": "Now add tests"},
    ]


# --- random histories --------------------------------------------------------------------

words = st.text(alphabet="abcdefghij klmnop\n", min_size=0, max_size=60)
turn = st.one_of(
    st.tuples(st.just("user"), words),
    st.tuples(st.just("assistant"), words),
    # a tool exchange: (arguments, result or None for a call still running) per call
    st.tuples(
        st.just("tools"),
        st.lists(st.tuples(words, st.one_of(st.none(), words)), min_size=1, max_size=3),
    ),
)


def build_history(turns: Sequence[tuple[str, Any]], shape: str) -> list[dict[str, Any]]:
    history: list[dict[str, Any]] = []
    n = 0
    for kind, data in turns:
        if kind == "user":
            history.append({"role": "user", "content": data})
        elif kind == "assistant" and shape == "openai":
            history.append({"role": "assistant", "content": data})
        elif kind == "assistant":
            history.append({"role": "assistant", "content": [{"type": "text", "text": data}]})
        else:
            ids = []
            for _ in data:
                n += 1
                ids.append(f"call_{n}")
            if shape == "openai":
                history.append(
                    {
                        "role": "assistant",
                        "content": None,
                        "tool_calls": [
                            {
                                "id": i,
                                "type": "function",
                                "function": {"name": "Bash", "arguments": a},
                            }
                            for i, (a, _) in zip(ids, data, strict=True)
                        ],
                    }
                )
                history.extend(
                    {"role": "tool", "tool_call_id": i, "content": r}
                    for i, (_, r) in zip(ids, data, strict=True)
                    if r is not None
                )
            else:
                history.append(
                    {
                        "role": "assistant",
                        "content": [
                            {"type": "tool_use", "id": i, "name": "Bash", "input": {"cmd": a}}
                            for i, (a, _) in zip(ids, data, strict=True)
                        ],
                    }
                )
                results = [
                    {"type": "tool_result", "tool_use_id": i, "content": r}
                    for i, (_, r) in zip(ids, data, strict=True)
                    if r is not None
                ]
                if results:
                    history.append({"role": "user", "content": results})
    return history


def calls_of(message: dict[str, Any]) -> set[str]:
    ids = {c["id"] for c in message.get("tool_calls") or []}
    content = message.get("content")
    if isinstance(content, list):
        ids |= {b["id"] for b in content if b.get("type") == "tool_use"}
    return ids


def answers_of(message: dict[str, Any]) -> set[str]:
    ids = {message["tool_call_id"]} if message.get("role") == "tool" else set()
    content = message.get("content")
    if isinstance(content, list):
        ids |= {b["tool_use_id"] for b in content if b.get("type") == "tool_result"}
    return ids


def latest_user(history: Sequence[dict[str, Any]]) -> int | None:
    for i in range(len(history) - 1, -1, -1):
        if history[i]["role"] == "user" and not answers_of(history[i]):
            return i
    return None


def cut_allowed(history: Sequence[dict[str, Any]], cut: int) -> bool:
    """Keeping history[cut:] keeps every answered call with its answer, and the user's turn."""
    user = latest_user(history)
    if user is not None and cut > user:
        return False
    dropped_calls = set().union(*(calls_of(m) for m in history[:cut]))
    return not any(answers_of(m) & dropped_calls for m in history[cut:])


def history_part(view: ModelView, history: Sequence[dict[str, Any]]) -> list[Any]:
    """The messages of the view that came from the history."""
    messages = list(view.messages)
    if view.shape == "openai":
        messages = messages[1:]  # the system prompt
    if view.memory_text:
        if view.memory_position == "before_history" and view.shape == "openai":
            messages = messages[1:]
        elif view.memory_position == "after_history":
            messages = messages[:-1]
    return messages


class TestFittingProperty:
    @settings(max_examples=300, deadline=None)
    @given(
        turns=st.lists(turn, max_size=14),
        shape=st.sampled_from(["openai", "anthropic"]),
        fraction=st.floats(min_value=0.3, max_value=1.1),
        reserve=st.integers(min_value=0, max_value=50),
        with_memory=st.booleans(),
        position=st.sampled_from(["before_history", "after_history"]),
    )
    def test_view_fits_and_keeps_what_it_must(
        self,
        turns: list[tuple[str, Any]],
        shape: Any,
        fraction: float,
        reserve: int,
        with_memory: bool,
        position: Any,
    ) -> None:
        """The view fits, keeps a contiguous suffix with the latest user message and every
        kept tool result's call, drops as little as it can, or says why it cannot fit."""
        history = build_history(turns, shape)
        memory = make_memory("Fix the flaky test", "ran pytest") if with_memory else None
        fixed = message_tokens({"role": "system", "content": SYSTEM})
        if with_memory:
            fixed += message_tokens({"role": "system", "content": render_memory(memory)})  # type: ignore[arg-type]
        costs = [message_tokens(m) for m in history]
        available = max(1, int(fraction * (fixed + sum(costs))))
        window = available + reserve
        allowed = [c for c in range(len(history) + 1) if cut_allowed(history, c)]
        try:
            view = build_model_view(
                SYSTEM,
                memory,
                history,
                shape=shape,
                context_window=window,
                reserve_output_tokens=reserve,
                memory_position=position,
            )
        except BudgetError as exc:
            smallest = min(fixed + sum(costs[c:]) for c in allowed)
            assert smallest > available
            assert f"{smallest - available} tokens over" in str(exc)
            event("over budget")
            return
        event("dropped some" if view.dropped_messages else "dropped none")
        kept = history_part(view, history)
        cut = view.dropped_messages
        assert len(kept) == len(history) - cut
        assert all(a is b for a, b in zip(kept, history[cut:], strict=True))
        assert cut in allowed
        assert view.total_tokens == fixed + sum(costs[cut:]) <= available
        assert view.history_tokens == sum(costs[cut:])
        assert view.dropped_tokens == sum(costs[:cut])
        assert all(fixed + sum(costs[c:]) > available for c in allowed if c < cut)
        if shape == "openai":
            assert view.messages[0] == {"role": "system", "content": SYSTEM}
        else:
            assert view.system is not None
            assert view.system[0] == {"type": "text", "text": SYSTEM}
        if with_memory:
            assert view.memory_text == render_memory(memory)  # type: ignore[arg-type]
        user = latest_user(history)
        if user is not None:
            assert cut <= user

    @settings(max_examples=50, deadline=None)
    @given(turns=st.lists(turn, max_size=10), shape=st.sampled_from(["openai", "anthropic"]))
    def test_same_inputs_give_same_bytes(self, turns: list[tuple[str, Any]], shape: Any) -> None:
        """Equal inputs, even as different objects, give byte-identical JSON and memory text."""
        history = build_history(turns, shape)
        memory = make_memory("Ship it", "wrote docs")
        first = build_model_view(SYSTEM, memory, history, shape=shape)
        again = build_model_view(SYSTEM, copy.deepcopy(memory), copy.deepcopy(history), shape=shape)
        assert first.to_json() == again.to_json()
        assert first.memory_text == again.memory_text
        assert not build_model_view(SYSTEM, memory, history, previous=first).memory_changed


class TestShapes:
    def test_openai_order_is_system_memory_history(self) -> None:
        """OpenAI: system prompt, the memory as one system message, then the history."""
        history = openai_history()
        memory = make_memory()
        view = build_model_view(SYSTEM, memory, history)
        assert view.system is None
        assert view.messages[0] == {"role": "system", "content": SYSTEM}
        assert view.messages[1] == {"role": "system", "content": render_memory(memory)}
        assert list(view.messages[2:]) == history
        assert view.to_request() == {"messages": list(view.messages)}

    def test_anthropic_puts_prompt_and_memory_in_system_blocks(self) -> None:
        """Anthropic: the memory is a text block after the prompt's; messages are the history."""
        history = anthropic_history()
        memory = make_memory()
        view = build_model_view(SYSTEM, memory, history, shape="anthropic")
        assert view.system == (
            {"type": "text", "text": SYSTEM},
            {"type": "text", "text": render_memory(memory)},
        )
        assert list(view.messages) == history
        assert set(view.to_request()) == {"system", "messages"}

    def test_token_counts_are_reported_per_part(self) -> None:
        """System prompt, memory and history counts add up to the total."""
        history = openai_history()
        memory = make_memory()
        view = build_model_view(SYSTEM, memory, history)
        assert view.system_tokens == MESSAGE_OVERHEAD_TOKENS + counter().count(SYSTEM)
        assert view.memory_tokens == MESSAGE_OVERHEAD_TOKENS + memory.tokens_used
        assert view.history_tokens == sum(message_tokens(m) for m in history)
        assert view.total_tokens == view.system_tokens + view.memory_tokens + view.history_tokens


class TestEdges:
    @pytest.mark.parametrize("shape", ["openai", "anthropic"])
    @pytest.mark.parametrize("memory", [EMPTY_MEMORY, None])
    def test_empty_memory_adds_no_message(self, shape: Any, memory: SessionMemory | None) -> None:
        """An empty memory (or none) is left out entirely and costs no tokens."""
        history = openai_history() if shape == "openai" else anthropic_history()
        view = build_model_view(SYSTEM, memory, history, shape=shape)
        assert view.memory_text == ""
        assert view.memory_tokens == 0
        if shape == "openai":
            assert list(view.messages) == [{"role": "system", "content": SYSTEM}, *history]
        else:
            assert view.system == ({"type": "text", "text": SYSTEM},)
            assert list(view.messages) == history

    @pytest.mark.parametrize("shape", ["openai", "anthropic"])
    def test_empty_history(self, shape: Any) -> None:
        """With no history the view is the system prompt and the memory, and it still fits."""
        memory = make_memory()
        view = build_model_view(SYSTEM, memory, [], shape=shape, context_window=1000)
        assert view.history_tokens == 0
        assert view.dropped_messages == 0
        if shape == "openai":
            assert len(view.messages) == 2
        else:
            assert view.messages == ()
            assert view.system is not None and len(view.system) == 2

    def test_system_prompt_as_messages_openai(self) -> None:
        """A list of system messages is used as it is, the memory after it."""
        prompt: list[dict[str, Any]] = [
            {"role": "system", "content": "You are a coding agent."},
            {"role": "system", "content": [{"type": "text", "text": "Be brief."}]},
        ]
        view = build_model_view(prompt, make_memory(), openai_history())
        assert view.messages[0] is prompt[0]
        assert view.messages[1] is prompt[1]
        assert view.messages[2]["content"] == view.memory_text
        assert view.system_tokens == sum(message_tokens(m) for m in prompt)

    def test_system_prompt_as_messages_and_blocks_anthropic(self) -> None:
        """Anthropic: messages become text blocks; given blocks (cache_control too) stay."""
        block = {"type": "text", "text": "Be brief.", "cache_control": {"type": "ephemeral"}}
        prompt: list[dict[str, Any]] = [
            {"role": "system", "content": "You are a coding agent."},
            block,
        ]
        view = build_model_view(prompt, make_memory(), anthropic_history(), shape="anthropic")
        assert view.system is not None
        assert view.system[0] == {"type": "text", "text": "You are a coding agent."}
        assert view.system[1] is block
        assert view.system[2] == {"type": "text", "text": view.memory_text}

    def test_empty_system_prompt_is_left_out(self) -> None:
        """An empty system prompt string adds no message."""
        view = build_model_view("", None, openai_history())
        assert view.system_tokens == 0
        assert list(view.messages) == openai_history()

    @pytest.mark.parametrize("shape", ["openai", "anthropic"])
    @pytest.mark.parametrize("position", ["before_history", "after_history"])
    def test_inputs_are_not_mutated(self, shape: Any, position: Any) -> None:
        """Nothing the caller passes in changes, fitting or not."""
        history = openai_history() if shape == "openai" else anthropic_history()
        prompt = [{"role": "system", "content": SYSTEM}]
        memory = make_memory("Goal", "a", "b")
        before = copy.deepcopy((prompt, history, msgspec.to_builtins(memory)))
        full = build_model_view(prompt, memory, history, shape=shape, memory_position=position)
        build_model_view(
            prompt,
            memory,
            history,
            shape=shape,
            memory_position=position,
            context_window=full.total_tokens - 5,
            previous=full,
        )
        assert (prompt, history, msgspec.to_builtins(memory)) == before


class TestMemoryChanged:
    def test_first_view_counts_as_changed(self) -> None:
        """Without a previous view there is no cache to keep: memory_changed is true."""
        assert build_model_view(SYSTEM, make_memory(), []).memory_changed

    def test_same_memory_is_unchanged_even_as_history_grows(self) -> None:
        """An equal memory text is unchanged, whatever happens to the history."""
        history = openai_history()
        first = build_model_view(SYSTEM, make_memory(), history[:2])
        second = build_model_view(SYSTEM, make_memory(), history, previous=first)
        assert not second.memory_changed

    def test_new_memory_item_is_a_change(self) -> None:
        """A memory with a new item differs from the previous view's."""
        first = build_model_view(SYSTEM, make_memory(), [])
        second = build_model_view(
            SYSTEM, make_memory("Refactor the auth module", "x"), [], previous=first
        )
        assert second.memory_changed


class TestAfterHistory:
    def test_openai_memory_is_the_last_message(self) -> None:
        """after_history: the history directly follows the system prompt; memory comes last."""
        history = openai_history()
        view = build_model_view(SYSTEM, make_memory(), history, memory_position="after_history")
        assert list(view.messages[1:-1]) == history
        assert view.messages[-1] == {"role": "system", "content": view.memory_text}

    def test_anthropic_memory_is_a_final_user_message(self) -> None:
        """after_history, Anthropic: system holds only the prompt; memory is a last user turn."""
        history = anthropic_history()
        view = build_model_view(
            SYSTEM, make_memory(), history, shape="anthropic", memory_position="after_history"
        )
        assert view.system == ({"type": "text", "text": SYSTEM},)
        assert list(view.messages[:-1]) == history
        assert view.messages[-1] == {
            "role": "user",
            "content": [{"type": "text", "text": view.memory_text}],
        }

    def test_memory_change_leaves_the_history_prefix_unchanged(self) -> None:
        """The serialised prefix before the memory is the same when only the memory changes."""
        history = openai_history()
        a = build_model_view(SYSTEM, make_memory(), history, memory_position="after_history")
        b = build_model_view(
            SYSTEM, make_memory("Other goal"), history, memory_position="after_history"
        )
        assert a.messages[:-1] == b.messages[:-1]
        assert b.memory_changed


class TestFitting:
    def test_drops_oldest_first_and_keeps_tool_call_with_result(self) -> None:
        """Dropping the first user message would orphan nothing; dropping the call would."""
        history = openai_history()
        full = build_model_view(SYSTEM, None, history)
        costs = [message_tokens(m) for m in history]
        view = build_model_view(SYSTEM, None, history, context_window=full.total_tokens - 1)
        assert view.dropped_messages == 1
        # One token less than without the tool exchange: the call and its result go together.
        window = full.total_tokens - costs[0] - costs[1]
        view = build_model_view(SYSTEM, None, history, context_window=window)
        assert view.dropped_messages == 3
        assert list(view.messages[1:]) == history[3:]

    def test_budget_error_says_by_how_many_tokens(self) -> None:
        """When system prompt, memory and latest user message cannot fit, say the shortfall."""
        history = openai_history()
        memory = make_memory()
        need = (
            message_tokens({"role": "system", "content": SYSTEM})
            + message_tokens({"role": "system", "content": render_memory(memory)})
            + message_tokens(history[-1])
        )
        with pytest.raises(BudgetError, match=r"^the view is 7 tokens over the .* available"):
            build_model_view(SYSTEM, memory, history, context_window=need - 7)
        view = build_model_view(SYSTEM, memory, history, context_window=need)
        assert view.dropped_messages == len(history) - 1

    def test_reserve_output_tokens_shrinks_the_window(self) -> None:
        """The view fits the window minus the tokens reserved for the answer."""
        history = openai_history()
        full = build_model_view(SYSTEM, None, history)
        view = build_model_view(
            SYSTEM, None, history, context_window=full.total_tokens, reserve_output_tokens=1
        )
        assert view.dropped_messages > 0

    def test_everything_after_the_latest_user_message_is_kept(self) -> None:
        """The kept history is contiguous, so the agent's turn after the user is kept whole."""
        history = openai_history()[:-1]  # ends with the agent's answer; user message is first
        full = build_model_view(SYSTEM, None, history)
        with pytest.raises(BudgetError):
            build_model_view(SYSTEM, None, history, context_window=full.total_tokens - 1)

    def test_unanswered_tool_call_at_the_end_is_kept(self) -> None:
        """A history ending in a call still running keeps that call."""
        history = [*openai_history(), openai_history()[1]]
        full = build_model_view(SYSTEM, None, history)
        view = build_model_view(SYSTEM, None, history, context_window=full.total_tokens - 1)
        assert view.messages[-1] is history[-1]


class TestTokenCache:
    def test_growing_history_counts_only_new_messages(self) -> None:
        """A loop that appends one message per step counts one new message per step."""
        clear_message_token_cache()
        history = [{"role": "user", "content": f"message {i}"} for i in range(50)]
        build_model_view(SYSTEM, make_memory(), history)
        start = message_token_cache_info()
        assert start.misses == 51  # 50 messages and the memory text
        history.append({"role": "assistant", "content": "one more"})
        build_model_view(SYSTEM, make_memory(), history)
        info = message_token_cache_info()
        assert info.misses - start.misses == 1
        assert info.hits - start.hits == 51

    def test_a_message_changed_in_place_is_recounted(self) -> None:
        """The cache is keyed by content, not identity: an edited message gets a new count."""
        history = [{"role": "user", "content": "short"}]
        first = build_model_view(SYSTEM, None, history)
        history[0]["content"] = "a much longer message than before"
        second = build_model_view(SYSTEM, None, history)
        assert second.history_tokens > first.history_tokens

    def test_a_cache_passed_in_is_used_instead_of_the_default(self) -> None:
        """A caller's own cache holds the counts; the process default is left untouched."""
        clear_message_token_cache()
        cache = MessageTokenCache()
        history = [{"role": "user", "content": f"message {i}"} for i in range(3)]
        build_model_view(SYSTEM, make_memory(), history, cache=cache)
        build_model_view(SYSTEM, make_memory(), history, cache=cache)
        assert (cache.info().misses, cache.info().hits) == (4, 4)
        assert message_token_cache_info().misses == 0

    def test_counts_do_not_depend_on_the_cache(self) -> None:
        """A view built with a fresh cache, a warm one and the default counts the same."""
        history = openai_history()
        warm = MessageTokenCache()
        build_model_view(SYSTEM, make_memory(), history, cache=warm)
        views = [
            build_model_view(SYSTEM, make_memory(), history, cache=c)
            for c in (MessageTokenCache(maxsize=1), warm, None)
        ]
        assert len({(v.memory_tokens, v.history_tokens) for v in views}) == 1

    def test_a_cache_of_no_entries_is_a_config_error(self) -> None:
        """A cache that could hold nothing is refused when it is made."""
        with pytest.raises(ConfigError):
            MessageTokenCache(maxsize=0)


class TestEstimate:
    def test_tool_call_arguments_and_parts_count(self) -> None:
        """Tool-call arguments, text parts and attachments all count toward a message."""
        tok = counter()
        args = '{"path": "src/app/main.py"}'
        call = {
            "role": "assistant",
            "tool_calls": [
                {"id": "c", "type": "function", "function": {"name": "Read", "arguments": args}}
            ],
        }
        assert message_tokens(call) > tok.count(args)
        parts = {
            "role": "user",
            "content": [
                {"type": "text", "text": "look"},
                {"type": "image_url", "image_url": {"url": "data:..."}},
            ],
        }
        assert (
            message_tokens(parts) == MESSAGE_OVERHEAD_TOKENS + tok.count("look") + ATTACHMENT_TOKENS
        )


class TestErrors:
    def test_unknown_shape(self) -> None:
        """An unknown shape is a ConfigError."""
        with pytest.raises(ConfigError, match="shape"):
            build_model_view(SYSTEM, None, [], shape="gemini")  # type: ignore[arg-type]

    def test_window_smaller_than_reserve(self) -> None:
        """A window that leaves no room for input is a ConfigError."""
        with pytest.raises(ConfigError, match="no room"):
            build_model_view(SYSTEM, None, [], context_window=100, reserve_output_tokens=100)

    def test_history_item_not_an_object(self) -> None:
        """A history entry that is not a JSON object is a ViewInputError naming its index."""
        with pytest.raises(ViewInputError, match="history message 1"):
            build_model_view(SYSTEM, None, [{"role": "user", "content": "x"}, "oops"])  # type: ignore[list-item]

    def test_history_message_not_serialisable(self) -> None:
        """A message holding a non-JSON value is a ViewInputError."""
        with pytest.raises(ViewInputError, match="JSON"):
            build_model_view(SYSTEM, None, [{"role": "user", "content": object()}])
