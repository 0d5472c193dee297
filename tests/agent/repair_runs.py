"""Run an agent on scripted responses and collect the repairs it reported: the harness of the
repair tests of each syntax."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from llmist import Agent
from llmist.agent import AgentResult, Hooks, Observers
from llmist.agent.prompt import SyntaxOption
from llmist.agent.repairs import RepairEvent
from llmist.testing import MockModel


async def run_with_repairs(
    gadgets: Sequence[object],
    *responses: str,
    strict: bool = False,
    syntax: SyntaxOption = "block",
    model: Any = None,
    **options: Any,
) -> tuple[AgentResult, list[RepairEvent]]:
    """The result of an agent with ``gadgets`` answering "task" with ``responses`` (or through
    ``model``, the agent's other ``options`` as given), and each :class:`RepairEvent` its
    ``on_repair`` observer got, in order."""
    events: list[RepairEvent] = []
    agent = Agent(
        model=model if model is not None else MockModel(list(responses)),
        gadgets=list(gadgets),
        hooks=Hooks(observers=Observers(on_repair=events.append)),
        strict=strict,
        syntax=syntax,
        **options,
    )
    return await agent.run("task"), events
