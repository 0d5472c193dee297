"""Subagents: agents called as gadgets, in a tree, in parallel, their costs rolled up."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import pytest

from llmist import Agent, gadget
from llmist.agent import (
    GadgetResultEvent,
    Hooks,
    LLMCompleteContext,
    Observers,
    SubagentEvent,
)
from llmist.models import ModelRegistry, ModelSpec
from llmist.providers.base import Message
from llmist.testing import MockModel, block_call


def _registry() -> ModelRegistry:
    registry = ModelRegistry(use_genai_prices=False)
    registry.register(ModelSpec("mock", "mock", input_price=3.0, output_price=15.0))
    return registry


class _Tree:
    """A root calling two children at once, each calling two leaves at once; every model call recorded."""

    def __init__(self) -> None:
        self.registry = _registry()
        self.calls: dict[str, list[LLMCompleteContext]] = {}
        self.barriers = {c: asyncio.Barrier(2) for c in ("c1", "c2")}

    def agent(self, name: str, responder: object, subagents: Sequence[Agent] = ()) -> Agent:
        hooks = Hooks(observers=Observers(on_llm_call_complete=self.calls.setdefault(name, []).append))
        return Agent(
            model=MockModel(responder), name=name, description=f"the {name} agent", subagents=subagents,  # type: ignore[arg-type]
            model_registry=self.registry, hooks=hooks,
        )  # fmt: skip

    def leaf(self, child: str, name: str) -> Agent:
        async def respond(messages: Sequence[Message]) -> str:
            await asyncio.wait_for(self.barriers[child].wait(), 10)  # both leaves of the child run at once
            return f"{name} found: {messages[-1].text}"

        return self.agent(name, respond)

    def branch(self, name: str, leaves: Sequence[str]) -> Agent:
        def respond(messages: Sequence[Message]) -> str:
            if messages[-1].role == "gadget_result":
                return f"{name} done"
            return "".join(block_call(leaf, task=f"part {leaf}") for leaf in leaves)

        return self.agent(name, respond, [self.leaf(name, leaf) for leaf in leaves])


def _root(tree: _Tree) -> Agent:
    def respond(messages: Sequence[Message]) -> str:
        if messages[-1].role == "gadget_result":
            return "all done"
        return block_call("c1", task="left half") + block_call("c2", task="right half")

    return tree.agent("root", respond, [tree.branch("c1", ["l1", "l2"]), tree.branch("c2", ["l3", "l4"])])


async def test_a_three_level_tree_runs_children_in_parallel_and_adds_up_costs() -> None:
    tree = _Tree()
    result = await _root(tree).run("Split the work.")
    assert result.output == "all done"
    calls = tree.calls
    assert {name: len(c) for name, c in calls.items()} == {
        "root": 2,
        "c1": 2,
        "c2": 2,
        "l1": 1,
        "l2": 1,
        "l3": 1,
        "l4": 1,
    }
    every = [c for agent_calls in calls.values() for c in agent_calls]
    assert result.cost == pytest.approx(sum(c.cost for c in every), rel=1e-12)
    assert result.usage.total_tokens == sum(c.usage.total_tokens for c in every)
    assert result.llm_cost == pytest.approx(sum(c.cost for c in calls["root"]), rel=1e-12)
    below = [c for name, agent_calls in calls.items() if name != "root" for c in agent_calls]
    assert result.gadget_cost == pytest.approx(sum(c.cost for c in below), rel=1e-12)


async def test_subagent_events_reach_the_parent_stream_tagged_with_depth_and_path() -> None:
    tree = _Tree()
    events = [e async for e in _root(tree).stream("Split the work.")]
    tagged = [e for e in events if isinstance(e, SubagentEvent)]
    depths = {e.depth for e in tagged}
    assert depths == {1, 2}
    children = {e.path for e in tagged if e.depth == 1}
    assert {p[0].split(":")[0] for p in children} == {"c1", "c2"}
    leaves = {e.path for e in tagged if e.depth == 2}
    assert {p[1].split(":")[0] for p in leaves} == {"l1", "l2", "l3", "l4"}
    assert all(p[:1] in children for p in leaves)
    leaf_results = [e.event for e in tagged if e.depth == 2 and isinstance(e.event, GadgetResultEvent)]
    assert leaf_results == []  # leaves call no gadgets; their text and ends come through
    assert any(e.depth == 2 and e.event.type == "text" for e in tagged)


async def test_cancelling_the_parent_stops_the_child() -> None:
    started, stopped = asyncio.Event(), asyncio.Event()

    @gadget
    async def wait_forever() -> str:
        """Waits until cancelled."""
        started.set()
        try:
            await asyncio.Event().wait()
        finally:
            stopped.set()
        return "never"

    child_model = MockModel([block_call("wait_forever"), "unreachable"])
    child = Agent(model=child_model, gadgets=[wait_forever], name="worker", description="works")
    parent = Agent(model=MockModel([block_call("worker", task="go"), "unreachable"]), subagents=[child])
    stream = parent.stream("Delegate.")

    async def consume() -> None:
        async for _ in stream:
            pass

    task = asyncio.create_task(consume())
    await asyncio.wait_for(started.wait(), 10)
    stream.cancel()
    await asyncio.wait_for(task, 10)
    assert stopped.is_set()
    assert stream.result is not None and stream.result.stop_reason == "cancelled"
    assert child_model.calls == 1


async def test_the_depth_limit_stops_runaway_recursion() -> None:
    def respond(messages: Sequence[Message]) -> str:
        last = messages[-1]
        if last.role == "gadget_result":
            return f"stopped: {last.text}"
        return block_call("self", task="again")

    agent = Agent(model=MockModel(respond), name="self", description="calls itself")
    agent.gadgets.append(agent.as_gadget(max_depth=2))
    result = await agent.run("Recurse.")
    assert "past its max_depth of 2" in result.output
    assert result.gadget_results[0].error is None  # depth 1 ran, and its own call (depth 2) too


def test_a_subagent_needs_a_name_and_a_description() -> None:
    with pytest.raises(ValueError, match=r"needs a name and a description"):
        Agent(model="mock").as_gadget()
