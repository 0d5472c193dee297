"""Grammar-constrained calls on the wire: which servers get the call grammar, and in which field."""

from __future__ import annotations

import pytest

from llmist import Agent, gadget
from llmist.agent import options
from llmist.agent.options import ModelSettings
from llmist.providers.base import LLMRequest, Message, complete
from llmist.providers.compatible import openai_compatible
from llmist.providers.retry import RetryPolicy
from tests.providers.fake_servers import FakeServer, openai_stream

GRAMMAR = 'root ::= "ok"'


@gadget(description="Add two integers.")
def add(a: int, b: int) -> str:
    return str(a + b)


async def _sent_body(server_name: str, retry: RetryPolicy, grammar: str | None) -> dict[str, object]:
    with FakeServer([openai_stream(["ok"])]) as server:
        provider = openai_compatible(server_name, base_url=f"{server.base_url}/v1", retry=retry)
        await complete(provider, LLMRequest(model="m", messages=[Message("user", "Hi")], grammar=grammar))
    return server.requests[0].body


async def test_llamacpp_takes_the_grammar_in_the_body(fast_retry: RetryPolicy) -> None:
    assert (await _sent_body("llamacpp", fast_retry, GRAMMAR))["grammar"] == GRAMMAR


async def test_vllm_takes_it_as_structured_outputs(fast_retry: RetryPolicy) -> None:
    assert (await _sent_body("vllm", fast_retry, GRAMMAR))["structured_outputs"] == {"grammar": GRAMMAR}


async def test_a_server_without_grammars_gets_none(fast_retry: RetryPolicy) -> None:
    body = await _sent_body("ollama", fast_retry, GRAMMAR)
    assert "grammar" not in body and "structured_outputs" not in body


async def test_a_request_without_a_grammar_sends_no_field(fast_retry: RetryPolicy) -> None:
    assert "grammar" not in await _sent_body("llamacpp", fast_retry, None)


async def _agent_body(server_name: str, retry: RetryPolicy, **options: object) -> dict[str, object]:
    with FakeServer([openai_stream(["The answer is 5."])]) as server:
        provider = openai_compatible(server_name, base_url=f"{server.base_url}/v1", retry=retry)
        agent = Agent(model=(provider, "qwen"), gadgets=[add], **options)  # type: ignore[arg-type]
        await agent.run("What is 2 + 3?")
    return server.requests[0].body


@pytest.fixture
def llamacpp_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(options, "CONSTRAINED_BY_DEFAULT", frozenset({"llamacpp"}))


async def test_auto_sends_nothing_to_a_server_outside_the_default_table(fast_retry: RetryPolicy) -> None:
    assert "grammar" not in await _agent_body("llamacpp", fast_retry)


@pytest.mark.usefixtures("llamacpp_by_default")
async def test_auto_sends_the_call_grammar_to_a_server_in_the_default_table(fast_retry: RetryPolicy) -> None:
    grammar = (await _agent_body("llamacpp", fast_retry))["grammar"]
    assert isinstance(grammar, str)
    assert '"!!!GADGET_START:add"' in grammar and '"!!!ARG:a\\n" integer' in grammar


async def test_emoji_gets_the_emoji_grammar(fast_retry: RetryPolicy) -> None:
    grammar = (await _agent_body("llamacpp", fast_retry, syntax="emoji", constrained=True))["grammar"]
    assert isinstance(grammar, str) and '"🛠️[add"' in grammar


@pytest.mark.usefixtures("llamacpp_by_default")
async def test_false_and_native_send_no_grammar(fast_retry: RetryPolicy) -> None:
    assert "grammar" not in await _agent_body("llamacpp", fast_retry, constrained=False)
    assert "grammar" not in await _agent_body("llamacpp", fast_retry, syntax="native")


async def test_a_run_may_turn_it_off(fast_retry: RetryPolicy) -> None:
    with FakeServer([openai_stream(["5"])]) as server:
        provider = openai_compatible("llamacpp", base_url=f"{server.base_url}/v1", retry=fast_retry)
        agent = Agent(model=(provider, "qwen"), gadgets=[add], constrained=True)
        await agent.run("2 + 3?", model_settings=ModelSettings(constrained=False))
    assert "grammar" not in server.requests[0].body


async def test_true_on_a_server_without_grammars_says_which_servers_take_one(fast_retry: RetryPolicy) -> None:
    provider = openai_compatible("ollama", base_url="http://127.0.0.1:9/v1", retry=fast_retry)
    agent = Agent(model=(provider, "qwen"), gadgets=[add], constrained=True)
    with pytest.raises(ValueError, match=r"takes none: use llama\.cpp"):
        await agent.run("2 + 3?")


def test_constrained_takes_true_false_or_auto() -> None:
    with pytest.raises(ValueError, match="constrained must be True, False or 'auto'"):
        ModelSettings(constrained="yes")  # type: ignore[arg-type]
