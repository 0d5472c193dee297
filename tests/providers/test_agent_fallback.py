"""An agent with fallback models, through the real SDKs against fake servers: each provider in turn
is the first model, down, rate-limited past its retries or failing mid-stream; and all down."""

from __future__ import annotations

from typing import Any

import pytest

from llmist import Agent, gadget
from llmist.agent import ModelFallbackEvent
from llmist.providers import AllModelsFailedError
from llmist.providers.retry import RetryPolicy
from llmist.testing import block_call
from tests.providers.fake_servers import FakeServer
from tests.providers.kits import KITS, ProviderKit, chain_member, closed_port_url

SECOND = next(k for k in KITS if k.name == "openai")
"""The model every agent falls back to (each provider is tried as the first)."""


@pytest.fixture(params=KITS, ids=[k.name for k in KITS])
def first(request: pytest.FixtureRequest) -> ProviderKit:
    """The agent's first model: each provider in turn."""
    value: ProviderKit = request.param
    return value


class Adder:
    """A gadget that counts its runs."""

    def __init__(self) -> None:
        self.runs = 0

        @gadget(name="add")
        def add(a: int, b: int) -> str:
            """Add two numbers."""
            self.runs += 1
            return str(a + b)

        self.gadget = add


async def _run(agent: Agent[Any]) -> tuple[list[Any], Any]:
    stream = agent.stream("What is 1 + 2?")
    events = [e async for e in stream]
    return events, stream.result


def _ref(kit: ProviderKit) -> str:
    return f"{kit.name}:{kit.model}"


async def test_first_model_down_the_second_answers_the_run(first: ProviderKit, fast_retry: RetryPolicy) -> None:
    with FakeServer([SECOND.text(["It is 3."])]) as two:
        models = [chain_member(first, closed_port_url(), fast_retry), chain_member(SECOND, two.base_url, fast_retry)]
        events, result = await _run(Agent(model=models))
    (switch,) = [e for e in events if isinstance(e, ModelFallbackEvent)]
    assert (switch.failed, switch.model, switch.restart) == (_ref(first), _ref(SECOND), False)
    assert "ServerNotListeningError" in switch.error
    assert (result.output, list(result.models)) == ("It is 3.", [_ref(SECOND)])
    assert [e.model for e in events if e.type == "llm_response_end"] == [_ref(SECOND)]


async def test_first_rate_limited_the_second_is_asked_in_its_own_syntax(
    first: ProviderKit, fast_retry: RetryPolicy
) -> None:
    adder = Adder()
    limited = [first.error(429, "slow down", headers={"retry-after": "0"})] * 3
    with FakeServer(limited) as one, FakeServer([SECOND.text(["It is 3."])]) as two:
        models = [chain_member(first, one.base_url, fast_retry), chain_member(SECOND, two.base_url, fast_retry)]
        result = await Agent(model=models, gadgets=[adder.gadget], syntax="auto").run("q")
    assert len(one.requests) == 3  # the first model's own retries came first
    alone = Agent(model=chain_member(SECOND, two.base_url, fast_retry), gadgets=[adder.gadget], syntax="auto")
    body = two.requests[0].body
    assert ("tools" in body) == (alone.call_syntax == "native")
    assert body["messages"][0]["content"] == alone.system_prompt  # the second model's own prompt
    assert result.output == "It is 3."


async def test_first_failing_mid_stream_the_second_starts_over_and_the_call_runs_once(
    first: ProviderKit, fast_retry: RetryPolicy
) -> None:
    adder = Adder()
    call = block_call("add", a=1, b=2)
    broken = first.text([call, "So the answ", "er is 3."], cut_after=first.preamble + 2)
    second = [SECOND.text([call]), SECOND.text(["It is 3."])]
    with FakeServer([broken]) as one, FakeServer(second) as two:
        models = [chain_member(first, one.base_url, fast_retry), chain_member(SECOND, two.base_url, fast_retry)]
        events, result = await _run(Agent(model=models, gadgets=[adder.gadget]))
    assert adder.runs == 1
    (switch,) = [e for e in events if isinstance(e, ModelFallbackEvent)]
    assert switch.restart and len(switch.kept_calls) == 1
    assert len(one.requests) == 1  # text had been shown: not retried on the same model
    told = two.requests[1].body["messages"][-1]["content"]
    assert "3" in str(told)
    assert result.output == "It is 3."
    assert [r.result for r in result.gadget_results] == ["3"]
    assert {name: m.responses for name, m in result.models.items()} == {_ref(SECOND): 2}


async def test_all_down_the_run_raises_naming_each_models_failure(fast_retry: RetryPolicy) -> None:
    kits = {k.name: k for k in KITS}
    with FakeServer([kits["anthropic"].error(529, "Overloaded")] * 3) as one:
        models = [
            chain_member(kits["anthropic"], one.base_url, fast_retry),
            chain_member(SECOND, closed_port_url(), fast_retry),
        ]
        with pytest.raises(AllModelsFailedError) as info:
            await Agent(model=models).run("q")
    message = str(info.value)
    assert "1. anthropic:claude-sonnet-5-5: ProviderOverloadedError" in message
    assert "2. openai:gpt-4o: ServerNotListeningError" in message
