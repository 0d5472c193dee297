"""A run numbers its calls itself: the same conversation shows the model the same ids, whatever
the process ran before, and ids stay unique across the conversation it continues."""

from __future__ import annotations

from typing import Literal

import pytest

from llmist import Agent, gadget
from llmist.agent.messages import GadgetResultMessage
from llmist.providers.base import Message
from llmist.syntax import CallIds, GadgetCallEvent, GadgetCallParser
from llmist.testing import MockModel


@gadget(description="Add two integers.")
def add(a: int, b: int) -> int:
    return a + b


CALLS = {
    "block": "!!!GADGET_START:add\n!!!ARG:a\n1\n!!!ARG:b\n2\n!!!GADGET_END\n"
    "!!!GADGET_START:add\n!!!ARG:a\n3\n!!!ARG:b\n4\n!!!GADGET_END\n",
    "emoji": "🛠️[add 1 2]\n🛠️[/end]\n🛠️[add 3 4]\n🛠️[/end]\n",
}


def _agent(syntax: Literal["block", "emoji"], seen: list[list[Message]]) -> Agent[str]:
    def answer(messages: list[Message]) -> str:
        seen.append(list(messages))
        return CALLS[syntax] if len(seen) == 1 else "done"

    return Agent(model=MockModel(answer), gadgets=[add], syntax=syntax)


@pytest.mark.parametrize("syntax", ["block", "emoji"])
async def test_every_run_numbers_its_calls_from_one(syntax: Literal["block", "emoji"]) -> None:
    shown: list[str] = []
    for _ in range(3):  # earlier runs in the process change nothing
        seen: list[list[Message]] = []
        result = await _agent(syntax, seen).run("Add.")
        assert sorted(r.invocation_id for r in result.gadget_results) == ["gadget_1", "gadget_2"]
        shown.append("\n".join(str(m.content) for m in seen[1]))
    assert "(id gadget_1)" in shown[0]
    assert shown[0] == shown[1] == shown[2]


async def test_a_run_that_continues_a_conversation_numbers_after_its_ids() -> None:
    seen: list[list[Message]] = []
    first = await _agent("block", seen).run("Add.")
    seen.clear()
    second = await _agent("block", seen).run("Again.", history=first.messages)
    assert sorted(r.invocation_id for r in second.gadget_results) == ["gadget_3", "gadget_4"]
    ids = [m.invocation_id for m in second.messages if isinstance(m, GadgetResultMessage)]
    assert len(ids) == len(set(ids)) == 4


def test_call_ids_count_after_the_largest_auto_id_and_ignore_the_rest() -> None:
    ids = CallIds(after=["gadget_7", "save", "gadget_2", "gadget_x", "call_abc", "gadget_" + "9" * 5000])
    assert [ids(), ids()] == ["gadget_8", "gadget_9"]
    assert CallIds()() == "gadget_1"


def test_a_parser_takes_its_ids_from_the_source_it_is_given() -> None:
    parser = GadgetCallParser(ids=CallIds(after=["gadget_41"]))
    events = [*parser.feed(CALLS["block"]), *parser.finalize()]
    assert [e.call.invocation_id for e in events if isinstance(e, GadgetCallEvent)] == ["gadget_42", "gadget_43"]
