"""Subagents: an agent that another agent calls as a gadget.

``researcher.as_gadget("Research", "Finds facts about a topic")`` (or ``Agent(..., subagents=[...])``)
makes an agent a gadget whose one parameter is the ``task``. Each call runs the agent on that task
with its own conversation, model and limits, and returns its final output. Its cost joins the
calling run's gadget cost and its token usage the calling run's usage. While it runs, its events
reach the calling run's ``stream()`` as :class:`SubagentEvent`, tagged with the depth and the path
(``"Research:call_1"``, ...) so a UI can draw the tree. Cancelling the calling run cancels it.
Calls run in parallel like any gadget's; :data:`DEFAULT_MAX_DEPTH` (or ``max_depth``) stops
runaway recursion.

The mechanism is the subagent feature's (``llmist.agent._features.subagents``); the gadget here
starts each run through the assembler, from the agent's spec as it is when the call starts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from pydantic import BaseModel, Field

from llmist.agent._assemble import start_run
from llmist.agent._features.subagents import DelegatingGadget, RunScope, SubagentCall, report_to_caller
from llmist.agent.events import SubagentEvent
from llmist.agent.stream import AgentStream
from llmist.gadgets import AbortSignal

if TYPE_CHECKING:
    from llmist.agent.spec import AgentSpec

__all__ = [
    "DEFAULT_MAX_DEPTH",
    "DelegatingGadget",
    "SpecHolder",
    "SubagentEvent",
    "SubagentGadget",
    "SubagentParams",
    "report_to_caller",
]

DEFAULT_MAX_DEPTH = 4
"""How deep subagents may nest by default (a subagent of the top agent is at depth 1)."""


class SubagentParams(BaseModel):
    """The one parameter of a subagent gadget."""

    task: str = Field(
        description="The task for the subagent, with everything it needs to know (it does not see this conversation).",
        json_schema_extra={"body": True},
    )


class SpecHolder(Protocol):
    """What a subagent gadget needs of the agent it runs: its spec, read when each call starts
    (an :class:`~llmist.agent.Agent` is one). A protocol rather than the ``Agent`` class, so that
    this module, which ``agent.py`` imports, imports nothing of ``agent.py`` back."""

    @property
    def spec(self) -> AgentSpec:
        """The agent's options as they are now (a change to the agent applies from the next call on)."""
        ...


class SubagentGadget(SubagentCall):
    """A gadget that runs an agent on the ``task`` it is given (see the module docstring)."""

    Params = SubagentParams
    timeout_s = None

    def __init__(self, agent: SpecHolder, name: str, description: str, *, max_depth: int = DEFAULT_MAX_DEPTH) -> None:
        if max_depth < 1:
            raise ValueError(f"max_depth must be at least 1, got {max_depth}")
        self.agent = agent
        self.name = name
        self.description = description
        self.max_depth = max_depth

    def start(self, task: str, signal: AbortSignal, scope: RunScope) -> AgentStream[Any]:
        """A run of the agent's spec on ``task``, below the calling run."""
        return start_run(self.agent.spec, task, signal=signal, scope=scope)
