"""A gadget that ends the run (``ends_run``): the prompt and the loop's notes tell the model to
end the task by calling it, where they would tell it to answer in plain text."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from llmist import Agent, ExecutionContext, Gadget, TaskCompletionSignal, create_gadget, gadget
from llmist.agent.repairs import NEXT_STEP_NOTE, NEXT_STEP_NOTES, NEXT_STEPS_NOTE, next_step_note
from llmist.testing import MockModel, block_call, emoji_call, result_text


@gadget(description="Add two integers.")
def add(a: int, b: int) -> str:
    return str(a + b)


@gadget(description="Give the final answer.", ends_run=True)
def finish(answer: str) -> str:
    raise TaskCompletionSignal(answer)


class Done(BaseModel):
    summary: str


class Report(Gadget):
    """A class that ends the run, as a class says it."""

    description = "Hand in the report."
    Params = Done
    ends_run = True

    def execute(self, params: Done, ctx: ExecutionContext) -> str:
        raise TaskCompletionSignal(params.summary)


@pytest.mark.parametrize("style", ["full", "compact"])
@pytest.mark.parametrize("syntax", ["block", "emoji", "native"])
def test_the_prompt_says_to_end_the_task_by_calling_the_gadget(syntax: str, style: str) -> None:
    prompt = Agent(model="mock", gadgets=[add, finish], syntax=syntax, prompt_style=style).system_prompt  # type: ignore[arg-type]
    assert "end it by calling finish." in prompt
    assert "answer in plain text" not in prompt
    plain = Agent(model="mock", gadgets=[add], syntax=syntax, prompt_style=style).system_prompt  # type: ignore[arg-type]
    assert "answer in plain text" in plain and "end it by calling" not in plain


def test_several_gadgets_that_end_the_run_are_named_together() -> None:
    prompt = Agent(model="mock", gadgets=[finish, add, Report()]).system_prompt
    assert "- When the task is done, end it by calling finish or Report." in prompt


def test_create_gadget_takes_it_too() -> None:
    done = create_gadget(description="Done.", schema=Done, execute=lambda p: p.summary, name="done", ends_run=True)
    assert done.ends_run and not add.ends_run
    assert "end it by calling done." in Agent(model="mock", gadgets=[add, done]).system_prompt


async def test_the_note_after_a_result_says_to_call_it_and_the_gadgets_result_reads_without_it() -> None:
    seen: list[str] = []

    def model(messages: list[object]) -> str:
        if len(seen) == 0:
            seen.append("asked")
            return emoji_call("add", 1, 2)
        last = messages[-1]
        seen.append(last.text)  # type: ignore[attr-defined]
        seen.append(result_text(last))  # type: ignore[arg-type]
        return emoji_call("finish", 3)

    agent = Agent(model=MockModel(model), gadgets=[add, finish], syntax="emoji")
    result = await agent.run("Add 1 and 2, then finish.")
    assert result.stop_reason == "task_complete" and result.output == "3"
    note = next_step_note("finish")
    assert note == "(If these results complete the task, end it now by calling finish. If not, make the next call.)"
    assert seen[1].endswith(f"3\n\n{note}") and seen[2] == "3"
    assert NEXT_STEP_NOTES.fullmatch(note) and NEXT_STEP_NOTES.fullmatch(NEXT_STEP_NOTE)
    assert next_step_note("") == NEXT_STEP_NOTE and next_step_note("", calls=3) == NEXT_STEPS_NOTE
    assert "word for word" in NEXT_STEP_NOTE and "word for word" not in NEXT_STEPS_NOTE
    assert next_step_note("finish", calls=3) == note and NEXT_STEP_NOTES.fullmatch(NEXT_STEPS_NOTE)


async def test_a_repeated_call_is_told_to_end_the_task_with_the_gadget() -> None:
    call = block_call("add", a=1, b=2)
    result = await Agent(model=MockModel([call, call, block_call("finish", answer="3")]), gadgets=[add, finish]).run(
        "x"
    )
    repeated = result.gadget_results[1]
    assert repeated.result.endswith("If the task is done, end it by calling finish.)")
    assert result.stop_reason == "task_complete"


class Capital(BaseModel):
    city: str


def test_typed_output_ends_by_its_final_answer_unless_prose_is_an_answer_too() -> None:
    typed = Agent(model="mock", gadgets=[add], output_type=Capital).system_prompt
    assert "end it by calling FinalAnswer." in typed and "answer in plain text" not in typed
    either = Agent(model="mock", gadgets=[add], output_type=Capital | str).system_prompt
    assert "answer in plain text" in either and "end it by calling" not in either


async def test_a_typed_run_is_told_after_its_results_to_give_its_final_answer() -> None:
    seen: list[str] = []

    def model(messages: list[object]) -> str:
        if not seen:
            seen.append("asked")
            return block_call("add", a=1, b=2)
        seen.append(messages[-1].text)  # type: ignore[attr-defined]
        return block_call("FinalAnswer", city="Paris")

    result = await Agent(model=MockModel(model), gadgets=[add], output_type=Capital).run("x")
    assert result.output == Capital(city="Paris")
    assert seen[1].endswith(next_step_note("FinalAnswer"))
