"""Requests that offer no tools are byte for byte what they were before native tool calls existed."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from llmist.providers.anthropic import AnthropicProvider
from llmist.providers.base import ImagePart, LLMRequest, Message, Provider, TextPart, complete
from llmist.providers.gemini import GeminiProvider
from llmist.providers.openai import OpenAIProvider
from tests.providers.fake_servers import FakeResponse, FakeServer, anthropic_stream, gemini_stream, openai_stream

CONVERSATION = [
    Message("system", "Rules."),
    Message("user", "Add 2 and 3"),
    Message("assistant", "calling add"),
    Message("gadget_result", "Result of add: 5"),
    Message("gadget_result", (TextPart("chart:"), ImagePart(b"\x89PNG", "image/png"))),
    Message("user", "Now finish"),
]

GOLDEN = Path(__file__).parent / "golden"
"""Each provider's body for :data:`CONVERSATION` (``no_tools_<provider>.json``), recorded before
the ``tools`` field was added."""

KINDS: dict[str, tuple[Callable[[str], Provider], Callable[..., FakeResponse], str]] = {
    "openai": (lambda url: OpenAIProvider(api_key="k", base_url=f"{url}/v1"), openai_stream, "gpt-4o"),
    "anthropic": (lambda url: AnthropicProvider(api_key="k", base_url=url), anthropic_stream, "claude-sonnet-5-5"),
    "gemini": (lambda url: GeminiProvider(api_key="k", base_url=url), gemini_stream, "gemini-2.5-flash"),
}


@pytest.mark.parametrize("kind", sorted(KINDS))
async def test_a_request_without_tools_is_sent_byte_for_byte_as_before(kind: str) -> None:
    make, stream, model = KINDS[kind]
    with FakeServer([stream(["ok"])]) as server:
        await complete(make(server.base_url), LLMRequest(model=model, messages=CONVERSATION, max_tokens=100))
    assert server.requests[0].raw == (GOLDEN / f"no_tools_{kind}.json").read_bytes()
