"""A response that goes on copying the system prompt (a gadget's usage note, its parameters, its
example call) ends before the copy: the copy is not run, not kept, and counted as a repair."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from llmist import Agent, gadget
from llmist.agent import Hooks, Observers
from llmist.agent.events import GadgetCallEvent, TextEvent
from llmist.agent.prompt import prompt_lines
from llmist.agent.repairs import RepairEvent, RepairRefused
from llmist.testing import MockModel, block_call, emoji_call


@gadget(description="Add two integers.")
def add(a: int, b: int) -> str:
    return str(a + b)


@gadget(description="Multiply two numbers.")
def multiply(a: float, b: float) -> str:
    return str(a * b)


# What Qwen2.5-Coder-0.5B wrote after its call: the gadget's entry, copied from the prompt,
# with the entry's example call in it (benchmarks/RESULTS.md, issue 23).
EMOJI_COPY = (
    emoji_call("add", 17, 25).rstrip("\n") + " (args in this order, shell-quoted; or name=value; lists as a,b,c)\n"
    "Parameters:\n- a (integer, required)\n- b (integer, required)\n"
    "Example (Add 17 + 25.):\n" + emoji_call("add", 2, 3) + "more text\n"
)
BLOCK_COPY = (
    block_call("add", a=17, b=25)
    + "\nParameters:\n- a (integer, required)\n- b (integer, required)\n"
    + block_call("add", a=2, b=3)
)


async def _run(
    *responses: str, syntax: str = "emoji", strict: bool = False, split: Callable[[str], Iterable[str]] | None = None
) -> tuple[object, list[RepairEvent]]:
    events: list[RepairEvent] = []
    agent = Agent(
        model=MockModel(list(responses), split=split),
        gadgets=[add, multiply],
        hooks=Hooks(observers=Observers(on_repair=events.append)),
        syntax=syntax,  # type: ignore[arg-type]
        strict=strict,
    )
    return await agent.run("Add 17 and 25."), events


@pytest.mark.parametrize(("syntax", "response"), [("emoji", EMOJI_COPY), ("block", BLOCK_COPY)])
async def test_the_response_ends_where_the_copy_of_the_prompt_starts(syntax: str, response: str) -> None:
    result, events = await _run(response, "It is 42.", syntax=syntax)
    [r] = result.gadget_results  # type: ignore[attr-defined]
    assert (r.parameters, r.result) == ({"a": 17, "b": 25}, "42")  # the example's call did not run
    assistant = next(m.text for m in result.messages if m.role == "assistant")  # type: ignore[attr-defined]
    # "Parameters:" is too short to tell a copy from an answer: the cut is at the next line.
    first = (
        emoji_call("add", 17, 25).rstrip("\n") if syntax == "emoji" else block_call("add", a=17, b=25) + "\nParameters:"
    )
    assert assistant == first
    assert result.repairs == {"copied_prompt": 1}  # type: ignore[attr-defined]
    [event] = events
    assert event.kind == "copied_prompt" and event.iteration == 1
    copied = "(args in this order" if syntax == "emoji" else "- a (integer, required)"
    assert copied in event.detail
    assert result.output == "It is 42."  # type: ignore[attr-defined]


@settings(max_examples=60, deadline=None)
@given(cuts=st.lists(st.integers(min_value=1, max_value=len(EMOJI_COPY) - 1), max_size=12, unique=True))
async def test_where_the_stream_splits_the_text_changes_nothing(cuts: list[int]) -> None:
    def split(text: str) -> list[str]:
        bounds = [0, *sorted(c for c in cuts if c < len(text)), len(text)]
        return [text[a:b] for a, b in itertools.pairwise(bounds) if b > a]

    result, events = await _run(EMOJI_COPY, "It is 42.", split=split)
    assert [r.parameters for r in result.gadget_results] == [{"a": 17, "b": 25}]  # type: ignore[attr-defined]
    assistant = next(m.text for m in result.messages if m.role == "assistant")  # type: ignore[attr-defined]
    assert assistant == emoji_call("add", 17, 25).rstrip("\n")
    assert [e.kind for e in events] == ["copied_prompt"]


async def test_the_last_line_of_a_response_counts_too() -> None:
    response = emoji_call("add", 1, 2) + "- a (integer, required)"
    result, events = await _run(response, "3")
    assistant = next(m.text for m in result.messages if m.role == "assistant")  # type: ignore[attr-defined]
    assert "First number" not in assistant
    assert [e.kind for e in events] == ["copied_prompt"]


@pytest.mark.parametrize(
    "answer",
    [
        "Add two integers.",  # a gadget's own description: the user's text, an answer may quote it
        "Parameters:",  # too short to say
        "The parameters: - a (integer, required)",  # a line that holds one, not one
        "Call it with add.",
    ],
)
async def test_an_answer_that_only_resembles_the_prompt_is_kept_whole(answer: str) -> None:
    response = f"{answer}\n{answer}\nmore"
    result, events = await _run(response)
    assert result.output == response  # type: ignore[attr-defined]
    assert events == []


async def test_the_stream_shows_what_came_up_to_the_copy() -> None:
    agent = Agent(model=MockModel([EMOJI_COPY, "It is 42."]), gadgets=[add, multiply], syntax="emoji")
    calls: list[str] = []
    texts: list[str] = []
    async for event in agent.stream("Add 17 and 25."):
        if isinstance(event, GadgetCallEvent):
            calls.append(event.call.gadget_name)
        elif isinstance(event, TextEvent):
            texts.append(event.content)
    assert calls == ["add"]
    assert "more text" not in "".join(texts)


async def test_strict_mode_refuses_the_repair() -> None:
    with pytest.raises(RepairRefused, match="copied_prompt"):
        await _run(EMOJI_COPY, "It is 42.", strict=True)


def test_the_watched_lines_are_llmists_own_and_none_for_the_native_syntax() -> None:
    lines = prompt_lines([add, multiply], syntax="emoji")
    assert "(args in this order, shell-quoted; or name=value; lists as a,b,c)" in lines
    assert "- b (number, required)" in lines
    assert "Example (Use add to compute 2 + 3.):" not in lines  # add has no example
    assert not any(line.startswith(("🛠️[", "Add two", "Multiply two")) for line in lines)
    assert prompt_lines([add], syntax="native") == frozenset()
    compact = prompt_lines([add], syntax="block", style="compact")
    assert any(line.startswith("- add: Add two integers.") for line in compact)
