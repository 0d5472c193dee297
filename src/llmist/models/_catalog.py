"""Built-in model table: context windows, output limits and features.

Prices come from ``genai-prices`` at run time; the prices here are only a fallback for
when that package is not installed or does not know the model.
"""

from __future__ import annotations

from llmist.models.spec import ModelSpec

_M = ModelSpec

BUILTIN_MODELS: tuple[ModelSpec, ...] = (
    # OpenAI
    _M("openai", "gpt-4o", "GPT-4o", 128_000, 16_384, 2.5, 10.0, 1.25, vision=True, caching=True),
    _M("openai", "gpt-4o-mini", "GPT-4o mini", 128_000, 16_384, 0.15, 0.6, 0.075, vision=True, caching=True),
    _M("openai", "gpt-4.1", "GPT-4.1", 1_047_576, 32_768, 2.0, 8.0, 0.5, vision=True, caching=True),
    _M("openai", "gpt-4.1-mini", "GPT-4.1 mini", 1_047_576, 32_768, 0.4, 1.6, 0.1, vision=True, caching=True),
    _M("openai", "gpt-4.1-nano", "GPT-4.1 nano", 1_047_576, 32_768, 0.1, 0.4, 0.025, vision=True, caching=True),
    _M("openai", "gpt-5", "GPT-5", 400_000, 128_000, 1.25, 10.0, 0.125, vision=True, reasoning=True, caching=True),
    _M("openai", "gpt-5-mini", "GPT-5 mini", 400_000, 128_000, 0.25, 2.0, 0.025, vision=True, reasoning=True,
       caching=True),
    _M("openai", "o3", "o3", 200_000, 100_000, 2.0, 8.0, 0.5, vision=True, reasoning=True, caching=True),
    _M("openai", "o4-mini", "o4-mini", 200_000, 100_000, 1.1, 4.4, 0.275, vision=True, reasoning=True, caching=True),
    _M("openai", "gpt-5.5", "GPT-5.5", 1_000_000, None, 5.0, 30.0, 0.5, vision=True, reasoning=True, caching=True),
    _M("openai", "gpt-5.4-mini", "GPT-5.4 mini", 400_000, None, 0.75, 4.5, 0.075, vision=True, reasoning=True,
       caching=True),
    # Anthropic
    _M("anthropic", "claude-sonnet-5-5", "Claude Sonnet 5.5", 1_000_000, None, 2.0, 10.0, 0.1, vision=True,
       reasoning=True, caching=True),
    _M("anthropic", "claude-haiku-5-5", "Claude Haiku 5.5", 1_000_000, None, 0.1, 0.5, 0.01, vision=True,
       reasoning=True, caching=True),
    _M("anthropic", "claude-opus-5-5", "Claude Opus 5.5", 1_000_000, None, 4.0, 20.0, 0.2, vision=True,
       reasoning=True, caching=True),
    _M("anthropic", "claude-sonnet-4-6", "Claude Sonnet 4.6", 1_000_000, 64_000, 3.0, 15.0, 0.3, 3.75, vision=True,
       reasoning=True, caching=True),
    _M("anthropic", "claude-sonnet-4-5", "Claude Sonnet 4.5", 200_000, 64_000, 3.0, 15.0, 0.3, 3.75, vision=True,
       reasoning=True, caching=True),
    _M("anthropic", "claude-haiku-4-5", "Claude Haiku 4.5", 200_000, 64_000, 1.0, 5.0, 0.1, 1.25, vision=True,
       reasoning=True, caching=True),
    _M("anthropic", "claude-opus-4-5", "Claude Opus 4.5", 200_000, 64_000, 5.0, 25.0, 0.5, 6.25, vision=True,
       reasoning=True, caching=True),
    _M("anthropic", "claude-opus-4-1", "Claude Opus 4.1", 200_000, 32_000, 15.0, 75.0, 1.5, 18.75, vision=True,
       reasoning=True, caching=True),
    # Google Gemini
    _M("gemini", "gemini-3.8-flash", "Gemini 3.8 Flash", 1_000_000, None, 0.75, 3.75, 0.075, vision=True,
       reasoning=True, caching=True),
    _M("gemini", "gemini-3.5-flash-lite", "Gemini 3.5 Flash Lite", 1_000_000, None, 0.3, 2.5, 0.03, vision=True,
       reasoning=True, caching=True),
    _M("gemini", "gemini-2.5-pro", "Gemini 2.5 Pro", 1_048_576, 65_536, 1.25, 10.0, 0.31, vision=True,
       reasoning=True, caching=True),
    _M("gemini", "gemini-2.5-flash", "Gemini 2.5 Flash", 1_048_576, 65_536, 0.3, 2.5, 0.075, vision=True,
       reasoning=True, caching=True),
    _M("gemini", "gemini-2.5-flash-lite", "Gemini 2.5 Flash-Lite", 1_048_576, 65_536, 0.1, 0.4, 0.025,
       vision=True, reasoning=True, caching=True),
    _M("gemini", "gemini-2.0-flash", "Gemini 2.0 Flash", 1_048_576, 8_192, 0.1, 0.4, 0.025, vision=True,
       caching=True),
)

BUILTIN_ALIASES: dict[str, str] = {
    "sonnet": "anthropic:claude-sonnet-5-5",
    "haiku": "anthropic:claude-haiku-5-5",
    "opus": "anthropic:claude-opus-5-5",
    "gpt-4o": "openai:gpt-4o",
    "gpt-4o-mini": "openai:gpt-4o-mini",
    "gpt-4.1": "openai:gpt-4.1",
    "gpt-4.1-mini": "openai:gpt-4.1-mini",
    "gpt-5": "openai:gpt-5",
    "gpt-5-mini": "openai:gpt-5-mini",
    "gpt-5.5": "openai:gpt-5.5",
    "gpt-5.4-mini": "openai:gpt-5.4-mini",
    "o3": "openai:o3",
    "o4-mini": "openai:o4-mini",
    "flash": "gemini:gemini-3.8-flash",
    "flash-lite": "gemini:gemini-3.5-flash-lite",
    "pro": "gemini:gemini-2.5-pro",
}
"""Short names for common models, each mapped to a ``provider:model`` string."""
