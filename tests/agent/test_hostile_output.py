"""Whatever a model writes, the run goes on: strange text becomes a call error the model reads,
or a value the gadget receives, never an exception out of ``Agent.run``."""

from __future__ import annotations

from llmist import Agent, gadget
from llmist.providers.base import ToolCall
from llmist.testing import MockModel, MockReply

BIG = "9" * 5000
"""More digits than Python's ``int()`` reads (4,300 by default)."""


@gadget
def keep(a: str) -> str:
    """Keep a text."""
    return f"kept {len(a)} characters"


@gadget
def count(a: int) -> str:
    """Count."""
    return "counted"


def test_a_number_past_the_int_limit_reaches_a_str_field_as_text() -> None:
    block = f"!!!GADGET_START:keep\n!!!ARG:a\n{BIG}\n!!!GADGET_END\n"
    result = Agent(model=MockModel([block, "done"]), gadgets=[keep]).run_sync("go")
    assert result.gadget_results[0].result == "kept 5000 characters"
    assert result.output == "done"


def test_a_number_past_the_int_limit_is_an_error_for_an_int_field() -> None:
    block = f"!!!GADGET_START:count\n!!!ARG:a\n{BIG}\n!!!GADGET_END\n"
    result = Agent(model=MockModel([block, "done"]), gadgets=[count]).run_sync("go")
    error = result.gadget_results[0].error
    assert error is not None and "a:" in error and "integer" in error
    assert result.output == "done"


def test_an_array_index_past_the_int_limit_is_a_call_error() -> None:
    block = f"!!!GADGET_START:keep\n!!!ARG:a/{BIG}\nx\n!!!GADGET_END\n"
    result = Agent(model=MockModel([block, "done"]), gadgets=[keep]).run_sync("go")
    error = result.gadget_results[0].error
    assert error is not None and "Array index gap: expected 0, got 9999" in error
    assert result.output == "done"


def test_a_native_call_with_a_number_past_the_int_limit_runs() -> None:
    reply = MockReply(tool_calls=[ToolCall("call_1", "keep", '{"a": ' + BIG + "}")])
    model = MockModel([reply, "done"])
    result = Agent(model=model, gadgets=[keep], syntax="native").run_sync("go")
    assert result.gadget_results[0].result == "kept 5000 characters"
