"""Model I/O: the provider contract, the OpenAI, Anthropic, Gemini and OpenAI-compatible providers,
model-string resolution, retries and rate limiting, and ``LLMClient``.

Provider SDKs are optional extras, imported only when a provider is first used.
"""

from llmist.providers.anthropic import AnthropicProvider
from llmist.providers.base import (
    ContentPart,
    ImagePart,
    LLMChunk,
    LLMRequest,
    LLMResponse,
    Message,
    Provider,
    Reasoning,
    ReasoningEffort,
    Role,
    TextPart,
    ToolCall,
    ToolSpec,
    Usage,
    complete,
)
from llmist.providers.client import CostReportingClient, LLMClient
from llmist.providers.compatible import SERVERS, CompatibleServer, openai_compatible
from llmist.providers.errors import (
    AuthenticationError,
    BadRequestError,
    EmptyResponseError,
    ImagesNotSupportedError,
    MissingAPIKeyError,
    ProviderConnectionError,
    ProviderError,
    ProviderNotInstalledError,
    ProviderOverloadedError,
    ProviderServerError,
    RateLimitError,
    RetryableProviderError,
    ServerNotListeningError,
    StreamInterruptedError,
    UnknownModelError,
)
from llmist.providers.gemini import GeminiProvider
from llmist.providers.openai import OpenAIProvider
from llmist.providers.registry import ProviderFactory, default_model, register_provider, resolve_model
from llmist.providers.retry import RateLimiter, RetryPolicy

__all__ = [
    "SERVERS",
    "AnthropicProvider",
    "AuthenticationError",
    "BadRequestError",
    "CompatibleServer",
    "ContentPart",
    "CostReportingClient",
    "EmptyResponseError",
    "GeminiProvider",
    "ImagePart",
    "ImagesNotSupportedError",
    "LLMChunk",
    "LLMClient",
    "LLMRequest",
    "LLMResponse",
    "Message",
    "MissingAPIKeyError",
    "OpenAIProvider",
    "Provider",
    "ProviderConnectionError",
    "ProviderError",
    "ProviderFactory",
    "ProviderNotInstalledError",
    "ProviderOverloadedError",
    "ProviderServerError",
    "RateLimitError",
    "RateLimiter",
    "Reasoning",
    "ReasoningEffort",
    "RetryPolicy",
    "RetryableProviderError",
    "Role",
    "ServerNotListeningError",
    "StreamInterruptedError",
    "TextPart",
    "ToolCall",
    "ToolSpec",
    "UnknownModelError",
    "Usage",
    "complete",
    "default_model",
    "openai_compatible",
    "register_provider",
    "resolve_model",
]
