"""Agent basics: run, run_sync, stream, gadgets of every kind, both syntaxes, custom markers."""

from __future__ import annotations

from llmist import (
    Agent,
    GadgetCallEvent,
    GadgetResultEvent,
    Hooks,
    LLMResponseEndEvent,
    Observers,
    TextEvent,
)
from llmist.agent import GadgetContext
from llmist.testing import MockModel, block_call, collect_events, emoji_call, result_text

from .conftest import Echo, add


async def test_single_call_then_answer() -> None:
    model = MockModel([block_call("add", a=2, b=3), "5"])
    result = await Agent(model=model, gadgets=[add]).run("2 + 3?")
    assert (result.output, result.stop_reason, result.iterations) == ("5", "no_calls", 2)
    assert [r.result for r in result.gadget_results] == ["5"]
    model.assert_complete()


async def test_results_go_back_tagged_with_name_and_id() -> None:
    model = MockModel([block_call("add", invocation_id="sum1", a=2, b=3), "5"])
    await Agent(model=model, gadgets=[add]).run("2 + 3?")
    last = model.requests[1].messages[-1]
    assert last.role == "gadget_result"
    assert "add" in last.text and "sum1" in last.text and "5" in last.text


async def test_second_request_holds_assistant_text_then_results() -> None:
    model = MockModel([block_call("add", a=1, b=1), "2"])
    await Agent(model=model, gadgets=[add]).run("go")
    roles = [m.role for m in model.requests[1].messages]
    assert roles == ["system", "user", "assistant", "gadget_result"]


def test_run_sync_runs_without_a_loop() -> None:
    result = Agent(model=MockModel([block_call("add", a=1, b=2), "3"]), gadgets=[add]).run_sync("1+2")
    assert result.output == "3"


async def test_gadgets_accept_instances_classes_and_functions() -> None:
    script = [block_call("Echo", text="x") + block_call("add", a=1, b=1), "ok"]
    for gadgets in ([Echo(), add], [Echo, add]):
        result = await Agent(model=MockModel(script), gadgets=gadgets).run("go")
        assert sorted(r.result or "" for r in result.gadget_results) == ["2", "x"]


async def test_stream_yields_text_calls_results_and_response_ends() -> None:
    model = MockModel(["Let me add.\n" + block_call("add", a=2, b=3), "5"])
    events = await collect_events(Agent(model=model, gadgets=[add]).stream("2+3"))
    kinds = [e.type for e in events]
    assert kinds == ["text", "gadget_call", "llm_response_end", "gadget_result", "text", "llm_response_end"]
    assert isinstance(events[0], TextEvent) and events[0].content.startswith("Let me add.")
    assert isinstance(events[1], GadgetCallEvent) and events[1].call.gadget_name == "add"
    assert isinstance(events[3], GadgetResultEvent) and events[3].result.result == "5"
    assert isinstance(events[-1], LLMResponseEndEvent) and events[-1].finish_reason == "stop"


async def test_stream_sets_the_result_when_exhausted() -> None:
    stream = Agent(model=MockModel([block_call("add", a=2, b=3), "5"]), gadgets=[add]).stream("2+3")
    await collect_events(stream)
    assert stream.result is not None and stream.result.output == "5"


async def test_same_script_drives_run_and_stream() -> None:
    script = ["Adding.\n" + block_call("add", a=2, b=3), "The answer is 5."]
    ran = await Agent(model=MockModel(script), gadgets=[add]).run("q")
    stream = Agent(model=MockModel(script, chunk_size=3), gadgets=[add]).stream("q")
    await collect_events(stream)
    assert stream.result is not None
    assert (ran.output, [r.result for r in ran.gadget_results]) == (
        stream.result.output,
        [r.result for r in stream.result.gadget_results],
    )


async def test_ragged_chunks_split_markers_anywhere() -> None:
    text = block_call("add", a=20, b=22)
    for split in ([1, 5, 17, 18, 19, 30], list(range(1, len(text)))):
        model = MockModel([text, "42"], split=split)
        result = await Agent(model=model, gadgets=[add]).run("q")
        assert [r.result for r in result.gadget_results] == ["42"]


async def test_emoji_syntax_end_to_end() -> None:
    model = MockModel([emoji_call("add", 2, 3), "5"], chunk_size=4)
    agent = Agent(model=model, gadgets=[add], syntax="emoji")
    result = await agent.run("2+3")
    assert [r.result for r in result.gadget_results] == ["5"]
    assert "🛠️[" in agent.system_prompt and "!!!GADGET_START" not in agent.system_prompt


async def test_emoji_body_fills_the_body_field() -> None:
    model = MockModel([emoji_call("Echo", body="hello\nworld"), "done"])
    result = await Agent(model=model, gadgets=[Echo], syntax="emoji").run("echo")
    assert result.gadget_results[0].result == "hello\nworld"


async def test_custom_markers_end_to_end() -> None:
    markers = {"start_prefix": "<<<TOOL:", "end_prefix": "<<<END", "arg_prefix": "@param:"}
    model = MockModel([block_call("add", a=2, b=3, **markers), "5"])
    agent = Agent(
        model=model,
        gadgets=[add],
        gadget_start_prefix="<<<TOOL:",
        gadget_end_prefix="<<<END",
        gadget_arg_prefix="@param:",
    )
    result = await agent.run("2+3")
    assert [r.result for r in result.gadget_results] == ["5"]
    assert "<<<TOOL:" in agent.system_prompt


async def test_agents_built_one_after_another_each_read_their_own_markers() -> None:
    # Parsers of finished runs are reused by later agents' runs: only by those with the same markers.
    custom = {"start_prefix": "<<<TOOL:", "end_prefix": "<<<END", "arg_prefix": "@param:"}
    flat = {"gadget_start_prefix": "<<<TOOL:", "gadget_end_prefix": "<<<END", "gadget_arg_prefix": "@param:"}
    for a in range(3):
        plain = Agent(model=MockModel([block_call("add", a=a, b=1), "ok"]), gadgets=[add])
        marked = Agent(model=MockModel([block_call("add", a=a, b=2, **custom), "ok"]), gadgets=[add], **flat)
        emoji = Agent(model=MockModel([emoji_call("add", a, 3), "ok"]), gadgets=[add], syntax="emoji")
        for agent, b in ((plain, 1), (marked, 2), (emoji, 3)):
            result = await agent.run("add")
            assert [r.result for r in result.gadget_results] == [str(a + b)], agent.syntax


async def test_agents_with_ever_new_markers_keep_a_bounded_number_of_parser_pools() -> None:
    from llmist.agent._run import plan

    for i in range(plan._POOLS_KEPT + 6):  # past the bound: the pools are dropped, runs go on
        start, end = f"<<<T{i}:", f"<<<E{i}"
        model = MockModel([block_call("add", a=i, b=1, start_prefix=start, end_prefix=end), "ok"])
        agent = Agent(model=model, gadgets=[add], gadget_start_prefix=start, gadget_end_prefix=end)
        assert [r.result for r in (await agent.run("add")).gadget_results] == [str(i + 1)]
        assert len(plan._PARSERS) <= plan._POOLS_KEPT


async def test_dependent_calls_in_one_response_run_in_order() -> None:
    order: list[str] = []

    def note(ctx: GadgetContext) -> None:
        order.append(ctx.invocation_id)

    text = block_call("add", invocation_id="second", deps=["first"], a=1, b=1)
    text += block_call("add", invocation_id="first", a=0, b=1)
    agent = Agent(model=MockModel([text, "ok"]), gadgets=[add], hooks=Hooks(observers=Observers(on_gadget_start=note)))
    result = await agent.run("q")
    assert order == ["first", "second"]
    assert len(result.gadget_results) == 2


async def test_calls_may_depend_on_results_of_earlier_responses() -> None:
    first = block_call("add", invocation_id="a1", a=1, b=1)
    script = [first, block_call("add", invocation_id="a2", deps=["a1"], a=2, b=2), "done"]
    result = await Agent(model=MockModel(script), gadgets=[add]).run("q")
    assert [r.error for r in result.gadget_results] == [None, None]


async def test_model_mock_string_runs_offline() -> None:
    result = await Agent(model="mock", gadgets=[add]).run("hello")
    assert (result.stop_reason, result.output) == ("no_calls", "(mock) hello")


async def test_conversation_order_follows_the_calls_not_completion() -> None:
    text = "".join(block_call("add", invocation_id=f"c{i}", a=i, b=0) for i in range(5))
    model = MockModel([text, "ok"])
    await Agent(model=model, gadgets=[add]).run("q")
    ids = [m.text.split("id ")[1].split(")")[0] for m in model.requests[1].messages if m.role == "gadget_result"]
    assert ids == [f"c{i}" for i in range(5)]


async def test_concurrent_runs_of_one_agent_stay_apart() -> None:
    import asyncio
    from collections.abc import Sequence

    from llmist.providers.base import Message

    def model(messages: Sequence[Message]) -> str:
        n = int(messages[1].text)
        if messages[-1].role == "user":
            return "thinking\n" + block_call("add", a=n, b=n)
        return "answer " + result_text(messages[-1])

    agent = Agent(model=MockModel(model, chunk_size=5, delay_s=0.001), gadgets=[add])
    results = await asyncio.gather(*(agent.run(str(n)) for n in range(10)))
    assert [r.output for r in results] == [f"answer {2 * n}" for n in range(10)]


async def test_assigning_a_model_applies_from_the_next_run() -> None:
    agent = Agent(model=MockModel(["first"]), gadgets=[add])
    assert (await agent.run("q")).output == "first"
    agent.model = MockModel(["second"])
    assert (await agent.run("q")).output == "second"


async def test_stream_batches_hold_the_same_events_as_the_stream() -> None:
    def script() -> MockModel:
        return MockModel([block_call("add", a=2, b=3), "5"], chunk_size=7)

    one_by_one = [e.type for e in await collect_events(Agent(model=script(), gadgets=[add]).stream("q"))]
    stream = Agent(model=script(), gadgets=[add]).stream("q")
    batched = [e.type async for batch in stream.batches() for e in batch]
    assert batched == one_by_one
    assert stream.result is not None and stream.result.output == "5"
