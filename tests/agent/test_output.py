"""Structured final output: ``Agent(output_type=...)`` ends with a validated, typed instance."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from llmist import Agent, LLMist, OutputValidationError
from llmist.syntax import ArgsPartialEvent
from llmist.testing import MockModel


class City(BaseModel):
    name: str
    population: int


class Refusal(BaseModel):
    reason: str


def block(gadget: str, /, **args: object) -> str:
    body = "".join(f"!!!ARG:{k}\n{v}\n" for k, v in args.items())
    return f"!!!GADGET_START:{gadget}\n{body}!!!GADGET_END"


PARIS = block("FinalAnswer", name="Paris", population=2100000)


async def test_invalid_answers_are_fed_back_until_a_valid_one_gives_a_typed_instance() -> None:
    wrong_type = block("FinalAnswer", name="Paris", population="lots")
    missing_field = block("FinalAnswer", name="Paris")
    agent = Agent(model=MockModel([wrong_type, missing_field, PARIS]), output_type=City)
    result = await agent.run("Which city?")
    assert result.output == City(name="Paris", population=2100000)
    assert result.stop_reason == "task_complete"
    assert [r.error is not None for r in result.gadget_results] == [True, True, False]
    assert "population" in result.messages[3].content


async def test_too_many_invalid_answers_raise_output_validation_error() -> None:
    wrong = block("FinalAnswer", name="Paris", population="lots")
    agent = Agent(model=MockModel([wrong, wrong, PARIS]), output_type=City, max_output_retries=1)
    with pytest.raises(OutputValidationError, match="2 invalid final answers") as info:
        await agent.run("Which city?")
    assert info.value.result.iterations == 2


async def test_a_run_that_never_answers_raises_output_validation_error() -> None:
    agent = Agent(model=MockModel(["I think it is Paris."]), output_type=City)
    with pytest.raises(OutputValidationError, match="never called FinalAnswer"):
        await agent.run("Which city?")


async def test_the_prompt_teaches_the_final_answer_gadget() -> None:
    agent = Agent(model=MockModel([PARIS]), output_type=City)
    result = await agent.run("Which city?")
    assert "FinalAnswer" in agent.system_prompt
    assert "population" in agent.system_prompt
    assert "calling FinalAnswer" in result.messages[1].content


async def test_emoji_syntax_answers_through_the_same_gadget() -> None:
    agent = Agent(model=MockModel(["🛠️[FinalAnswer Paris 2100000]\n🛠️[/end]"]), output_type=City, syntax="emoji")
    result = await agent.run("Which city?")
    assert result.output == City(name="Paris", population=2100000)


async def test_a_list_of_types_gives_one_final_answer_gadget_per_member() -> None:
    answer = block("FinalAnswer_Refusal", reason="no data")
    agent: Agent[City | Refusal] = Agent(model=MockModel([answer]), output_type=[City, Refusal])
    result = await agent.run("Which city?")
    assert result.output == Refusal(reason="no data")
    assert "FinalAnswer_City" in agent.system_prompt


async def test_a_union_type_works_like_a_list() -> None:
    answer = block("FinalAnswer_City", name="Paris", population=2100000)
    agent: Agent[City | Refusal] = Agent(model=MockModel([answer]), output_type=City | Refusal)  # type: ignore[arg-type]
    result = await agent.run("Which city?")
    assert isinstance(result.output, City)


async def test_str_among_the_types_lets_the_model_answer_in_prose() -> None:
    agent: Agent[City | str] = Agent(model=MockModel(["It is Paris."]), output_type=[City, str])
    result = await agent.run("Which city?")
    assert result.output == "It is Paris."
    assert result.stop_reason == "no_calls"


async def test_a_non_model_type_is_wrapped_in_a_result_field() -> None:
    answer = "!!!GADGET_START:FinalAnswer\n!!!ARG:result/0\n3\n!!!ARG:result/1\n4\n!!!GADGET_END"
    agent = Agent(model=MockModel([answer]), output_type=list[int])
    result = await agent.run("Two numbers?")
    assert result.output == [3, 4]


async def test_run_output_type_overrides_the_agents_for_one_run() -> None:
    agent = Agent(model=MockModel([PARIS, "plain"]))
    typed = await agent.run("Which city?", output_type=City)
    plain = await agent.run("Say plain")
    assert typed.output.population == 2100000
    assert plain.output == "plain"


async def test_the_builder_sets_the_output_type() -> None:
    agent = LLMist().create_agent().with_model(MockModel([PARIS])).with_output_type(City).build()
    result = await agent.run("Which city?")
    assert result.output.name == "Paris"


async def test_stream_shows_the_outputs_partial_fields() -> None:
    answer = block("FinalAnswer", name="Paris", population=2100000)
    agent = Agent(model=MockModel([answer], chunk_size=6), output_type=City)
    stream = agent.stream("Which city?")
    partials = [e async for e in stream if isinstance(e, ArgsPartialEvent)]
    assert {p.field_path for p in partials} >= {"name", "population"}
    assert all(p.gadget_name == "FinalAnswer" for p in partials)
    assert stream.result is not None
    assert stream.result.output == City(name="Paris", population=2100000)


async def test_running_out_of_iterations_without_an_answer_raises() -> None:
    work = "!!!GADGET_START:GadgetOutputViewer\n!!!ARG:id\nnone\n!!!GADGET_END"
    agent = Agent(model=MockModel([work, work]), output_type=City, max_iterations=2)
    with pytest.raises(OutputValidationError, match=r"ended \(max_iterations\)") as info:
        await agent.run("Which city?")
    assert info.value.result.stop_reason == "max_iterations"
