"""``syntax="native"``: calls come through the provider's tool-calling API and run through the
same executor, scheduler, hooks and costs as calls written in text."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import pytest

from llmist import Agent, gadget
from llmist.agent import GadgetResultMessage, Hooks, Observers
from llmist.agent.messages import dumps_messages, loads_messages
from llmist.agent.repairs import INVENTED_RESULT_NOTE, NEXT_STEP_NOTE
from llmist.execution import GadgetExecutionResult
from llmist.gadgets import GadgetExample
from llmist.models import ModelRegistry, ModelSpec
from llmist.providers.base import Message, ToolCall
from llmist.testing import MockModel, MockReply, block_call, tool_call


@gadget(description="Add two integers.")
def add(a: int, b: int) -> str:
    return str(a + b)


@gadget(description="Multiply two integers.", examples=[GadgetExample({"a": 6, "b": 7}, output="42", comment="6 x 7?")])
def mul(a: int, b: int) -> str:
    return str(a * b)


def _native(*responses: str | MockReply, **options: object) -> tuple[Agent[str], MockModel]:
    model = MockModel(list(responses))
    return Agent(model=model, gadgets=[add, mul], syntax="native", **options), model  # type: ignore[arg-type]


async def test_native_calls_run_and_answer_their_calls_by_id() -> None:
    agent, model = _native(MockReply("Computing.", [tool_call("add", a=2, b=3, id="c1")]), "It is 5.")
    result = await agent.run("2 + 3?")
    assert result.output == "It is 5."
    assistant, answer = result.messages[2], result.messages[3]
    assert assistant.text == "Computing." and assistant.tool_calls == (ToolCall("c1", "add", '{"a": 2, "b": 3}'),)
    assert isinstance(answer, GadgetResultMessage)
    assert answer.tool_call_id == "c1" and answer.text == "Result of add (id c1):\n5"
    assert model.requests[1].messages[-1] is answer


async def test_the_request_offers_every_gadget_as_a_tool_and_the_prompt_lists_none() -> None:
    agent, model = _native("No tools needed.")
    await agent.run("hi")
    tools = {t.name: t for t in model.requests[0].tools}
    assert set(tools) >= {"add", "mul"}
    assert tools["add"].parameters["required"] == ["a", "b"]
    assert tools["add"].parameters["properties"]["a"]["type"] == "integer"
    assert 'Example arguments: {"a": 6, "b": 7}' in tools["mul"].description
    system = model.requests[0].messages[0].text
    assert "function calling" in system and "GADGET_START" not in system and "- add" not in system


async def test_the_text_syntaxes_offer_no_tools() -> None:
    model = MockModel(["done"])
    await Agent(model=model, gadgets=[add]).run("hi")
    assert model.requests[0].tools == ()


async def test_calls_of_one_response_run_in_parallel() -> None:
    both_started = asyncio.Barrier(2)

    @gadget(description="Wait for the other call, then answer.")
    async def meet(name: str) -> str:
        await asyncio.wait_for(both_started.wait(), timeout=5)  # fails unless both run at once
        return f"{name} met"

    model = MockModel([MockReply(tool_calls=[tool_call("meet", name="a"), tool_call("meet", name="b")]), "both met"])
    result = await Agent(model=model, gadgets=[meet], syntax="native").run("meet")
    assert sorted(r.result or "" for r in result.gadget_results) == ["a met", "b met"]


async def test_arguments_that_are_not_a_json_object_get_an_error_naming_the_problem() -> None:
    agent, _ = _native(MockReply(tool_calls=[ToolCall("c1", "add", '{"a": 2, "b": ')]), "gave up")
    result = await agent.run("2 + ?")
    error = result.gadget_results[0].error or ""
    assert "Could not read the arguments of add: the arguments are not valid JSON" in error
    assert "one JSON object" in error and "!!!ARG" not in error


async def test_arguments_of_the_wrong_type_are_validated_like_any_call() -> None:
    agent, _ = _native(MockReply(tool_calls=[tool_call("add", a="two", b=3)]), "gave up")
    result = await agent.run("two + 3?")
    assert "- a: Input should be a valid integer" in (result.gadget_results[0].error or "")


async def test_a_call_without_arguments_reads_as_no_parameters() -> None:
    @gadget(description="The time.")
    def now() -> str:
        return "noon"

    model = MockModel([MockReply(tool_calls=[ToolCall("c1", "now", "")]), "It is noon."])
    result = await Agent(model=model, gadgets=[now], syntax="native").run("time?")
    assert result.gadget_results[0].result == "noon"


async def test_an_unknown_tool_is_answered_with_the_closest_names() -> None:
    agent, _ = _native(MockReply(tool_calls=[tool_call("ad", a=1, b=2)]), "sorry")
    result = await agent.run("1 + 2?")
    assert "Unknown gadget 'ad'. The closest: add." in (result.gadget_results[0].error or "")
    assert result.messages[3].tool_call_id == result.gadget_results[0].invocation_id


async def test_hooks_and_costs_see_native_calls() -> None:
    started: list[str] = []
    finished: list[GadgetExecutionResult] = []
    observers = Observers(
        on_gadget_start=lambda ctx: started.append(ctx.gadget_name), on_gadget_complete=finished.append
    )
    agent, _ = _native(MockReply(tool_calls=[tool_call("mul", a=6, b=7)]), "42", hooks=Hooks(observers=observers))
    result = await agent.run("6 x 7?")
    assert started == ["mul"] and [r.result for r in finished] == ["42"]
    assert result.usage.output_tokens > 0 and result.iterations == 2


async def test_a_cancelled_run_still_answers_every_call_it_was_sent() -> None:
    release = asyncio.Event()

    @gadget(description="Never finishes on its own.")
    async def hang() -> str:
        await release.wait()
        return "late"

    model = MockModel([MockReply(tool_calls=[tool_call("hang", id="h1")])])
    agent = Agent(model=model, gadgets=[hang], syntax="native")
    stream = agent.stream("wait")
    async for event in stream:
        if event.type == "gadget_call":
            stream.cancel()
    assert stream.result is not None and stream.result.stop_reason == "cancelled"
    answers = [m for m in stream.result.messages if m.tool_call_id == "h1"]
    assert len(answers) == 1 and "h1" in answers[0].text


async def test_a_native_conversation_continues_from_its_json() -> None:
    agent, _ = _native(MockReply(tool_calls=[tool_call("add", a=2, b=3, id="c1")]), "5")
    first = await agent.run("2 + 3?")
    restored = loads_messages(dumps_messages(first.messages))
    assert restored == first.messages
    model = MockModel(["still 5"])
    await Agent(model=model, gadgets=[add, mul], syntax="native").run("and again?", history=restored)
    sent: Sequence[Message] = model.requests[0].messages
    assert sent[2].tool_calls == (ToolCall("c1", "add", '{"a": 2, "b": 3}'),) and sent[3].tool_call_id == "c1"


async def test_few_shot_examples_show_a_native_call_and_its_answer() -> None:
    agent, model = _native("ok", few_shot=1)
    await agent.run("hi")
    example = model.requests[0].messages[1:5]
    assert example[0].text == "6 x 7?"
    assert example[1].tool_calls == (ToolCall("example_1", "mul", '{"a": 6, "b": 7}'),)
    assert example[2].tool_call_id == "example_1" and example[2].text.endswith("42")


async def test_text_a_native_model_writes_is_prose_not_parsed() -> None:
    agent, _ = _native(block_call("add", a=1, b=2) + "That is how blocks look.")
    result = await agent.run("explain blocks")
    assert result.gadget_results == [] and "!!!GADGET_START:add" in result.output


def test_an_unknown_syntax_is_refused_naming_every_choice() -> None:
    with pytest.raises(ValueError, match="'block', 'emoji', 'native' or 'auto', got 'json'"):
        Agent(model=MockModel([]), syntax="json")  # type: ignore[arg-type]


async def test_results_go_back_in_the_order_of_the_calls() -> None:
    calls = [tool_call("add", a=1, b=1, id="c1"), tool_call("nope", id="c2"), tool_call("mul", a=2, b=2, id="c3")]
    agent, _ = _native(MockReply(tool_calls=calls), "done")
    result = await agent.run("go")
    assert [m.tool_call_id for m in result.messages[3:6]] == ["c1", "c2", "c3"]


async def test_a_repeated_native_call_is_answered_with_its_earlier_result() -> None:
    first, again = tool_call("add", a=2, b=3), ToolCall("c9", "add", '{"b": 3, "a": 2}')
    agent, _ = _native(MockReply(tool_calls=[first]), MockReply(tool_calls=[again]), "5")
    result = await agent.run("2 + 3?")
    assert result.repairs == {"repeated_call": 1}
    assert "You already made this exact call" in (result.gadget_results[-1].result or "")


def _registry(native: bool) -> ModelRegistry:
    registry = ModelRegistry()
    registry.register(ModelSpec("mock", "mock", native_tools=native))
    return registry


async def test_auto_is_native_where_the_registry_says_the_model_calls_tools_well() -> None:
    model = MockModel([MockReply(tool_calls=[tool_call("add", a=2, b=3)]), "5"])
    agent = Agent(model=model, gadgets=[add], syntax="auto", model_registry=_registry(True))
    result = await agent.run("2 + 3?")
    assert agent.call_syntax == "native" and model.requests[0].tools
    assert result.gadget_results[0].result == "5"


async def test_auto_is_the_block_syntax_elsewhere() -> None:
    for registry in (_registry(False), None):
        model = MockModel([block_call("add", a=2, b=3), "5"])
        agent = Agent(model=model, gadgets=[add], syntax="auto", model_registry=registry)
        result = await agent.run("2 + 3?")
        assert agent.call_syntax == "block" and model.requests[0].tools == ()
        assert "!!!GADGET_START:" in model.requests[0].messages[0].text
        assert result.gadget_results[0].result == "5"


def test_render_system_prompt_under_auto_is_the_prompt_its_runs_use() -> None:
    native = Agent(model=MockModel([]), gadgets=[add], syntax="auto", model_registry=_registry(True))
    block = Agent(model=MockModel([]), gadgets=[add], syntax="auto", model_registry=_registry(False))
    assert native.render_system_prompt([add]) == native.system_prompt
    assert "function calling" in native.render_system_prompt([add])
    assert "!!!GADGET_START:" in block.render_system_prompt([add])


@gadget(description="Read a long log.")
def read_log() -> str:
    return "\n".join(f"line {n}: all good" for n in range(2000))


async def test_the_output_viewer_is_offered_as_a_tool_only_once_an_output_is_stored() -> None:
    model = MockModel([MockReply("", [tool_call("add", a=1, b=2)]), MockReply("", [tool_call("read_log")]), "Done."])
    agent = Agent(model=model, gadgets=[add, read_log], syntax="native", context_window=8000)
    await agent.run("Add, then read the log.")
    offered = [{t.name for t in r.tools} for r in model.requests]
    assert offered == [{"add", "read_log"}, {"add", "read_log"}, {"add", "read_log", "GadgetOutputViewer"}]


@pytest.mark.parametrize(
    "written",
    [
        'Let me add.\n```json\n{"name": "add", "arguments": {"a": 2, "b": 3}}\n```',
        'Let me add.\n<tool_call>\n{"name": "add", "arguments": {"a": 2, "b": 3}}\n</tool_call>',
        'Let me add.\n<tools>\n{"type": "function", "function": {"name": "add", "arguments": {"a": 2, "b": 3}}}'
        "\n</tools>",
        'Let me add.\n```json\n{"add": {"a": 2, "b": 3}}\n```',
    ],
    ids=["fenced", "tool_call_tags", "tools_tags", "keyed_by_gadget"],
)
async def test_a_call_written_as_text_is_recorded_as_a_real_tool_call_and_answered_as_one(written: str) -> None:
    agent, model = _native(written, "It is 5.")
    result = await agent.run("2 + 3?")
    assistant, answer = result.messages[2], result.messages[3]
    [call] = assistant.tool_calls
    assert (assistant.text, call.name, call.arguments) == ("Let me add.", "add", '{"a": 2, "b": 3}')
    assert isinstance(answer, GadgetResultMessage) and answer.tool_call_id == call.id
    assert result.repairs == {"json_call": 1}
    assert model.requests[1].messages[2] is assistant


async def test_results_of_calls_written_as_text_say_what_to_do_next() -> None:
    # A server that returns calls as text serves a text model in all but name: after its result,
    # Qwen2.5-Coder answered `{}}` or wrote the same calls again until told what to do next.
    agent, _ = _native('```json\n{"name": "add", "arguments": {"a": 2, "b": 3}}\n```', "It is 5.")
    result = await agent.run("2 + 3?")
    answer = result.messages[3]
    assert isinstance(answer, GadgetResultMessage) and answer.text.endswith(f"5\n\n{NEXT_STEP_NOTE}")


async def test_results_of_real_tool_calls_stay_as_the_api_gave_them() -> None:
    agent, _ = _native(MockReply("", [tool_call("add", a=2, b=3)]), "It is 5.")
    result = await agent.run("2 + 3?")
    answer = result.messages[3]
    assert isinstance(answer, GadgetResultMessage) and NEXT_STEP_NOTE not in answer.text


async def test_a_result_written_after_a_call_written_as_text_is_dropped() -> None:
    # Qwen2.5-Coder wrote {"result": "tismll"} under its call, then answered with its own result.
    written = '```json\n{"name": "add", "arguments": {"a": 2, "b": 3}}\n```\n\n```json\n{"result": "6"}\n```'
    agent, model = _native(written, "It is 5.")
    result = await agent.run("2 + 3?")
    assistant, answer = result.messages[2], result.messages[3]
    assert assistant.text == "" and "6" not in model.requests[1].messages[2].text
    assert isinstance(answer, GadgetResultMessage) and answer.text.endswith(f"{INVENTED_RESULT_NOTE}\n{NEXT_STEP_NOTE}")
    assert result.repairs == {"json_call": 1, "invented_result": 1}


async def test_prose_after_a_call_written_as_text_is_kept() -> None:
    agent, _ = _native('{"name": "add", "arguments": {"a": 2, "b": 3}}\nThen I will say the sum.', "It is 5.")
    result = await agent.run("2 + 3?")
    assert result.messages[2].text == "Then I will say the sum." and result.repairs == {"json_call": 1}
