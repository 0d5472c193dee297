"""The loop's repairs of what models really write: each visible as a hook event and a counter,
and each an error in strict mode."""

from __future__ import annotations

import pytest

from llmist import Agent, gadget
from llmist.agent import Hooks, Observers
from llmist.agent.repairs import INVENTED_RESULT_NOTE, RepairEvent, RepairRefused, drop_invented_results
from llmist.testing import MockModel, block_call, emoji_call

RUNS: list[int] = []


@gadget(description="Add two integers.")
def add(a: int, b: int) -> str:
    RUNS.append(a + b)
    return str(a + b)


@gadget(description="Current weather of a city.")
def get_weather(city: str) -> str:
    return f"{city}: sunny"


async def _run(*responses: str, strict: bool = False, syntax: str = "block") -> tuple[object, list[RepairEvent]]:
    events: list[RepairEvent] = []
    agent = Agent(
        model=MockModel(list(responses)),
        gadgets=[add, get_weather],
        hooks=Hooks(observers=Observers(on_repair=events.append)),
        strict=strict,
        syntax=syntax,  # type: ignore[arg-type]
    )
    return await agent.run("task"), events


async def test_an_unknown_gadget_is_answered_with_the_closest_names() -> None:
    result, events = await _run(block_call("get_wether", city="Oslo"), "done")
    [r] = result.gadget_results  # type: ignore[attr-defined]
    assert r.error.startswith("Unknown gadget 'get_wether'. The closest: get_weather.")
    assert result.repairs == {"unknown_gadget": 1}  # type: ignore[attr-defined]
    assert [(e.kind, e.iteration) for e in events] == [("unknown_gadget", 1)]


async def test_a_gadget_name_in_another_spelling_runs_that_gadget() -> None:
    result, events = await _run(block_call("Get-Weather", city="Oslo"), "done")
    [r] = result.gadget_results  # type: ignore[attr-defined]
    assert (r.gadget_name, r.result) == ("get_weather", "Oslo: sunny")
    assert result.repairs == {"gadget_name": 1}  # type: ignore[attr-defined]
    assert events[0].detail == "gadget 'Get-Weather' read as 'get_weather'"


async def test_a_repeated_call_gets_the_earlier_result_and_a_note_without_running_again() -> None:
    RUNS.clear()
    call = block_call("add", a=1, b=2)
    result, events = await _run(call, call, "done")
    first, second = result.gadget_results  # type: ignore[attr-defined]
    assert RUNS == [3]
    assert second.result.startswith(f"3\n(Note: this call is identical to {first.invocation_id}")
    assert result.repairs == {"repeated_call": 1}  # type: ignore[attr-defined]
    assert events[0].invocation_id == second.invocation_id


async def test_a_call_repeated_after_it_failed_runs_again() -> None:
    call = block_call("add", a=1, b="x")
    result, _ = await _run(call, call, "done")
    assert [r.ok for r in result.gadget_results] == [False, False]  # type: ignore[attr-defined]
    assert result.repairs == {}  # type: ignore[attr-defined]


async def test_a_repeated_emoji_call_is_recognised_too() -> None:
    call = emoji_call("add", 1, 2)
    result, _ = await _run(call, call, "done", syntax="emoji")
    assert result.repairs == {"repeated_call": 1}  # type: ignore[attr-defined]


async def test_an_invented_result_is_dropped_and_the_model_told_results_come_from_the_system() -> None:
    result, events = await _run(block_call("add", a=1, b=2) + "Result: 4\nSo the answer is 4.", "It is 3.")
    messages = result.messages  # type: ignore[attr-defined]
    assistant = next(m.text for m in messages if m.role == "assistant")
    assert "Result: 4" not in assistant and assistant.rstrip().endswith("!!!GADGET_END")
    assert INVENTED_RESULT_NOTE in [m.text for m in messages]
    assert result.repairs == {"invented_result": 1}  # type: ignore[attr-defined]
    assert events[0].kind == "invented_result" and "Result: 4" in events[0].detail


async def test_prose_after_a_call_that_is_not_a_result_stays() -> None:
    result, _ = await _run(block_call("add", a=1, b=2) + "I will wait for the sum.", "It is 3.")
    assistant = next(m.text for m in result.messages if m.role == "assistant")  # type: ignore[attr-defined]
    assert "I will wait for the sum." in assistant
    assert result.repairs == {}  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    "responses",
    [
        (block_call("get_wether", city="Oslo"), "done"),
        (block_call("Get-Weather", city="Oslo"), "done"),
        (block_call("add", a=1, b=2), block_call("add", a=1, b=2), "done"),
        (block_call("add", a=1, b=2) + "Result: 3", "done"),
    ],
    ids=["unknown_gadget", "gadget_name", "repeated_call", "invented_result"],
)
async def test_strict_mode_turns_each_repair_into_an_error(responses: tuple[str, ...]) -> None:
    with pytest.raises(RepairRefused, match=r"strict mode: response \d needed a repair") as caught:
        await _run(*responses, strict=True)
    assert caught.value.event.kind in ("unknown_gadget", "gadget_name", "repeated_call", "invented_result")


def test_invented_results_between_calls_are_dropped_and_the_calls_kept() -> None:
    text = "A\n!!!GADGET_START:x\n!!!GADGET_END\nOutput: 1\n!!!GADGET_START:y\n!!!GADGET_END\nThe result is 2"
    kept, dropped = drop_invented_results(text, "!!!GADGET_START:", "!!!GADGET_END")
    assert kept == "A\n!!!GADGET_START:x\n!!!GADGET_END\n!!!GADGET_START:y\n!!!GADGET_END"
    assert dropped == ["Output: 1", "The result is 2"]
