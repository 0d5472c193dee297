"""One description per provider of how to build it against a fake server and script that server.

The conformance tests (and later the agent's end-to-end test) run against every kit.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import pytest

from llmist.providers.anthropic import AnthropicProvider
from llmist.providers.base import Provider, ToolCall
from llmist.providers.compatible import openai_compatible
from llmist.providers.gemini import GeminiProvider
from llmist.providers.openai import OpenAIProvider
from llmist.providers.retry import RetryPolicy
from tests.providers.fake_servers import (
    FakeResponse,
    FakeServer,
    anthropic_error,
    anthropic_stream,
    gemini_error,
    gemini_stream,
    openai_error,
    openai_stream,
)


@dataclass(frozen=True)
class ProviderKit:
    """How to test one provider against its fake server."""

    name: str
    model: str
    """Model name sent to the provider."""
    make: Callable[[str, RetryPolicy], Provider]
    """Provider pointed at a fake server's base URL."""
    text: Callable[..., FakeResponse]
    """``text(pieces, finished=True, cut_after=None, input_tokens=10, output_tokens=5)``."""
    error: Callable[..., FakeResponse]
    """``error(status, message, headers=None)``."""
    auth_error: Callable[[], FakeResponse]
    """The response to an invalid key."""
    preamble: int
    """Events sent before the first text event."""
    env_var: str
    """The key's environment variable."""
    calls: Callable[[Sequence[ToolCall]], FakeResponse]
    """A response of native tool calls (each streamed in the provider's own fragments)."""


def _openai_text(
    pieces: Sequence[str],
    finished: bool = True,
    cut_after: int | None = None,
    input_tokens: int = 10,
    output_tokens: int = 5,
    model: str = "gpt-4o",
) -> FakeResponse:
    return openai_stream(
        pieces,
        model=model,
        finish_reason="stop" if finished else None,
        cut_after=cut_after,
        prompt_tokens=input_tokens,
        completion_tokens=output_tokens,
    )


def _anthropic_text(
    pieces: Sequence[str],
    finished: bool = True,
    cut_after: int | None = None,
    input_tokens: int = 10,
    output_tokens: int = 5,
) -> FakeResponse:
    return anthropic_stream(
        pieces,
        model="claude-sonnet-5-5",
        stop_reason="end_turn" if finished else None,
        cut_after=cut_after,
        input_tokens=input_tokens,
        output_tokens=output_tokens,
    )


def _gemini_text(
    pieces: Sequence[str],
    finished: bool = True,
    cut_after: int | None = None,
    input_tokens: int = 10,
    output_tokens: int = 5,
) -> FakeResponse:
    return gemini_stream(
        pieces,
        finish_reason="STOP" if finished else None,
        cut_after=cut_after,
        prompt_tokens=input_tokens,
        output_tokens=output_tokens,
    )


def _openai_calls(calls: Sequence[ToolCall], model: str = "gpt-4o") -> FakeResponse:
    return openai_stream(
        [], model=model, tool_calls=[(c.id, c.name, c.arguments) for c in calls], finish_reason="tool_calls"
    )


def _anthropic_calls(calls: Sequence[ToolCall]) -> FakeResponse:
    triples = [(c.id, c.name, c.arguments) for c in calls]
    return anthropic_stream([], model="claude-sonnet-5-5", tool_calls=triples, stop_reason="tool_use")


def _gemini_calls(calls: Sequence[ToolCall]) -> FakeResponse:
    return gemini_stream(
        [], function_calls=[{"id": c.id, "name": c.name, "args": json.loads(c.arguments)} for c in calls]
    )


def _gemini_auth_error() -> FakeResponse:
    return gemini_error(400, "API key not valid. Please pass a valid API key.")


KITS: tuple[ProviderKit, ...] = (
    ProviderKit(
        name="openai",
        model="gpt-4o",
        make=lambda url, retry: OpenAIProvider(api_key="sk-test", base_url=f"{url}/v1", retry=retry),
        text=_openai_text,
        error=openai_error,
        auth_error=lambda: openai_error(401, "Incorrect API key provided"),
        preamble=1,
        env_var="OPENAI_API_KEY",
        calls=_openai_calls,
    ),
    ProviderKit(
        name="anthropic",
        model="claude-sonnet-5-5",
        make=lambda url, retry: AnthropicProvider(api_key="sk-ant-test", base_url=url, retry=retry),
        text=_anthropic_text,
        error=anthropic_error,
        auth_error=lambda: anthropic_error(401, "invalid x-api-key"),
        preamble=3,
        env_var="ANTHROPIC_API_KEY",
        calls=_anthropic_calls,
    ),
    ProviderKit(
        name="gemini",
        model="gemini-2.5-flash",
        make=lambda url, retry: GeminiProvider(api_key="gm-test", base_url=url, retry=retry),
        text=_gemini_text,
        error=gemini_error,
        auth_error=_gemini_auth_error,
        preamble=0,
        env_var="GEMINI_API_KEY",
        calls=_gemini_calls,
    ),
    ProviderKit(
        name="ollama",
        model="qwen2.5:7b",
        make=lambda url, retry: openai_compatible("ollama", base_url=f"{url}/v1", retry=retry),
        text=lambda *a, **k: _openai_text(*a, model="qwen2.5:7b", **k),
        error=openai_error,
        auth_error=lambda: openai_error(401, "unauthorized"),
        preamble=1,
        env_var="OLLAMA_API_KEY",
        calls=lambda calls: _openai_calls(calls, model="qwen2.5:7b"),
    ),
)
"""Every provider under test."""


_BASE_URL_ENV: dict[str, tuple[str, str, str]] = {
    "openai": ("OPENAI_BASE_URL", "/v1", "OPENAI_API_KEY"),
    "anthropic": ("ANTHROPIC_BASE_URL", "", "ANTHROPIC_API_KEY"),
    "gemini": ("GEMINI_BASE_URL", "", "GEMINI_API_KEY"),
    "ollama": ("OLLAMA_BASE_URL", "/v1", "OLLAMA_API_KEY"),
}
"""Per provider: the variable that points it at a server, the path of its API root, its key variable."""


def serve_model(model: str, server: FakeServer, monkeypatch: pytest.MonkeyPatch) -> str:
    """Point ``model``'s provider (a ``provider:model`` string) at ``server`` through its environment
    variables, as a user would, and return ``model`` (so agents price it by its real name)."""
    provider = model.split(":", 1)[0]
    url_env, root, key_env = _BASE_URL_ENV[provider]
    monkeypatch.setenv(url_env, f"{server.base_url}{root}")
    monkeypatch.setenv(key_env, "test-key")
    return model


def closed_port_url() -> str:
    """A local URL where nothing listens (connection refused)."""
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"


def chain_member(kit: ProviderKit, url: str, retry: RetryPolicy) -> tuple[Provider, str]:
    """A fallback chain's member: ``kit``'s provider pointed at ``url``, and its model name."""
    return kit.make(url, retry), kit.model
