"""An agent completes a two-iteration task with a gadget call through each real provider SDK,
against a local server speaking that provider's streaming wire format."""

from __future__ import annotations

import json

import pytest

from llmist import Agent, gadget
from llmist.providers.base import ToolCall
from llmist.providers.retry import RetryPolicy
from tests.providers.fake_servers import FakeServer
from tests.providers.kits import KITS, ProviderKit

CALL = "!!!GADGET_START:add:sum\n!!!ARG:a\n2\n!!!ARG:b\n3\n!!!GADGET_END\n"


@gadget(description="Add two integers.")
def add(a: int, b: int) -> str:
    return str(a + b)


@pytest.mark.parametrize("kit", KITS, ids=[k.name for k in KITS])
async def test_agent_runs_a_gadget_then_answers(kit: ProviderKit, fast_retry: RetryPolicy) -> None:
    # The block arrives split across stream events, as a real model sends it.
    first = kit.text(["Let me add them.\n", CALL[:23], CALL[23:41], CALL[41:]])
    second = kit.text(["The sum is 5."])
    with FakeServer([first, second]) as server:
        agent = Agent(model=kit.make(server.base_url, fast_retry), gadgets=[add])
        result = await agent.run("What is 2 + 3?")

    assert result.stop_reason == "no_calls"
    assert result.iterations == 2
    assert result.output == "The sum is 5."
    (executed,) = result.gadget_results
    assert (executed.gadget_name, executed.invocation_id, executed.result, executed.error) == ("add", "sum", "5", None)
    assert result.usage.input_tokens > 0 and result.usage.output_tokens > 0
    assert len(server.requests) == 2
    # The second request carries the assistant's call and the gadget's result back to the model.
    followup = json.dumps(server.requests[1].body)
    assert "!!!GADGET_START:add:sum" in followup
    assert "sum" in followup and "5" in followup


@pytest.mark.parametrize("kit", KITS, ids=[k.name for k in KITS])
async def test_a_native_agent_runs_two_calls_in_parallel_then_answers(
    kit: ProviderKit, fast_retry: RetryPolicy
) -> None:
    calls = [ToolCall("call_a", "add", '{"a": 2, "b": 3}'), ToolCall("call_b", "add", '{"a": 4, "b": 5}')]
    with FakeServer([kit.calls(calls), kit.text(["5 and 9."])]) as server:
        agent = Agent(model=kit.make(server.base_url, fast_retry), gadgets=[add], syntax="native")
        result = await agent.run("2 + 3 and 4 + 5?")

    assert (result.output, result.iterations) == ("5 and 9.", 2)
    assert sorted(r.result or "" for r in result.gadget_results) == ["5", "9"]
    assert result.messages[2].tool_calls == tuple(calls)
    assert [m.tool_call_id for m in result.messages[3:5]] == ["call_a", "call_b"]
    # The tools went with each request, and the second carried both results in the API's form.
    first, second = (json.dumps(r.body) for r in server.requests)
    assert '"add"' in first and "GADGET_START" not in first
    assert "call_a" in second and "call_b" in second and "Result of add (id call_b)" in second
