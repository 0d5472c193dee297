"""OpenAI-compatible servers (Ollama, vLLM, LM Studio, llama.cpp, OpenRouter, Hugging Face) by base URL.

Each preset knows the server's usual base URL, the environment variable that overrides
it, and the environment variable holding its key (optional for local servers).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from llmist._credentials import PROVIDER_KEYS
from llmist.providers.base import GrammarField
from llmist.providers.errors import UnknownModelError
from llmist.providers.openai import OpenAIProvider
from llmist.providers.retry import RateLimiter, RetryPolicy

__all__ = ["SERVERS", "CompatibleServer", "openai_compatible"]


@dataclass(frozen=True, slots=True)
class CompatibleServer:
    """Defaults of one kind of OpenAI-compatible server."""

    name: str
    """Provider id, also the model-string prefix (``ollama:qwen2.5:7b``)."""
    base_url: str
    """Where the server usually listens (its ``/v1`` API root)."""
    base_url_env: str
    """Environment variable that overrides ``base_url``."""
    api_key_env: str
    """Environment variable holding the key."""
    key_required: bool
    """Hosted services need a key; local servers do not."""
    grammar_field: GrammarField | None = None
    """How the server takes a GBNF grammar with a request (``None``: it does not; Ollama takes
    JSON schemas only). ``Agent(constrained=...)`` sends the call grammar this way."""


def _key(server: str) -> str:
    return PROVIDER_KEYS[server][0]


SERVERS: dict[str, CompatibleServer] = {
    s.name: s
    for s in (
        CompatibleServer("ollama", "http://localhost:11434/v1", "OLLAMA_BASE_URL", _key("ollama"), False),
        CompatibleServer(
            "vllm", "http://localhost:8000/v1", "VLLM_BASE_URL", _key("vllm"), False, "structured_outputs"
        ),
        CompatibleServer("lmstudio", "http://localhost:1234/v1", "LMSTUDIO_BASE_URL", _key("lmstudio"), False),
        CompatibleServer(
            "llamacpp", "http://localhost:8080/v1", "LLAMACPP_BASE_URL", _key("llamacpp"), False, "grammar"
        ),
        CompatibleServer("openrouter", "https://openrouter.ai/api/v1", "OPENROUTER_BASE_URL", _key("openrouter"), True),
        CompatibleServer("huggingface", "https://router.huggingface.co/v1", "HF_BASE_URL", _key("huggingface"), True),
    )
}
"""The built-in server presets, by name."""


def openai_compatible(
    server: str,
    *,
    base_url: str | None = None,
    api_key: str | None = None,
    timeout: float = 600.0,
    retry: RetryPolicy | None = None,
    rate_limiter: RateLimiter | None = None,
) -> OpenAIProvider:
    """A provider for the OpenAI-compatible ``server`` (a key of :data:`SERVERS`).

    The base URL is, in order: ``base_url``, the preset's environment variable, the
    preset's default.
    """
    preset = SERVERS.get(server)
    if preset is None:
        raise UnknownModelError(f"Unknown OpenAI-compatible server {server!r}; known: {', '.join(sorted(SERVERS))}")
    return OpenAIProvider(
        api_key=api_key,
        base_url=base_url or os.environ.get(preset.base_url_env) or preset.base_url,
        name=preset.name,
        api_key_env=preset.api_key_env,
        base_url_env=preset.base_url_env,
        require_api_key=preset.key_required,
        timeout=timeout,
        max_tokens_param="max_tokens",
        retry=retry,
        rate_limiter=rate_limiter,
        grammar_field=preset.grammar_field,
    )
