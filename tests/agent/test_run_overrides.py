"""A run overrides any option of its agent for itself only: the constructor's keywords, checked as
the constructor checks them, never written to the agent, so runs of one agent at once each keep
their own session and hooks (issue 41)."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable, Sequence
from typing import Any

import pytest

from llmist import Agent, RunLimits, gadget
from llmist.agent import GadgetContext, Hooks, Observers, RunOptions
from llmist.agent.options import FlatOptions
from llmist.providers.base import Message
from llmist.testing import MockModel, block_call

from .conftest import ListSession, add


def _forever() -> MockModel:
    return MockModel(lambda messages: block_call("add", a=len(messages), b=1))


def _texts(messages: Sequence[Message]) -> str:
    return " ".join(m.content for m in messages if isinstance(m.content, str))


async def test_a_flat_keyword_overrides_the_agents_option_for_one_run_only() -> None:
    agent = Agent(model=_forever(), gadgets=[add], max_iterations=4)
    spec = agent.spec
    result = await agent.run("add", max_iterations=1)
    assert (result.iterations, result.stop_reason) == (1, "max_iterations")
    assert agent.max_iterations == 4
    assert agent.spec is spec
    assert (await agent.run("add")).iterations == 4


async def test_a_flat_keyword_changes_that_field_of_a_group_given_beside_it() -> None:
    agent = Agent(model=_forever(), gadgets=[add])
    result = await agent.run("add", limits=RunLimits(max_iterations=5, max_cost=9.0), max_iterations=2)
    assert result.iterations == 2


def test_run_sync_takes_overrides_too() -> None:
    agent = Agent(model=_forever(), gadgets=[add], max_iterations=3)
    assert agent.run_sync("add", max_iterations=1).iterations == 1
    assert agent.max_iterations == 3


async def test_stream_takes_overrides() -> None:
    agent = Agent(model=MockModel(["plain"]), system="agent's")
    stream = agent.stream("hi", system="the run's")
    async for _ in stream:
        pass
    assert stream.result is not None and stream.result.messages[0].content.startswith("the run's")
    assert agent.system == "agent's"


_BAD: list[dict[str, Any]] = [
    {"max_iterations": 0},
    {"few_shot": -1},
    {"prompt_style": "tiny"},
    {"constrained": "maybe"},
    {"max_response_tokens": 0},
    {"syntax": "xml"},
    {"approvals": "always"},
    {"compaction": 3},
    {"gadgets": [add, add]},
    {"max_iteration": 3},
]


@pytest.mark.parametrize("bad", _BAD, ids=[next(iter(b)) for b in _BAD])
async def test_a_bad_override_fails_as_the_constructor_does(bad: dict[str, Any]) -> None:
    with pytest.raises((TypeError, ValueError)) as made:
        Agent(model="mock", **bad)
    agent = Agent(model=MockModel(["never asked"]))
    with pytest.raises(made.type) as ran:
        await agent.run("q", **bad)
    # The same message, but for the function it names (an unknown keyword's TypeError).
    assert str(ran.value) == str(made.value).replace("Agent()", "Agent.run()")
    assert agent.spec == Agent(model=agent.model).spec  # nothing changed on the agent


async def test_name_and_description_are_the_agents_not_a_runs() -> None:
    with pytest.raises(TypeError, match=r"Agent\.run\(\) got an unexpected keyword argument 'name'"):
        await Agent(model=MockModel(["x"])).run("q", name="other")  # type: ignore[call-arg]


async def test_gadgets_given_to_a_run_replace_the_agents_for_that_run() -> None:
    @gadget
    def double(n: int) -> int:
        """Double a number."""
        return 2 * n

    model = MockModel([block_call("double", n=4), "done"])
    agent = Agent(model=model, gadgets=[add])
    result = await agent.run("q", gadgets=[double])
    assert [(r.gadget_name, r.result, r.error) for r in result.gadget_results] == [("double", "8", None)]
    assert [g.name for g in agent.gadgets] == ["add"]


async def test_subagents_given_to_a_run_replace_the_agents_and_keep_its_gadgets() -> None:
    helper = Agent(model=MockModel(["helped"]), name="helper", description="Helps.")
    other = Agent(model=MockModel(["other help"]), name="other", description="Helps otherwise.")
    model = MockModel([block_call("add", a=1, b=2) + block_call("other", task="t"), "done"])
    agent = Agent(model=model, gadgets=[add], subagents=[helper])
    result = await agent.run("q", subagents=[other])
    assert sorted((r.gadget_name, r.ok) for r in result.gadget_results) == [("add", True), ("other", True)]
    assert [g.name for g in agent.gadgets] == ["add", "helper"]
    result = await Agent(model=MockModel(["done"]), gadgets=[add], subagents=[helper]).run("q", gadgets=[])
    assert result.output == "done"


async def test_a_run_given_gadgets_keeps_the_agents_subagents() -> None:
    helper = Agent(model=MockModel(["helped"]), name="helper", description="Helps.")
    model = MockModel([block_call("helper", task="t"), "done"])
    result = await Agent(model=model, gadgets=[add], subagents=[helper]).run("q", gadgets=[])
    assert [(r.gadget_name, r.result) for r in result.gadget_results] == [("helper", "helped")]


async def test_hooks_given_to_a_run_replace_the_agents_own() -> None:
    seen: list[str] = []
    agents = Hooks(observers=Observers(on_gadget_start=lambda ctx: seen.append("agent's")))
    runs = Hooks(observers=Observers(on_gadget_start=lambda ctx: seen.append("run's")))
    agent = Agent(model=MockModel([block_call("add", a=1, b=2), "3"]), gadgets=[add], hooks=agents)
    await agent.run("q", hooks=[runs])  # a list, as the constructor takes: merged in order
    assert seen == ["run's"]
    assert agent.hooks is agents


async def test_session_none_given_to_a_run_keeps_that_run_out_of_the_agents_session() -> None:
    kept = ListSession("kept")
    agent = Agent(model=MockModel(["a", "b"]), session=kept)
    await agent.run("private", session=None)
    await agent.run("public")
    assert "private" not in _texts(kept.stored) and "public" in _texts(kept.stored)


async def test_two_runs_at_once_each_see_only_their_own_session_and_hooks() -> None:
    both_inside = asyncio.Event()
    inside: list[str] = []

    @gadget
    async def wait(tag: str) -> str:
        """Wait until both runs are inside a call."""
        inside.append(tag)
        if len(inside) == 2:
            both_inside.set()
        await asyncio.wait_for(both_inside.wait(), timeout=60)  # only to detect a hang
        return f"waited {tag}"

    def answer(messages: Sequence[Message]) -> str:
        # The prompt names the run; the call carries it, so each hook can tell whose call it saw.
        tag = "alpha" if "alpha" in _texts(messages) else "beta"
        return f"{tag} done" if messages[-1].role == "gadget_result" else block_call("wait", tag=tag)

    def watcher(seen: list[str]) -> Hooks:
        record: Callable[[GadgetContext], None] = lambda ctx: seen.append(ctx.parameters["tag"])  # noqa: E731
        return Hooks(observers=Observers(on_gadget_start=record))

    agents_session, agents_seen = ListSession("agent's"), []
    agent = Agent(model=MockModel(answer), gadgets=[wait], session=agents_session, hooks=watcher(agents_seen))
    spec = agent.spec
    sessions = {tag: ListSession(tag) for tag in ("alpha", "beta")}
    seen: dict[str, list[str]] = {"alpha": [], "beta": []}
    results = await asyncio.gather(
        *(agent.run(f"task {tag}", session=sessions[tag], hooks=watcher(seen[tag])) for tag in ("alpha", "beta"))
    )
    assert sorted(inside) == ["alpha", "beta"]  # the runs really overlapped: each waited for the other
    assert [r.output for r in results] == ["alpha done", "beta done"]
    assert seen == {"alpha": ["alpha"], "beta": ["beta"]}
    for tag, other in (("alpha", "beta"), ("beta", "alpha")):
        text = _texts(sessions[tag].stored)
        assert f"task {tag}" in text and f"waited {tag}" in text and other not in text
    assert agents_session.stored == [] and agents_seen == []
    assert agent.spec is spec and agent.session is agents_session


def test_a_run_overrides_exactly_the_options_the_constructor_takes() -> None:
    own = set(inspect.signature(Agent).parameters) - {"name", "description", "output_type", "options"}
    assert set(RunOptions.__optional_keys__) == own | set(FlatOptions.__optional_keys__)
    assert set(inspect.signature(Agent.run).parameters) == {
        "self",
        "prompt",
        "signal",
        "output_type",
        "history",
        "overrides",
    }
