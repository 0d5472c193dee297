"""Fixtures shared by the provider tests."""

from __future__ import annotations

import pytest

from llmist.providers.retry import RetryPolicy


async def _no_sleep(seconds: float) -> None:
    """Skip the pause (tests must be fast)."""
    _ = seconds


@pytest.fixture
def fast_retry() -> RetryPolicy:
    """A retry policy with three attempts and no real waiting."""
    return RetryPolicy(max_attempts=3, base_delay=0.001, max_delay=0.01, sleep=_no_sleep)


@pytest.fixture(autouse=True)
def _no_real_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests never see the developer's real keys or base URLs."""
    for var in (
        "OPENAI_API_KEY",
        "OPENAI_BASE_URL",
        "ANTHROPIC_API_KEY",
        "ANTHROPIC_AUTH_TOKEN",
        "ANTHROPIC_BASE_URL",
        "GEMINI_API_KEY",
        "GOOGLE_API_KEY",
        "GEMINI_BASE_URL",
        "OPENROUTER_API_KEY",
        "HF_TOKEN",
        "OLLAMA_BASE_URL",
        "LLMIST_MODEL",
    ):
        monkeypatch.delenv(var, raising=False)
