"""A call the response's token limit cut off is not run: run, it would act on a value cut short
(half a file, ``city=Par``). The model is told, and sends it again; a response that ended on its
own keeps the ``missing_end`` reading (the call runs)."""

from __future__ import annotations

import pytest

from llmist import Agent, gadget
from llmist.agent.messages import GadgetResultMessage
from llmist.testing import MockModel, block_call, emoji_call, result_text

SAVED: list[str] = []
FOUND: list[str] = []


@gadget
def save(content: str) -> str:
    """Save a file's content."""
    SAVED.append(content)
    return f"saved {len(content)} characters"


@gadget
def find(city: str) -> str:
    """Find a city."""
    FOUND.append(city)
    return f"found {city}"


@pytest.fixture(autouse=True)
def _clear() -> None:
    SAVED.clear()
    FOUND.clear()


def _cut(call: str, keep: int) -> str:
    """``call`` as a stream the token limit ended ``keep`` characters before its end."""
    return call[: len(call) - keep]


async def _run(first: str, finish: str, syntax: str = "block") -> MockModel:
    model = MockModel([first, "Done."], finish_reason=finish)
    agent = Agent(model=model, gadgets=[save, find], syntax=syntax)  # type: ignore[arg-type]
    result = await agent.run("Save the file.")
    assert result.output == "Done."
    return model


def _told(model: MockModel) -> str:
    """What the model read about its first response's calls."""
    return "\n".join(m.text for m in model.requests[1].messages if isinstance(m, GadgetResultMessage))


@pytest.mark.parametrize("finish", ["length", "max_tokens"])
async def test_a_body_cut_by_the_token_limit_is_not_written(finish: str) -> None:
    whole = block_call("save", content="line one\nline two\nline three")
    model = await _run(_cut(whole, len("e\n!!!GADGET_END\n")), finish)
    assert SAVED == []
    told = _told(model)
    assert "Not run: your response reached its length limit inside this save call" in told
    assert "Send the call again, complete" in told


async def test_a_header_argument_cut_by_the_token_limit_is_not_used() -> None:
    await _run("!!!GADGET_START:find:city=Par", "length")
    assert FOUND == []


async def test_a_response_that_ended_on_its_own_still_runs_a_call_without_its_end() -> None:
    whole = block_call("save", content="all of it")
    await _run(whole.removesuffix("!!!GADGET_END\n"), "stop")
    assert SAVED == ["all of it"]
    await _run("!!!GADGET_START:find:city=Paris", "stop")
    assert FOUND == ["Paris"]


async def test_calls_the_limit_did_not_cut_run() -> None:
    first = block_call("find", city="Paris") + _cut(block_call("save", content="abc def"), 8)
    model = await _run(first, "length")
    assert (FOUND, SAVED) == (["Paris"], [])
    results = [m for m in model.requests[1].messages if isinstance(m, GadgetResultMessage)]
    assert [(m.gadget_name, m.is_error) for m in results] == [("find", False), ("save", True)]
    assert result_text(results[0]) == "found Paris"


async def test_an_emoji_body_cut_by_the_token_limit_is_not_written() -> None:
    whole = emoji_call("save", body="line one\nline two")
    await _run(_cut(whole, len("wo\n🛠️[/end]\n")), "length", syntax="emoji")
    assert SAVED == []
    await _run(whole.removesuffix("🛠️[/end]\n"), "stop", syntax="emoji")
    assert SAVED == ["line one\nline two"]
