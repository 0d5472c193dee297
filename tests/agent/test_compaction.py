"""Compaction: a long conversation stays inside the context window, whole turns at a time."""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence

import pytest
from hypothesis import given
from hypothesis import strategies as st

from llmist import Agent, gadget
from llmist.agent import (
    AssistantMessage,
    Compaction,
    CompactionContext,
    CompactionRequest,
    CompactionSummary,
    GadgetResultMessage,
    Hooks,
    LLMCompleteContext,
    Observers,
    SlidingWindow,
    Summarize,
    split_turns,
)
from llmist.models import ModelRegistry, ModelSpec
from llmist.providers.base import Message
from llmist.testing import MockModel, block_call

WINDOW = 2_500
_CALL_ID = re.compile(r"!!!GADGET_START:\w+:(\w+)")


@gadget
def read_page(n: int) -> str:
    """Return page n of the book."""
    return f"page {n}: " + "lorem ipsum dolor sit amet " * 8


def _book_model(pages: int) -> MockModel:
    """Reads one page per response, ``pages`` pages, then answers."""
    counter = itertools.count(1)

    def respond(messages: Sequence[Message]) -> str:
        n = next(counter)
        return block_call("read_page", invocation_id=f"p{n}", n=n) if n <= pages else "done"

    return MockModel(respond)


def _chars(messages: Sequence[Message]) -> int:
    return sum(len(m.text) for m in messages)


def _assert_no_pair_split(messages: Sequence[Message]) -> None:
    """Every result directly follows the response that made its call, and every call's result is there."""
    expected: list[str] = []
    for m in messages:
        if isinstance(m, GadgetResultMessage):
            assert expected and m.invocation_id == expected.pop(0), f"result {m.invocation_id} away from its call"
        else:
            assert not expected, f"calls {expected} lost their results"
            if m.role == "assistant":
                expected = _CALL_ID.findall(m.text)
    assert not expected or messages[-1].role == "assistant"


async def test_a_300_turn_conversation_stays_under_a_small_window_without_splitting_a_call() -> None:
    model = _book_model(300)
    reports: list[CompactionContext] = []
    hooks = Hooks(observers=Observers(on_compaction=reports.append))
    agent = Agent(
        model=model, gadgets=[read_page], context_window=WINDOW, max_iterations=400, hooks=hooks,
        compaction=Compaction(SlidingWindow(keep_turns=6), threshold=0.8, target=0.5),
    )  # fmt: skip
    result = await agent.run("Read the book.")
    assert (result.output, result.iterations, len(result.gadget_results)) == ("done", 301, 300)
    for request in model.requests:
        assert _chars(request.messages) / 4 < WINDOW
        _assert_no_pair_split(request.messages)
    assert len(reports) > 10
    assert all(r.tokens_before > 0.8 * WINDOW > r.tokens_after for r in reports)
    last = model.requests[-1].messages
    assert [m.text for m in last[:2]] == [agent.system_prompt, "Read the book."]
    assert isinstance(last[2], CompactionSummary) and "earlier turns" in last[2].text


async def test_the_window_comes_from_the_model_registry() -> None:
    registry = ModelRegistry(use_genai_prices=False)
    registry.register(ModelSpec("mock", "mock", context_window=WINDOW))
    reports: list[CompactionContext] = []
    agent = Agent(
        model=_book_model(40), gadgets=[read_page], model_registry=registry, max_iterations=50,
        compaction=SlidingWindow(keep_turns=4), hooks=Hooks(observers=Observers(on_compaction=reports.append)),
    )  # fmt: skip
    await agent.run("Read.")
    assert reports and all(r.tokens_before > 0.8 * WINDOW for r in reports)


async def test_without_compaction_the_conversation_keeps_growing() -> None:
    model = _book_model(40)
    await Agent(model=model, gadgets=[read_page], context_window=WINDOW, max_iterations=50).run("Read.")
    assert _chars(model.requests[-1].messages) / 4 > WINDOW


def _priced_registry() -> ModelRegistry:
    registry = ModelRegistry(use_genai_prices=False)
    registry.register(ModelSpec("mock", "mock", context_window=WINDOW, input_price=3.0, output_price=15.0))
    registry.register(ModelSpec("cheap", "cheap", input_price=0.25, output_price=1.25))
    return registry


async def test_summarising_replaces_dropped_turns_and_its_cost_joins_the_run() -> None:
    summariser = MockModel(lambda messages: "The assistant read pages; nothing else happened.", name="cheap")
    model = _book_model(60)
    reports: list[CompactionContext] = []
    calls: list[LLMCompleteContext] = []
    hooks = Hooks(observers=Observers(on_compaction=reports.append, on_llm_call_complete=calls.append))
    agent = Agent(
        model=model, gadgets=[read_page], model_registry=_priced_registry(), max_iterations=70, hooks=hooks,
        compaction=Summarize(model=summariser, keep_turns=4, max_summary_tokens=200),
    )  # fmt: skip
    result = await agent.run("Read the book.")
    assert reports and summariser.calls == len(reports)
    assert "page 1:" in summariser.requests[0].messages[-1].text
    assert "Summary of what came before" in summariser.requests[-1].messages[-1].text
    summary = model.requests[-1].messages[2]
    assert isinstance(summary, CompactionSummary) and "nothing else happened" in summary.text
    compaction_cost = sum(r.cost for r in reports)
    assert compaction_cost > 0
    assert result.llm_cost == pytest.approx(sum(c.cost for c in calls) + compaction_cost, rel=1e-12)
    assert result.usage.total_tokens == sum(c.usage.total_tokens for c in calls) + sum(
        r.usage.total_tokens for r in reports
    )


async def test_a_summary_by_the_agents_own_model_by_default() -> None:
    answers = iter([block_call("read_page", n=1), block_call("read_page", n=2), "done"])

    def respond(messages: Sequence[Message]) -> str:
        return "short summary" if messages[0].text.startswith("You summarise") else next(answers)

    model = MockModel(respond)
    agent = Agent(
        model=model, gadgets=[read_page], context_window=400,
        compaction=Compaction(Summarize(keep_turns=1, max_summary_tokens=20), threshold=0.9, target=0.8),
    )  # fmt: skip
    await agent.run("Read.")
    assert any(r.messages[0].text.startswith("You summarise") for r in model.requests)


def test_a_wrong_threshold_is_refused_naming_both_values() -> None:
    with pytest.raises(ValueError, match=r"target=0\.9, threshold=0\.8"):
        Compaction(threshold=0.8, target=0.9)


def test_a_wrong_compaction_option_is_refused_at_once() -> None:
    with pytest.raises(TypeError, match="compaction must be a Compaction or a strategy"):
        Agent(model="mock", compaction=5)  # type: ignore[arg-type]


def test_turns_keep_prompts_responses_and_results_together() -> None:
    conversation = [
        Message("system", "s"),
        Message("user", "task"),
        AssistantMessage("assistant", "a1"),
        GadgetResultMessage("gadget_result", "r1"),
        GadgetResultMessage("gadget_result", "r2"),
        AssistantMessage("assistant", "a2 (no calls)"),
        Message("user", "nudge"),
        AssistantMessage("assistant", "a3"),
        Message("user", "next task"),
    ]
    head, summary, turns = split_turns(conversation)
    assert [m.text for m in head] == ["s", "task"] and summary is None
    assert [[m.text for m in t] for t in turns] == [
        ["a1", "r1", "r2"],
        ["a2 (no calls)"],
        ["nudge", "a3"],
        ["next task"],
    ]


@st.composite
def _conversations(draw: st.DrawFn) -> list[Message]:
    messages: list[Message] = [Message("system", "s"), Message("user", "task")]
    for t in range(draw(st.integers(0, 25))):
        if draw(st.booleans()):
            messages.append(Message("user", "u" * draw(st.integers(1, 400))))
        ids = [f"c{t}x{j}" for j in range(draw(st.integers(0, 3)))]
        text = "".join(f"!!!GADGET_START:g:{i}\n!!!GADGET_END\n" for i in ids) + "x" * draw(st.integers(0, 400))
        messages.append(AssistantMessage("assistant", text))
        messages += [GadgetResultMessage("gadget_result", "r" * draw(st.integers(1, 400)), "g", i) for i in ids]
    return messages


@given(_conversations(), st.integers(0, 10), st.integers(100, 3000))
async def test_a_sliding_window_never_splits_a_call_from_its_result(
    messages: list[Message], keep: int, target: int
) -> None:
    done = await SlidingWindow(keep_turns=keep).compact(CompactionRequest(messages, target, MockModel([]), "mock"))
    _assert_no_pair_split(done.messages)
    assert done.messages[:2] == messages[:2]
    kept = [m for m in done.messages if not isinstance(m, CompactionSummary)]
    assert kept == messages[:2] + messages[len(messages) - len(kept) + 2 :]
