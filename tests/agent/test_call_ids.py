"""A run numbers its calls itself: the same conversation shows the model the same ids, whatever
the process ran before, and ids stay unique across the conversation it continues."""

from __future__ import annotations

from typing import Literal

import pytest

from llmist import Agent, gadget
from llmist.agent.messages import GadgetResultMessage
from llmist.providers.base import Message
from llmist.syntax import CallIds, GadgetCallEvent, GadgetCallParser, native_call, next_auto_id
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


COPIED_ID = (  # the model writes an id of the auto form itself, then a call with none
    "!!!GADGET_START:add:gadget_2\n!!!ARG:a\n1\n!!!ARG:b\n2\n!!!GADGET_END\n"
    "!!!GADGET_START:add\n!!!ARG:a\n3\n!!!ARG:b\n4\n!!!GADGET_END\n"
    "!!!GADGET_START:add\n!!!ARG:a\n5\n!!!ARG:b\n6\n!!!GADGET_END\n"
)


def test_an_id_the_model_wrote_is_never_given_again() -> None:
    parser = GadgetCallParser(ids=CallIds())
    events = [*parser.feed(COPIED_ID), *parser.finalize()]
    calls = [e.call for e in events if isinstance(e, GadgetCallEvent)]
    assert [c.invocation_id for c in calls] == ["gadget_2", "gadget_3", "gadget_4"]
    assert all(c.dependencies == () for c in calls)


def test_claimed_ids_only_move_the_count_forward() -> None:
    ids = CallIds(after=["gadget_5"])
    for written in ("gadget_3", "save", "gadget_", "gadget_x7", "gadget_" + "9" * 5000, "gadget_5"):
        ids.claim(written)
    assert ids() == "gadget_6"
    ids.claim("gadget_40")
    assert ids() == "gadget_41"


async def test_a_copied_id_in_a_run_neither_repeats_nor_makes_a_call_wait() -> None:
    replies = iter([COPIED_ID, "!!!GADGET_START:add\n!!!ARG:a\n7\n!!!ARG:b\n8\n!!!GADGET_END\n", "done"])
    agent = Agent(model=MockModel(lambda _: next(replies)), gadgets=[add], syntax="block")
    result = await agent.run("Add.")
    # Sorted: results come in the order the calls finish, which differs between Python versions.
    done = sorted((r.invocation_id, r.result) for r in result.gadget_results)
    assert done == [("gadget_2", "3"), ("gadget_3", "7"), ("gadget_4", "11"), ("gadget_5", "15")]
    assert result.repairs == {}


async def test_a_provider_id_of_the_auto_form_is_not_given_again() -> None:
    ids = CallIds()
    assert native_call("add", '{"a": 1, "b": 2}', "gadget_1", ids=ids).invocation_id == "gadget_1"
    assert native_call("add", '{"a": 1, "b": 2}', ids=ids).invocation_id == "gadget_2"


async def test_a_call_written_as_json_text_takes_the_runs_ids() -> None:
    next_auto_id()  # the process has counted calls before: the run's ids do not follow it
    replies = iter(['{"name": "add", "arguments": {"a": 1, "b": 2}}', "done"])
    agent = Agent(model=MockModel(lambda _: next(replies)), gadgets=[add], syntax="block")
    result = await agent.run("Add.")
    assert [(r.invocation_id, r.result) for r in result.gadget_results] == [("gadget_1", "3")]
