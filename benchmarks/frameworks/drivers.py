"""The scripted run (``script.py``) on each framework, with the framework's own test model.

pydantic-ai runs it with ``FunctionModel``, the Agents SDK with a ``Model`` implementation of
its interface, LangChain with a ``GenericFakeChatModel`` that can be bound to tools (its own
fake chat model, which otherwise refuses ``bind_tools``). Each driver records what the model
received in every call, takes the integration (or none) the way a builder adds it, and runs
every user turn of the script on the history of the turns before. Nothing reaches the
network: the models are local, and the Agents SDK's tracing (which exports to the OpenAI
platform) is turned off in its ``RunConfig``.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel
from typing_extensions import TypedDict

from benchmarks.frameworks.script import SCRIPT, STEPS, SYSTEM_PROMPT, Step, Workspace

__all__ = ["Call", "Recording", "run_langchain", "run_openai_agents", "run_pydantic_ai"]


@dataclass(frozen=True, slots=True)
class Call:
    """What the model received in one call: the messages, and the instructions beside them."""

    messages: list[Any]
    instructions: str | None = None


@dataclass(slots=True)
class Recording:
    """Every call the model received, and the framework's whole history at the end."""

    calls: list[Call] = field(default_factory=list)
    history: list[Any] = field(default_factory=list)


class TodoEntry(TypedDict):
    """One entry of a todo list, as pydantic-ai validates a tool argument."""

    content: str
    status: str


class TodoModel(BaseModel):
    """One entry of a todo list, as the Agents SDK validates a tool argument."""

    content: str
    status: str


class _Tools:
    """The script's tools on one workspace, as plain functions every framework can wrap."""

    def __init__(self) -> None:
        self.workspace = Workspace()

    def read_file(self, path: str) -> str:
        return self.workspace.run("read_file", {"path": path})

    def todo_write(self, todos: list[dict[str, str]]) -> str:
        return self.workspace.run("todo_write", {"todos": todos})

    def edit_file(self, path: str, old: str, new: str) -> str:
        return self.workspace.run("edit_file", {"path": path, "old": old, "new": new})

    def bash(self, command: str) -> str:
        return self.workspace.run("bash", {"command": command})


def _steps() -> Iterator[Step]:
    yield from STEPS


# -- pydantic-ai -------------------------------------------------------------------------


def run_pydantic_ai(capabilities: Sequence[Any] = ()) -> Recording:
    """The run on a pydantic-ai ``Agent`` with ``capabilities``, its model a ``FunctionModel``."""
    from pydantic_ai import Agent
    from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
    from pydantic_ai.models.function import AgentInfo, FunctionModel
    from pydantic_ai.usage import UsageLimits

    recording = Recording()
    steps = _steps()

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        recording.calls.append(Call(list(messages), info.instructions))
        step = next(steps)
        if step.calls:
            parts = [ToolCallPart(c.name, c.args, tool_call_id=c.call_id) for c in step.calls]
            return ModelResponse(parts=list(parts))
        return ModelResponse(parts=[TextPart(step.text)])

    tools = _Tools()
    agent = Agent(
        FunctionModel(model), system_prompt=SYSTEM_PROMPT, capabilities=list(capabilities)
    )

    @agent.tool_plain
    def todo_write(todos: list[TodoEntry]) -> str:
        """Replace the todo list."""
        return tools.todo_write([dict(t) for t in todos])

    agent.tool_plain(tools.read_file)
    agent.tool_plain(tools.edit_file)
    agent.tool_plain(tools.bash)
    history: list[ModelMessage] | None = None
    for turn in SCRIPT:
        limits = UsageLimits(request_limit=None, tool_calls_limit=None)
        run = agent.run(turn.prompt, message_history=history, usage_limits=limits)
        result = asyncio.run(run)
        history = result.all_messages()
    recording.history = list(history or [])
    return recording


# -- OpenAI Agents SDK -------------------------------------------------------------------


def run_openai_agents(input_filter: Callable[..., Any] | None = None) -> Recording:
    """The run on an Agents SDK ``Agent`` with ``input_filter`` as its
    ``call_model_input_filter``, its model a scripted ``Model``."""
    from agents import Agent, RunConfig, Runner, Usage, function_tool
    from agents.items import ModelResponse
    from agents.models.interface import Model
    from openai.types.responses import (
        ResponseFunctionToolCall,
        ResponseOutputMessage,
        ResponseOutputText,
    )

    recording = Recording()
    steps = _steps()

    class Scripted(Model):
        async def get_response(  # type: ignore[override]
            self, system_instructions: str | None, input: Any, *args: Any, **kwargs: Any
        ) -> ModelResponse:
            recording.calls.append(Call(list(input), system_instructions))
            step = next(steps)
            output: list[Any] = [
                ResponseFunctionToolCall(
                    type="function_call",
                    call_id=c.call_id,
                    name=c.name,
                    arguments=json.dumps(c.args),
                )
                for c in step.calls
            ]
            if not step.calls:
                text = ResponseOutputText(type="output_text", text=step.text, annotations=[])
                output.append(
                    ResponseOutputMessage(
                        type="message",
                        id=f"msg_{len(recording.calls)}",
                        role="assistant",
                        status="completed",
                        content=[text],
                    )
                )
            return ModelResponse(output=output, usage=Usage(), response_id=None)

        def stream_response(self, *args: Any, **kwargs: Any) -> Any:
            raise NotImplementedError

    tools = _Tools()

    @function_tool
    def todo_write(todos: list[TodoModel]) -> str:
        """Replace the todo list."""
        return tools.todo_write([t.model_dump() for t in todos])

    agent = Agent(
        name="coder",
        instructions=SYSTEM_PROMPT,
        model=Scripted(),
        tools=[
            todo_write,
            function_tool(tools.read_file),
            function_tool(tools.edit_file),
            function_tool(tools.bash),
        ],
    )
    config = RunConfig(call_model_input_filter=input_filter, tracing_disabled=True)
    items: list[Any] = []
    for turn in SCRIPT:
        run = Runner.run(
            agent,
            [*items, {"role": "user", "content": turn.prompt}],
            run_config=config,
            max_turns=10_000,
        )
        items = asyncio.run(run).to_input_list()
    recording.history = items
    return recording


# -- LangChain ---------------------------------------------------------------------------


def run_langchain(middleware: Sequence[Any] = ()) -> Recording:
    """The run on a LangChain ``create_agent`` agent with ``middleware``, a checkpointer and
    one thread, its model LangChain's ``GenericFakeChatModel``."""
    from langchain.agents import create_agent
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
    from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
    from langchain_core.tools import StructuredTool
    from langgraph.checkpoint.memory import InMemorySaver

    recording = Recording()

    def answer(step: Step) -> AIMessage:
        calls = [{"name": c.name, "args": c.args, "id": c.call_id} for c in step.calls]
        return AIMessage(content=step.text, tool_calls=calls)

    class ToolUsingFake(GenericFakeChatModel):
        """LangChain's fake chat model, bindable to tools, recording what it receives."""

        def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
            return self

        def _generate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> Any:
            recording.calls.append(Call(list(messages)))
            return super()._generate(messages, *args, **kwargs)

    tools = _Tools()
    agent = create_agent(
        ToolUsingFake(messages=(answer(step) for step in STEPS)),
        tools=[
            StructuredTool.from_function(tools.todo_write, description="Replace the todo list."),
            StructuredTool.from_function(tools.read_file, description="Read a file."),
            StructuredTool.from_function(tools.edit_file, description="Edit a file."),
            StructuredTool.from_function(tools.bash, description="Run a shell command."),
        ],
        system_prompt=SYSTEM_PROMPT,
        middleware=list(middleware),
        checkpointer=InMemorySaver(),
    )
    config: Any = {"configurable": {"thread_id": "scripted"}, "recursion_limit": 10_000}
    state: dict[str, Any] = {}
    for turn in SCRIPT:
        state = agent.invoke({"messages": [HumanMessage(turn.prompt)]}, config)
    recording.history = list(state["messages"])
    return recording
