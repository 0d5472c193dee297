"""Model strings to providers: ``provider:model``, aliases, and the provider picked from the environment.

Resolution of ``resolve_model(spec)``, first match wins:

1. an alias of the model registry (``"sonnet"`` -> ``"anthropic:claude-sonnet-4-5"``);
2. a bare registered prefix (``"mock"``) -> that provider, model name = the prefix;
3. ``prefix:model`` with a registered prefix, split at the first colon
   (``"ollama:qwen2.5:7b"`` -> ollama, ``"qwen2.5:7b"``); ``mock`` takes none (``"mock:x"`` is an error);
4. a model the registry knows (``"claude-haiku-4-5"``) -> its provider;
5. a name that reveals its family (``gpt-*``, ``o1``/``o3``/``o4*``, ``claude-*``, ``gemini-*``...).

Anything else is an :class:`UnknownModelError` with the closest names ("did you mean
'sonnet'?"), never a guess: a typo such as ``"sonet"`` or ``"anthropc:claude-sonnet-4-5"`` must
not reach whichever provider has a key set. The keys in the environment choose a provider only
when no model is given at all (:func:`default_model`).
"""

from __future__ import annotations

import difflib
import importlib
import os
import re
import threading
from collections.abc import Callable

from llmist._credentials import PROVIDER_KEYS
from llmist.models import ModelRegistry
from llmist.providers.base import Provider
from llmist.providers.errors import UnknownModelError

__all__ = ["ProviderFactory", "default_model", "register_provider", "registered_providers", "resolve_model"]

ProviderFactory = Callable[[], Provider]
"""Makes a provider (reading keys and URLs from the environment as needed)."""

_lock = threading.Lock()
_factories: dict[str, ProviderFactory] = {}

_ENV_ORDER: tuple[tuple[str, tuple[str, ...], str], ...] = (
    ("openai", PROVIDER_KEYS["openai"], "gpt-5.4-mini"),
    # Not ANTHROPIC_AUTH_TOKEN: the provider needs ANTHROPIC_API_KEY itself.
    ("anthropic", PROVIDER_KEYS["anthropic"][:1], "claude-sonnet-5-5"),
    ("gemini", PROVIDER_KEYS["gemini"], "gemini-3.8-flash"),
    ("openrouter", PROVIDER_KEYS["openrouter"], "openai/gpt-4o-mini"),
)
"""Providers tried, in order, when a model string names none: (prefix, key variables, default model)."""

_FAMILIES: tuple[tuple[re.Pattern[str], str], ...] = (
    # OpenAI's ids: gpt-*, chatgpt-*, codex-*, the o-series (o1, o3-mini, o4-mini-high...), and
    # fine-tuned models, which OpenAI names ``ft:BASE:ORG::ID`` (a colon that is no provider prefix).
    (re.compile(r"(gpt-|chatgpt-|codex-|ft:)|o[1-9]\d*(-|$)"), "openai"),
    (re.compile(r"claude-"), "anthropic"),
    (re.compile(r"gemini-"), "gemini"),
)
"""A bare model name's family, read from how its provider names models (``re.match``, at the start)."""


def register_provider(prefix: str, factory: ProviderFactory) -> None:
    """Make ``prefix:model`` strings (and the bare ``prefix``) resolve to providers made by ``factory``.

    Registering an existing prefix replaces it.
    """
    if not prefix or ":" in prefix:
        raise ValueError(f"A provider prefix must be non-empty and contain no colon, got {prefix!r}")
    with _lock:
        _factories[prefix] = factory


def registered_providers() -> list[str]:
    """The registered prefixes, sorted."""
    with _lock:
        return sorted(_factories)


_SELF_REGISTERING: dict[str, str] = {"mock": "llmist.providers.mock"}
"""Prefixes whose module registers them when imported; imported on first use of the prefix."""


def _factory(prefix: str) -> ProviderFactory | None:
    with _lock:
        factory = _factories.get(prefix)
    if factory is None and prefix in _SELF_REGISTERING:
        module = _SELF_REGISTERING[prefix]
        try:
            importlib.import_module(module)
        except ModuleNotFoundError as error:
            if error.name != module:
                raise
            return None
        with _lock:
            factory = _factories.get(prefix)
    return factory


def resolve_model(spec: str, registry: ModelRegistry | None = None) -> tuple[Provider, str]:
    """The provider for model string ``spec`` and the model name to send it (see the module docstring).

    Raises :class:`~llmist.providers.errors.UnknownModelError` when no rule applies, and the
    provider's own errors (missing extra, missing key) when it cannot be made.
    """
    spec = spec.strip()
    if not spec:
        spec = default_model()
    registry = registry or _default_registry()
    target = registry.resolve_alias(spec) or spec
    factory = _factory(target)
    if factory is not None:
        return factory(), target
    prefix, sep, model = target.partition(":")
    if sep:
        factory = _factory(prefix)
        if factory is not None:
            if not model:
                raise UnknownModelError(f"Model string {spec!r} names provider {prefix!r} but no model")
            if prefix == "mock":  # its factory takes no model: anything after the colon was ignored
                raise UnknownModelError(_MOCK_TAKES_NO_MODEL.format(spec=spec))
            return factory(), model
    provider = _provider_for(target, registry)
    if provider is None:
        raise UnknownModelError(_unknown_model_message(spec, target, registry))
    factory = _factory(provider)
    if factory is None:
        raise UnknownModelError(f"No provider registered as {provider!r} (needed for model {spec!r})")
    return factory(), target


_MOCK_TAKES_NO_MODEL = (
    "Model string {spec!r}: the mock provider takes no model name. 'mock' is a model that echoes the "
    "prompt; llmist.testing.MockModel([...]) is a scripted one (pass it as model=); the command line's "
    "-m mock:FILE.json reads a script file"
)
"""``mock:NAME`` in code echoed whatever NAME was, so a script file named there was silently unread."""


def default_model() -> str:
    """The model used when none is given: ``LLMIST_MODEL``, else a default of the first provider with a key set."""
    configured = os.environ.get("LLMIST_MODEL")
    if configured:
        return configured
    for prefix, env_vars, model in _ENV_ORDER:
        if any(os.environ.get(v) for v in env_vars):
            return f"{prefix}:{model}"
    raise UnknownModelError(_no_provider_message("No model given"))


def _provider_for(model: str, registry: ModelRegistry) -> str | None:
    """The provider of a model string no prefix names: the registry's, else its family's, else ``None``."""
    if ":" not in model:  # a colon names a provider (checked by the caller); the registry would take it as one
        spec = registry.get(model)
        if spec is not None:
            return spec.provider
    for pattern, provider in _FAMILIES:
        if pattern.match(model):
            return provider
    return None


def _unknown_model_message(spec: str, target: str, registry: ModelRegistry) -> str:
    """Why ``spec`` names no model, the closest names to it, and how to name any model."""
    providers = registered_providers()
    shown = _shown(spec)
    prefix, sep, model = target.partition(":")
    if sep:
        close = difflib.get_close_matches(prefix[:_SHOWN], providers, n=1, cutoff=0.6)
        guess = f"Did you mean {_shown(close[0] + ':' + model)}? " if close else ""
        return (
            f"Unknown provider {_shown(prefix)} in model {shown} (the text before the first colon names the "
            f"provider). {guess}Providers: {', '.join(providers)}."
        )
    names = {*registry.aliases, *providers, *(m.model_id for m in registry.list_models())}
    close = difflib.get_close_matches(spec[:_SHOWN], sorted(names), n=3, cutoff=0.6)
    guess = f"Did you mean {' or '.join(repr(c) for c in close)}? " if close else ""
    example = _shown(f"openrouter:{spec}") if "/" in spec else f"{_shown('openai:' + spec)}, {_shown('ollama:' + spec)}"
    return (
        f"Unknown model {shown}: no alias, known model or provider has that name, and it is not named like "
        f"gpt-*, o3*, claude-* or gemini-*. {guess}For any other model, write 'provider:model': {example}..."
    )


_SHOWN = 80
"""Characters of a model string an error quotes: a pasted page is not echoed back whole."""


def _shown(text: str) -> str:
    """``text`` quoted for an error: escapes for control characters, at most ``_SHOWN`` characters, and
    the code points of a name that is not ASCII (a Cyrillic "о3" looks like "o3" but is another name)."""
    cut = text if len(text) <= _SHOWN else text[:_SHOWN] + "..."
    return repr(cut) if cut.isascii() else f"{cut!r} ({cut!a})"


def _no_provider_message(problem: str) -> str:
    keys = ", ".join(v for _, env_vars, _ in _ENV_ORDER for v in env_vars)
    return (
        f"{problem}. Write the model as 'provider:model' (providers: {', '.join(registered_providers())}), "
        f"use an alias such as 'sonnet' or 'gpt-4o', set LLMIST_MODEL, or set one of {keys}."
    )


_registry: ModelRegistry | None = None


def _default_registry() -> ModelRegistry:
    global _registry
    if _registry is None:
        _registry = ModelRegistry()
    return _registry


def _register_builtins() -> None:
    from llmist.providers.anthropic import AnthropicProvider
    from llmist.providers.compatible import SERVERS, openai_compatible
    from llmist.providers.gemini import GeminiProvider
    from llmist.providers.openai import OpenAIProvider

    register_provider("openai", OpenAIProvider)
    register_provider("anthropic", AnthropicProvider)
    register_provider("gemini", GeminiProvider)
    for name in SERVERS:
        register_provider(name, _compatible_factory(name, openai_compatible))


def _compatible_factory(name: str, make: Callable[[str], Provider]) -> ProviderFactory:
    return lambda: make(name)


_register_builtins()
