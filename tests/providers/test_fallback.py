"""FallbackModel through the real SDKs, against fake servers: the policy of ``llmist.providers.fallback``."""

from __future__ import annotations

import pytest

from llmist.models import ModelRegistry
from llmist.providers import (
    AllModelsFailedError,
    BadRequestError,
    ContextWindowExceededError,
    FallbackModel,
    FallbackPolicy,
    LLMClient,
    LLMRequest,
    Message,
    OpenAIProvider,
    ProviderConnectionError,
    ProviderTimeoutError,
    RateLimitError,
    complete,
)
from llmist.providers.retry import RetryPolicy
from tests.providers.fake_servers import FakeResponse, FakeServer, openai_error, openai_stream
from tests.providers.kits import KITS, ProviderKit, chain_member, closed_port_url

REQUEST = LLMRequest(model="ignored", messages=[Message("user", "Hi")])

SECOND = next(k for k in KITS if k.name == "openai")
"""The model every chain falls back to (each provider is tried as the first)."""


@pytest.fixture(params=KITS, ids=[k.name for k in KITS])
def first(request: pytest.FixtureRequest) -> ProviderKit:
    """The first model of the chain: each provider in turn."""
    value: ProviderKit = request.param
    return value


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


async def test_first_model_down_the_second_answers(first: ProviderKit, fast_retry: RetryPolicy) -> None:
    down = chain_member(first, closed_port_url(), fast_retry)
    with FakeServer([SECOND.text(["Hi ", "there"])]) as server:
        chain = FallbackModel(down, chain_member(SECOND, server.base_url, fast_retry))
        chunks = [c async for c in chain.stream(REQUEST)]
    assert "".join(c.text for c in chunks) == "Hi there"
    assert {c.model for c in chunks} == {"openai:gpt-4o"}
    assert not any(c.restart for c in chunks)


async def test_the_second_model_gets_its_own_model_name(first: ProviderKit, fast_retry: RetryPolicy) -> None:
    with FakeServer([first.error(503, "overloaded")] * 3) as one, FakeServer([SECOND.text(["ok"])]) as two:
        chain = FallbackModel(
            chain_member(first, one.base_url, fast_retry), chain_member(SECOND, two.base_url, fast_retry)
        )
        await complete(chain, REQUEST)
    assert len(one.requests) == 3  # the first model's own retries, all spent
    assert two.requests[0].body["model"] == "gpt-4o"


async def test_first_rate_limited_past_its_retries_the_second_answers(
    first: ProviderKit, fast_retry: RetryPolicy
) -> None:
    limited = [first.error(429, "slow down", headers={"retry-after": "0"})] * 3
    with FakeServer(limited) as one, FakeServer([SECOND.text(["ok"])]) as two:
        chain = FallbackModel(
            chain_member(first, one.base_url, fast_retry), chain_member(SECOND, two.base_url, fast_retry)
        )
        response = await complete(chain, REQUEST)
    assert (response.text, response.model) == ("ok", "openai:gpt-4o")
    assert len(one.requests) == 3


async def test_a_rate_limit_lifted_within_the_retries_stays_on_the_first(
    first: ProviderKit, fast_retry: RetryPolicy
) -> None:
    with FakeServer([first.error(429, "slow down"), first.text(["first"])]) as one, FakeServer([]) as two:
        chain = FallbackModel(
            chain_member(first, one.base_url, fast_retry), chain_member(SECOND, two.base_url, fast_retry)
        )
        response = await complete(chain, REQUEST)
    assert response.text == "first"
    assert two.requests == []


async def test_first_failing_mid_stream_the_second_starts_the_response_over(
    first: ProviderKit, fast_retry: RetryPolicy
) -> None:
    broken = first.text(["Hel", "lo", " wor"], cut_after=first.preamble + 2)
    with FakeServer([broken]) as one, FakeServer([SECOND.text(["Good", "bye"])]) as two:
        chain = FallbackModel(
            chain_member(first, one.base_url, fast_retry), chain_member(SECOND, two.base_url, fast_retry)
        )
        chunks = [c async for c in chain.stream(REQUEST)]
    restarts = [i for i, c in enumerate(chunks) if c.restart]
    assert len(restarts) == 1
    before, after = chunks[: restarts[0]], chunks[restarts[0] + 1 :]
    assert "".join(c.text for c in before) == "Hello"
    assert "".join(c.text for c in after) == "Goodbye"
    assert chunks[restarts[0]].model == "openai:gpt-4o"
    assert len(one.requests) == 1  # text had been sent: not retried on the same model


async def test_complete_keeps_only_the_answer_started_over(first: ProviderKit, fast_retry: RetryPolicy) -> None:
    broken = first.text(["Hel", "lo", " wor"], cut_after=first.preamble + 2)
    with FakeServer([broken]) as one, FakeServer([SECOND.text(["Goodbye"])]) as two:
        chain = FallbackModel(
            chain_member(first, one.base_url, fast_retry), chain_member(SECOND, two.base_url, fast_retry)
        )
        response = await complete(chain, REQUEST)
    assert (response.text, response.model) == ("Goodbye", "openai:gpt-4o")


async def test_mid_stream_restart_can_be_turned_off(fast_retry: RetryPolicy) -> None:
    from llmist.providers import StreamInterruptedError

    broken = SECOND.text(["Hel", "lo", " wor"], cut_after=SECOND.preamble + 2)
    with FakeServer([broken]) as one, FakeServer([]) as two:
        policy = FallbackPolicy(restart_mid_stream=False)
        members = chain_member(SECOND, one.base_url, fast_retry), chain_member(SECOND, two.base_url, fast_retry)
        chain = FallbackModel(*members, policy=policy)
        with pytest.raises(StreamInterruptedError):
            await complete(chain, REQUEST)
    assert two.requests == []


async def test_all_down_names_each_models_failure(fast_retry: RetryPolicy) -> None:
    kits = {k.name: k for k in KITS}
    with (
        FakeServer([kits["anthropic"].error(529, "Overloaded")] * 3) as one,
        FakeServer([kits["gemini"].error(500, "internal")] * 3) as two,
    ):
        chain = FallbackModel(
            chain_member(kits["anthropic"], one.base_url, fast_retry),
            chain_member(kits["gemini"], two.base_url, fast_retry),
            chain_member(kits["openai"], closed_port_url(), fast_retry),
        )
        with pytest.raises(AllModelsFailedError) as info:
            await complete(chain, REQUEST)
    failures = info.value.failures
    assert [f.model for f in failures] == ["anthropic:claude-sonnet-5-5", "gemini:gemini-2.5-flash", "openai:gpt-4o"]
    assert [type(f.error).__name__ for f in failures] == [
        "ProviderOverloadedError",
        "ProviderServerError",
        "ServerNotListeningError",
    ]
    message = str(info.value)
    assert "All 3 models failed" in message
    assert (
        "1. anthropic:claude-sonnet-5-5: ProviderOverloadedError: anthropic returned HTTP 529: Overloaded "
        "(after 3 attempts)" in message
    )
    assert "2. gemini:gemini-2.5-flash: ProviderServerError" in message
    assert "3. openai:gpt-4o: ServerNotListeningError: openai connection failed: nothing listens at" in message


async def test_a_bad_request_is_raised_at_once_without_asking_the_next(
    first: ProviderKit, fast_retry: RetryPolicy
) -> None:
    with FakeServer([first.error(400, "tools.0.input_schema: invalid")]) as one, FakeServer([]) as two:
        chain = FallbackModel(
            chain_member(first, one.base_url, fast_retry), chain_member(SECOND, two.base_url, fast_retry)
        )
        with pytest.raises(BadRequestError, match="input_schema"):
            await complete(chain, REQUEST)
    assert (len(one.requests), two.requests) == (1, [])


@pytest.mark.parametrize(
    "message",
    [
        "This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.",
        "prompt is too long: 215000 tokens > 200000 maximum",
        "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).",
        "the request exceeds the available context size, try increasing it",
    ],
)
async def test_a_context_too_long_is_told_apart_from_other_bad_requests(message: str, fast_retry: RetryPolicy) -> None:
    with FakeServer([openai_error(400, message)]) as server, pytest.raises(ContextWindowExceededError):
        await complete(OpenAIProvider(api_key="sk", base_url=f"{server.base_url}/v1", retry=fast_retry), REQUEST)


async def test_a_context_too_long_falls_back_when_listed(first: ProviderKit, fast_retry: RetryPolicy) -> None:
    too_long = first.error(400, "prompt is too long: 215000 tokens > 200000 maximum")
    with FakeServer([too_long]) as one, FakeServer([SECOND.text(["read it all"])]) as two:
        policy = FallbackPolicy(also_on=(ContextWindowExceededError,))
        members = chain_member(first, one.base_url, fast_retry), chain_member(SECOND, two.base_url, fast_retry)
        chain = FallbackModel(*members, policy=policy)
        response = await complete(chain, REQUEST)
    assert response.text == "read it all"


async def test_an_error_raised_at_once_notes_the_models_that_failed_before(fast_retry: RetryPolicy) -> None:
    with FakeServer([SECOND.error(400, "bad schema")]) as two:
        down = OpenAIProvider(api_key="sk", base_url=f"{closed_port_url()}/v1", retry=fast_retry, name="local")
        chain = FallbackModel((down, "qwen"), chain_member(SECOND, two.base_url, fast_retry))
        with pytest.raises(BadRequestError) as info:
            await complete(chain, REQUEST)
    assert any(note.startswith("Asked before it: local:qwen: ServerNotListeningError") for note in info.value.__notes__)


async def test_a_timeout_is_told_apart_and_falls_back(fast_retry: RetryPolicy) -> None:
    slow = FakeResponse(delay_s=2.0, body="{}")
    with FakeServer([slow] * 3) as one, FakeServer([SECOND.text(["quick"])]) as two:
        sleepy = OpenAIProvider(api_key="sk", base_url=f"{one.base_url}/v1", retry=fast_retry, timeout=0.2)
        chain = FallbackModel((sleepy, "gpt-4o"), chain_member(SECOND, two.base_url, fast_retry))
        chunks = [c async for c in chain.stream(REQUEST)]
        failure = chain.request()  # the first model is cooling down, for a timeout
    assert "".join(c.text for c in chunks) == "quick"
    assert failure.order == (1, 0)


async def test_a_timeout_is_a_provider_timeout_error() -> None:
    with FakeServer([FakeResponse(delay_s=2.0, body="{}")]) as server:
        sleepy = OpenAIProvider(
            api_key="sk", base_url=f"{server.base_url}/v1", retry=RetryPolicy(max_attempts=1), timeout=0.2
        )
        with pytest.raises(ProviderTimeoutError, match="timed out"):
            await complete(sleepy, REQUEST)


async def test_a_failed_model_is_asked_last_during_its_cooldown(fast_retry: RetryPolicy) -> None:
    clock = Clock()
    with (
        FakeServer([openai_error(503, "down")] * 3 + [openai_stream(["back"])]) as one,
        FakeServer([openai_stream(["a"]), openai_stream(["b"])]) as two,
    ):
        policy = FallbackPolicy(cooldown=30.0, clock=clock)
        chain = FallbackModel(
            OpenAIProvider(api_key="sk", base_url=f"{one.base_url}/v1", retry=fast_retry, name="one"),
            OpenAIProvider(api_key="sk", base_url=f"{two.base_url}/v1", retry=fast_retry, name="two"),
            policy=policy,
        )
        assert (await complete(chain, REQUEST)).text == "a"
        clock.now += 29.0
        assert (await complete(chain, REQUEST)).text == "b"  # straight to the second
        assert len(one.requests) == 3
        clock.now += 1.0
        assert (await complete(chain, REQUEST)).text == "back"  # cooled down: first again
    assert chain.request().order == (0, 1)


async def test_a_model_cooling_down_is_still_asked_when_the_others_fail(fast_retry: RetryPolicy) -> None:
    clock = Clock()
    with (
        FakeServer([openai_error(503, "down")] * 3 + [openai_stream(["still here"])]) as one,
        FakeServer([openai_stream(["a"])] + [openai_error(500, "gone")] * 3) as two,
    ):
        chain = FallbackModel(
            OpenAIProvider(api_key="sk", base_url=f"{one.base_url}/v1", retry=fast_retry, name="one"),
            OpenAIProvider(api_key="sk", base_url=f"{two.base_url}/v1", retry=fast_retry, name="two"),
            policy=FallbackPolicy(clock=clock),
        )
        await complete(chain, REQUEST)
        assert chain.request().order == (1, 0)
        assert (await complete(chain, REQUEST)).text == "still here"


async def test_llm_client_prices_each_answer_at_the_answering_models_prices(fast_retry: RetryPolicy) -> None:
    usage = {"input_tokens": 1_000_000, "output_tokens": 0}
    with FakeServer([openai_error(503, "down")] * 3) as one, FakeServer([SECOND.text(["ok"], **usage)]) as two:
        cheap_first = OpenAIProvider(api_key="sk", base_url=f"{one.base_url}/v1", retry=fast_retry)
        chain = FallbackModel((cheap_first, "gpt-4o-mini"), chain_member(SECOND, two.base_url, fast_retry))
        registry = ModelRegistry()
        client = LLMClient(model=chain, model_registry=registry)
        assert await client.complete("Hi") == "ok"
    spec = registry.get("gpt-4o", "openai")
    assert spec is not None and spec.input_price
    assert client.cost == pytest.approx(spec.input_price)


def test_models_given_as_strings_resolve_on_first_use_to_their_providers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    chain = FallbackModel(["openai:gpt-4o-mini", "ollama:qwen2.5:7b", "mock"])
    assert [chain.ref(0), chain.ref(1), chain.ref(2)] == ["openai:gpt-4o-mini", "ollama:qwen2.5:7b", "mock"]


def test_a_missing_key_of_any_model_is_reported_by_the_first_request() -> None:
    from llmist.providers import MissingAPIKeyError

    chain = FallbackModel("ollama:qwen2.5:7b", "openai:gpt-4o-mini")
    with pytest.raises(MissingAPIKeyError, match="OPENAI_API_KEY"):
        chain.resolve(0)


@pytest.mark.parametrize(
    ("models", "error"),
    [((), ValueError), ((42,), TypeError), ((FallbackModel("mock"),), TypeError), ((("gpt-4o", "x"),), TypeError)],
)
def test_a_chain_needs_models_strings_or_providers(models: tuple[object, ...], error: type[Exception]) -> None:
    with pytest.raises(error):
        FallbackModel(*models)  # type: ignore[arg-type]


def test_policy_checks_its_values() -> None:
    with pytest.raises(ValueError, match="cooldown"):
        FallbackPolicy(cooldown=-1)
    with pytest.raises(TypeError, match="ProviderError subclasses"):
        FallbackPolicy(also_on=(ValueError,))  # type: ignore[arg-type]


def test_the_policy_falls_back_on_retryable_errors_only_unless_listed() -> None:
    policy = FallbackPolicy()
    assert policy.falls_back(RateLimitError("429"))
    assert policy.falls_back(ProviderConnectionError("refused"))
    assert not policy.falls_back(BadRequestError("400"))
    assert not policy.falls_back(ContextWindowExceededError("too long"))
    assert FallbackPolicy(also_on=(BadRequestError,)).falls_back(ContextWindowExceededError("too long"))
