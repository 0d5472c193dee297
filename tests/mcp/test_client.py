"""MCP servers' tools as gadgets: listing, calling in both syntaxes, errors, lifetime."""

from __future__ import annotations

import json
import os
import re
import signal
import sys
from collections.abc import Sequence

import pytest

from llmist import Agent, LLMist, create_gadget
from llmist.mcp import MCPServerError, MCPServerStdio
from llmist.providers.base import ImagePart, Message
from llmist.syntax import GadgetCallEvent
from llmist.testing import MockModel, MockReply, tool_call

pytestmark = pytest.mark.slow


def block(name: str, **args: object) -> str:
    lines = [f"!!!GADGET_START:{name}"]
    for key, value in args.items():
        lines += [f"!!!ARG:{key}", str(value)]
    return "\n".join([*lines, "!!!GADGET_END"])


async def test_server_tools_become_gadgets_with_their_description_and_schema(toy: MCPServerStdio) -> None:
    async with toy:
        gadgets = {g.name: g for g in await toy.gadgets()}
        agent = Agent(model="mock", gadgets=list(gadgets.values()))
        assert set(gadgets) == {"add", "fail", "unlock", "picture", "files", "weather", "pid", "nap", "die"}
        assert gadgets["add"].description == "Add two integers."
        assert "- a (integer, required): first addend" in agent.system_prompt


async def test_agent_calls_a_server_tool_in_block_syntax(toy: MCPServerStdio) -> None:
    agent = Agent(model=MockModel([block("add", a=2, b=40), "done"]), mcp_servers=[toy])
    result = await agent.run("add")
    assert result.gadget_results[0].result == "42"
    assert result.output == "done"


async def test_agent_calls_a_server_tool_in_emoji_syntax(toy: MCPServerStdio) -> None:
    agent = Agent(model=MockModel(["🛠️[add 2 5]\n🛠️[/end]", "done"]), mcp_servers=[toy], syntax="emoji")
    result = await agent.run("add")
    assert result.gadget_results[0].result == "7"


async def test_the_builder_takes_mcp_servers(toy: MCPServerStdio) -> None:
    builder = LLMist().create_agent().with_model(MockModel([block("add", a=3, b=4), "done"])).with_mcp_servers(toy)
    result = await builder.build().run("add")
    assert result.gadget_results[0].result == "7"


async def test_an_is_error_result_becomes_an_error_the_model_reads(toy: MCPServerStdio) -> None:
    agent = Agent(model=MockModel([block("fail", reason="disk full"), "gave up"]), mcp_servers=[toy])
    result = await agent.run("try")
    assert result.gadget_results[0].error is not None
    assert "failed on purpose: disk full" in result.gadget_results[0].error
    assert result.stop_reason == "no_calls"


async def test_images_are_described_beside_the_text(toy: MCPServerStdio) -> None:
    async with toy:
        assert await toy.call_tool("picture", {}) == "a red dot\n[image: image/png, 8 bytes]"


async def test_a_tools_image_reaches_a_model_that_sees_images_as_an_image(toy: MCPServerStdio) -> None:
    model = MockModel([block("picture"), "a red dot"], vision=True)
    result = await Agent(model=model, mcp_servers=[toy]).run("show me")
    assert [(m.media_type, m.data) for m in result.gadget_results[0].media] == [("image/png", b"\x89PNG\r\n\x1a\n")]
    sent = model.requests[1].messages[-1].content
    assert isinstance(sent, tuple) and any(isinstance(p, ImagePart) and p.data.startswith(b"\x89PNG") for p in sent)


async def test_a_tools_image_is_described_once_to_a_model_that_does_not_see(toy: MCPServerStdio) -> None:
    model = MockModel([block("picture"), "a red dot"], vision=False)
    await Agent(model=model, mcp_servers=[toy]).run("show me")
    sent = model.requests[1].messages[-1].text
    assert "a red dot" in sent and sent.count("image/png") == 1


async def test_server_tools_are_native_tools_with_their_schema(toy: MCPServerStdio) -> None:
    model = MockModel([MockReply(tool_calls=[tool_call("add", a=3, b=4)]), "7"])
    result = await Agent(model=model, mcp_servers=[toy], syntax="native").run("3 + 4?")
    assert result.gadget_results[0].result == "7"
    add = next(t for t in model.requests[0].tools if t.name == "add")
    assert add.parameters["required"] == ["a", "b"]


async def test_resources_are_described_by_uri_type_and_size(toy: MCPServerStdio) -> None:
    async with toy:
        assert await toy.call_tool("files", {}) == (
            "[resource: file:///a.txt, text/plain]\nhi\n"
            "[resource: file:///b.bin, 3 bytes]\n"
            "[resource link: file:///c.csv (c.csv, text/csv)]"
        )


async def test_structured_content_alone_becomes_json_text(toy: MCPServerStdio) -> None:
    async with toy:
        assert json.loads(await toy.call_tool("weather", {})) == {"temp_c": 21, "sky": "clear"}


async def test_tool_list_is_fetched_again_after_list_changed(toy: MCPServerStdio) -> None:
    async with toy:
        assert "secret" not in [t.name for t in await toy.list_tools()]
        await toy.call_tool("unlock", {})
        await toy.wait_tools_changed()
        assert "secret" in [t.name for t in await toy.list_tools()]
        assert await toy.call_tool("secret", {}) == "the secret is 42"


async def test_a_server_that_dies_mid_run_gives_error_results_and_the_run_completes(toy: MCPServerStdio) -> None:
    script = [block("die"), block("add", a=1, b=1), "finished without it"]
    result = await Agent(model=MockModel(script), mcp_servers=[toy]).run("go")
    died, after = result.gadget_results
    assert died.error is not None and "stopped while running die" in died.error
    assert after.error is not None and "no longer running" in after.error
    assert result.output == "finished without it"
    assert result.stop_reason == "no_calls"


async def test_a_server_killed_between_rounds_gives_an_error_result_and_the_run_completes(
    toy: MCPServerStdio,
) -> None:
    def answer(conversation: Sequence[Message]) -> str:
        rounds = sum(m.role == "assistant" for m in conversation)
        if rounds == 0:
            return block("pid")
        if rounds == 1:  # the pid came back: kill the server, then call it again
            os.kill(int(re.findall(r"\d+", conversation[-1].text)[-1]), signal.SIGKILL)
            return block("add", a=1, b=1)
        return "finished without it"

    result = await Agent(model=MockModel(answer), mcp_servers=[toy]).run("go")
    killed = result.gadget_results[1]
    assert killed.error is not None and "add" in killed.error
    assert "connection closed" in killed.error or "no longer running" in killed.error
    assert result.output == "finished without it"


async def test_a_cancelled_run_cancels_the_tool_call_and_disconnects(toy: MCPServerStdio) -> None:
    stream = Agent(model=MockModel([block("nap", seconds=60), "done"]), mcp_servers=[toy]).stream("go")
    async for event in stream:
        if isinstance(event, GadgetCallEvent):
            stream.cancel()
    assert stream.result is not None and stream.result.stop_reason == "cancelled"
    assert not toy.connected


async def test_tool_prefix_keeps_two_servers_apart(toy: MCPServerStdio) -> None:
    other = MCPServerStdio(toy.params.command, toy.params.args, tool_prefix="b_")
    agent = Agent(model=MockModel([block("b_add", a=1, b=2), "done"]), mcp_servers=[toy, other])
    result = await agent.run("add")
    assert result.gadget_results[0].result == "3"


async def test_a_clash_with_another_gadget_names_the_fix(toy: MCPServerStdio) -> None:
    clash = create_gadget(name="add", description="Local add.", schema={"type": "object"}, execute=lambda p: "")
    with pytest.raises(ValueError, match="tool_prefix"):
        await Agent(model=MockModel(["done"]), gadgets=[clash], mcp_servers=[toy]).run("go")
    assert not toy.connected


async def test_the_agent_disconnects_servers_it_connected_when_the_run_ends(toy: MCPServerStdio) -> None:
    await Agent(model=MockModel(["done"]), mcp_servers=[toy]).run("go")
    assert not toy.connected


async def test_the_agent_disconnects_when_the_stream_is_closed_mid_run(toy: MCPServerStdio) -> None:
    stream = Agent(model=MockModel([block("add", a=1, b=2), "done"]), mcp_servers=[toy]).stream("go")
    async for _event in stream:
        assert toy.connected
        break
    await stream.aclose()
    assert not toy.connected


async def test_a_server_the_caller_opened_stays_open_across_runs(toy: MCPServerStdio) -> None:
    async with toy:
        agent = Agent(model=MockModel([block("add", a=1, b=2), "done"] * 2), mcp_servers=[toy])
        await agent.run("one")
        assert toy.connected
        assert (await agent.run("two")).gadget_results[0].result == "3"


async def test_a_server_that_cannot_start_is_a_clear_error() -> None:
    server = MCPServerStdio(sys.executable, ["-c", "raise SystemExit(1)"])
    with pytest.raises(MCPServerError, match="could not connect to MCP server"):
        await Agent(model=MockModel(["done"]), mcp_servers=[server]).run("go")


@pytest.mark.parametrize(
    ("syntax", "answer"),
    [
        ("block", block("get_current_time", timezone="Europe/Paris")),
        ("emoji", "🛠️[get_current_time Europe/Paris]\n🛠️[/end]"),
    ],
)
async def test_published_time_server_answers_in_both_syntaxes(
    time_server: MCPServerStdio, syntax: str, answer: str
) -> None:
    agent = Agent(model=MockModel([answer, "done"]), mcp_servers=[time_server], syntax=syntax)  # type: ignore[arg-type]
    result = await agent.run("what time is it in Paris?")
    assert result.gadget_results[0].error is None
    assert json.loads(result.gadget_results[0].result or "")["timezone"] == "Europe/Paris"


async def test_a_server_that_died_is_started_again_by_the_next_run(toy: MCPServerStdio) -> None:
    async with toy:
        agent = Agent(model=MockModel([block("die"), "one", block("add", a=2, b=2), "two"]), mcp_servers=[toy])
        await agent.run("first")
        assert not toy.connected
        assert (await agent.run("second")).gadget_results[0].result == "4"


async def test_a_lone_surrogate_in_a_calls_arguments_reaches_the_server_as_a_replacement_character(
    toy: MCPServerStdio,
) -> None:
    agent = Agent(model=MockModel([block("fail", reason="bad \ud800 byte"), "gave up"]), mcp_servers=[toy])
    result = await agent.run("try")
    error = result.gadget_results[0].error
    assert error is not None and error.endswith("failed on purpose: bad \ufffd byte")


async def test_compaction_runs_in_a_run_with_mcp_servers(toy: MCPServerStdio) -> None:
    from llmist.agent import CompactionContext, Hooks, Observers, SlidingWindow

    rounds = iter(range(30))

    def long_turns(messages: Sequence[Message]) -> str:
        n = next(rounds, None)
        return "so far so good " * 40 + block("add", a=n, b=1) if n is not None else "done"

    reports: list[CompactionContext] = []
    model = MockModel(long_turns)
    agent = Agent(
        model=model, mcp_servers=[toy], context_window=3_000, max_iterations=40, compaction=SlidingWindow(keep_turns=3),
        hooks=Hooks(observers=Observers(on_compaction=reports.append)),
    )  # fmt: skip
    result = await agent.run("Count.")
    assert result.output == "done"
    assert len(reports) >= 3
    assert all(sum(len(m.text) for m in r.messages) / 4 < 3_000 for r in model.requests)
