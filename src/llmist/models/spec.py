"""What we know about one model: limits, prices, features."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

__all__ = ["CostBreakdown", "ModelSpec", "TokenUsage"]


@dataclass(frozen=True, slots=True)
class ModelSpec:
    """Limits, prices and features of one model.

    Prices are in USD per million tokens; ``None`` means unknown (not free).
    """

    provider: str
    """Provider id as used in model strings (``"openai"``, ``"anthropic"``, ``"gemini"``, ``"ollama"``...)."""
    model_id: str
    """Model name as the provider knows it."""
    display_name: str = ""
    """Human-readable name."""
    context_window: int | None = None
    """Maximum input tokens."""
    max_output_tokens: int | None = None
    """Maximum tokens in one response."""
    input_price: float | None = None
    """USD per million input tokens (not served from cache)."""
    output_price: float | None = None
    """USD per million output tokens (reasoning included)."""
    cached_input_price: float | None = None
    """USD per million input tokens read from the prompt cache; ``None`` bills them as input."""
    cache_write_price: float | None = None
    """USD per million input tokens written to the prompt cache; ``None`` bills them as input."""
    vision: bool = False
    """Accepts images."""
    reasoning: bool = False
    """Produces reasoning ("thinking") tokens."""
    caching: bool = False
    """Supports prompt caching."""
    native_tools: bool = False
    """Calls tools well through its provider's native tool-calling API (OpenAI tools, Anthropic
    ``tool_use``, Gemini function calls): ``Agent(syntax="auto")`` uses that API for it, and the
    block syntax for a model without this flag. Set it on a model you register whose server
    supports tool calls (``ModelSpec("ollama", "qwen3:8b", native_tools=True)``)."""

    @property
    def ref(self) -> str:
        """The canonical model string, ``provider:model_id``."""
        return f"{self.provider}:{self.model_id}"

    @property
    def has_prices(self) -> bool:
        """Whether input and output prices are both known."""
        return self.input_price is not None and self.output_price is not None


class TokenUsage(Protocol):
    """The token counts a cost is computed from (``llmist.providers.Usage`` satisfies it)."""

    @property
    def input_tokens(self) -> int:
        """All input tokens, cached ones included."""
        ...

    @property
    def output_tokens(self) -> int:
        """All output tokens, reasoning included."""
        ...

    @property
    def cached_input_tokens(self) -> int:
        """Input tokens read from the prompt cache."""
        ...

    @property
    def cache_write_tokens(self) -> int:
        """Input tokens written to the prompt cache."""
        ...

    @property
    def reasoning_tokens(self) -> int:
        """Output tokens spent on hidden reasoning."""
        ...


@dataclass(frozen=True, slots=True)
class CostBreakdown:
    """What one call (or several) cost, in USD, by kind of token."""

    input: float = 0.0
    """Input tokens: plain ones at the input price, cache reads and writes at their own prices."""
    output: float = 0.0
    """Visible output tokens (the answer)."""
    reasoning: float = 0.0
    """Reasoning ("thinking") tokens: billed as output by every provider, reported apart."""

    @property
    def total(self) -> float:
        """The whole cost."""
        return self.input + self.output + self.reasoning
