"""An agent given several models: which answers, what the stream and the result say, and that a
response started over never runs a call twice. (Through the real SDKs: tests/providers/test_agent_fallback.py.)"""

from __future__ import annotations

from typing import Any

import pytest

from llmist import Agent, AgentResult, Controllers, Hooks, Recover
from llmist.agent import ModelFallbackEvent
from llmist.providers import (
    AllModelsFailedError,
    BadRequestError,
    FallbackModel,
    FallbackPolicy,
    ProviderServerError,
    StreamInterruptedError,
)
from llmist.providers.mock import MockReply
from llmist.testing import MockModel, block_call

from .conftest import add


def _broken(text: str) -> MockReply:
    """A response that streams ``text`` and then breaks."""
    return MockReply(text, error=StreamInterruptedError("connection reset", provider="mock", partial_text=text))


def _down() -> ProviderServerError:
    return ProviderServerError("HTTP 503: down", provider="mock", status_code=503)


async def _run(agent: Agent[Any], prompt: str = "q") -> tuple[list[Any], AgentResult[Any]]:
    stream = agent.stream(prompt)
    events = [event async for event in stream]
    assert stream.result is not None
    return events, stream.result


async def test_a_list_of_models_falls_back_to_the_next_when_the_first_is_down() -> None:
    first, second = MockModel([_down()], name="first"), MockModel(["from the second"], name="second")
    events, result = await _run(Agent(model=[first, second]))
    assert (result.output, first.calls, second.calls) == ("from the second", 1, 1)
    (switch,) = [e for e in events if isinstance(e, ModelFallbackEvent)]
    assert (switch.failed, switch.model, switch.restart, switch.iteration) == ("first", "second", False, 1)
    assert "ProviderServerError: HTTP 503: down" in switch.error
    assert result.fallbacks == [switch]


async def test_each_response_end_names_the_model_that_wrote_it() -> None:
    first = MockModel([block_call("add", a=1, b=2), _down()], name="first")
    second = MockModel(["3"], name="second")
    events, result = await _run(Agent(model=FallbackModel(first, second), gadgets=[add]))
    ends = [e.model for e in events if e.type == "llm_response_end"]
    assert ends == ["first", "second"]
    assert {name: m.iterations for name, m in result.models.items()} == {"first": [1], "second": [2]}


async def test_usage_and_cost_are_kept_per_model() -> None:
    class Prices:
        def cost(self, model: str, usage: Any, provider: str | None = None) -> float:
            return {"first": 0.01, "second": 0.1}[model] * usage.output_tokens

        def get(self, model: str, provider: str | None = None) -> None:
            return None

    first = MockModel([block_call("add", a=1, b=2), _down()], name="first")
    second = MockModel(["three"], name="second")
    result = await Agent(model=[first, second], gadgets=[add], model_registry=Prices()).run("q")
    one, two = result.models["first"], result.models["second"]
    assert (one.responses, two.responses) == (1, 1)
    assert one.usage + two.usage == result.usage
    assert one.cost + two.cost == pytest.approx(result.llm_cost)
    assert two.cost == pytest.approx(0.1 * two.usage.output_tokens)


async def test_a_model_without_fallback_is_one_entry_of_the_result() -> None:
    result = await Agent(model=MockModel(["hi"], name="solo")).run("q")
    assert list(result.models) == ["solo"] and result.fallbacks == []


async def test_a_failed_model_is_passed_over_for_the_next_responses() -> None:
    first = MockModel([_down()], name="first")
    second = MockModel([block_call("add", a=1, b=2), "3"], name="second")
    result = await Agent(model=[first, second], gadgets=[add]).run("q")
    assert (first.calls, second.calls, result.output) == (1, 2, "3")


async def test_a_break_before_any_call_starts_the_response_over_on_the_next_model() -> None:
    first = MockModel([_broken("The answer is fo")], name="first")
    second = MockModel(["The answer is 4."], name="second")
    events, result = await _run(Agent(model=[first, second]))
    (switch,) = [e for e in events if isinstance(e, ModelFallbackEvent)]
    assert (switch.restart, switch.kept_calls) == (True, ())
    at = events.index(switch)
    before = "".join(e.content for e in events[:at] if e.type == "text")
    after = "".join(e.content for e in events[at:] if e.type == "text")
    assert (before, after) == ("The answer is fo", "The answer is 4.")
    assert result.output == "The answer is 4."
    assert [m.text for m in result.messages if m.role == "assistant"] == ["The answer is 4."]
    assert result.iterations == 1


async def test_a_call_started_before_the_break_is_not_run_again_when_the_next_model_repeats_it() -> None:
    ran: list[int] = []

    from llmist import gadget

    @gadget
    def charge(amount: int) -> str:
        """Charge the card."""
        ran.append(amount)
        return f"charged {amount}"

    first = MockModel([_broken(block_call("charge", amount=5) + "Now I will tel")], name="first")
    second = MockModel([block_call("charge", amount=5), "Charged 5."], name="second")
    events, result = await _run(Agent(model=[first, second], gadgets=[charge]))
    assert ran == [5]
    (switch,) = [e for e in events if isinstance(e, ModelFallbackEvent)]
    assert len(switch.kept_calls) == 1
    second_request = second.requests[1].messages
    assert "charged 5" in second_request[-1].text
    assert result.output == "Charged 5."


async def test_a_call_the_next_model_does_not_repeat_is_still_reported_to_it() -> None:
    first = MockModel([_broken(block_call("add", a=2, b=2) + "So the")], name="first")
    second = MockModel(["Let me think again.", "done"], name="second")
    result = await Agent(model=[first, second], gadgets=[add], stop_on_no_calls=False, max_iterations=2).run("q")
    told = second.requests[1].messages[-2].text + second.requests[1].messages[-1].text
    assert "add" in told and "4" in told
    assert [r.result for r in result.gadget_results] == ["4"]


async def test_mid_stream_restart_can_be_turned_off() -> None:
    first = MockModel([_broken("Hel")], name="first")
    chain = FallbackModel(first, MockModel(["unused"], name="second"), policy=FallbackPolicy(restart_mid_stream=False))
    with pytest.raises(StreamInterruptedError):
        await Agent(model=chain).run("q")


async def test_a_bad_request_does_not_fall_back() -> None:
    second = MockModel(["unused"], name="second")
    agent = Agent(model=[MockModel([BadRequestError("HTTP 400: bad schema")], name="first"), second])
    with pytest.raises(BadRequestError):
        await agent.run("q")
    assert second.calls == 0


async def test_all_models_down_raises_naming_each_failure() -> None:
    first = MockModel([_down()], name="first")
    second = MockModel([ProviderServerError("HTTP 500: oops", status_code=500)], name="second")
    with pytest.raises(AllModelsFailedError) as info:
        await Agent(model=[first, second]).run("q")
    assert [f.model for f in info.value.failures] == ["first", "second"]


async def test_a_controller_may_still_recover_when_every_model_failed() -> None:
    def recover(ctx: Any) -> Recover:
        assert isinstance(ctx.error, AllModelsFailedError)
        return Recover("offline answer")

    models = [MockModel([_down()], name="first"), MockModel([_down()], name="second")]
    hooks = Hooks(controllers=Controllers(after_llm_error=recover))
    result = await Agent(model=models, hooks=hooks).run("q")
    assert result.output == "offline answer"


async def test_each_model_is_sent_its_own_system_prompt_in_its_own_syntax() -> None:
    first = MockModel([_down()], name="first")
    second = MockModel(["ok"], name="second")
    await Agent(model=[first, second], gadgets=[add], syntax="emoji").run("q")
    assert "🛠️[" in second.requests[0].messages[0].text


def test_an_empty_model_list_is_refused() -> None:
    with pytest.raises(ValueError, match="at least one model"):
        Agent(model=[])


async def test_a_repeat_is_matched_as_validated_parameters_defaults_included() -> None:
    ran: list[str] = []

    from llmist import gadget

    @gadget
    def charge(amount: int, currency: str = "EUR") -> str:
        """Charge the card."""
        ran.append(f"{amount} {currency}")
        return f"charged {amount} {currency}"

    first = MockModel([_broken(block_call("charge", amount=5) + "Now")], name="first")
    second = MockModel([block_call("charge", amount="5", currency="EUR"), "Charged."], name="second")
    result = await Agent(model=[first, second], gadgets=[charge]).run("q")
    assert ran == ["5 EUR"]
    assert result.output == "Charged."


class _Registry:
    """Says the model named "first" calls tools natively and "second" does not."""

    def get(self, model: str, provider: str | None = None) -> Any:
        from types import SimpleNamespace

        return SimpleNamespace(native_tools=model == "first", context_window=None)

    def cost(self, model: str, usage: Any, provider: str | None = None) -> float:
        return 0.0


async def test_a_text_model_taking_over_from_a_native_one_reads_its_calls_as_text() -> None:
    from llmist.providers import ToolCall

    first = MockModel([MockReply(tool_calls=[ToolCall("call_1", "add", '{"a": 1, "b": 2}')]), _down()], name="first")
    second = MockModel(["3"], name="second")
    agent = Agent(model=[first, second], gadgets=[add], syntax="auto", model_registry=_Registry())
    result = await agent.run("q")
    assert first.requests[0].tools and not second.requests[0].tools
    sent = second.requests[0].messages
    assert not any(m.tool_calls or m.tool_call_id for m in sent)
    (assistant,) = [m for m in sent if m.role == "assistant"]
    assert "!!!GADGET_START:add" in assistant.text and "!!!ARG:a\n1" in assistant.text
    assert "!!!GADGET_START:" in sent[0].text  # the second model's own (block) system prompt
    assert result.output == "3"


async def test_a_list_assigned_to_the_agents_model_falls_back_too() -> None:
    agent = Agent(model=MockModel(["unused"], name="solo"))
    agent.model = [MockModel([_down()], name="first"), MockModel(["second here"], name="second")]  # type: ignore[assignment]
    result = await agent.run("q")
    assert (result.output, len(result.fallbacks)) == ("second here", 1)
