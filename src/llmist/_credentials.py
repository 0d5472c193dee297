"""The environment variables that hold llmist's own credentials, declared once.

The providers take the name of their key's variable from :data:`PROVIDER_KEYS`, ``llmist web``
its token's from :data:`WEB_TOKEN`, and ``llmist config show`` lists them. ``RunCommand`` keeps
every one of them from the commands it runs (:func:`credential_variables`): a model that was
talked into running ``env`` must not read the keys that pay for it.

A provider built with a key variable of its own (``OpenAIProvider(api_key_env="CORP_KEY")``)
declares it when it reads it (:func:`note_key_variable`), so that it is hidden too.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from types import MappingProxyType

__all__ = ["PROVIDER_KEYS", "WEB_TOKEN", "credential_variables", "note_key_variable"]

PROVIDER_KEYS: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        "openai": ("OPENAI_API_KEY",),
        # The Anthropic SDK also takes a bearer token from ANTHROPIC_AUTH_TOKEN on its own.
        "anthropic": ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"),
        "gemini": ("GEMINI_API_KEY", "GOOGLE_API_KEY"),
        "openrouter": ("OPENROUTER_API_KEY",),
        "huggingface": ("HF_TOKEN",),
        "ollama": ("OLLAMA_API_KEY",),
        "vllm": ("VLLM_API_KEY",),
        "lmstudio": ("LMSTUDIO_API_KEY",),
        "llamacpp": ("LLAMACPP_API_KEY",),
    }
)
"""Each provider's key variables, by provider id; the first is the one named in key errors."""

WEB_TOKEN = "LLMIST_WEB_TOKEN"
"""The variable ``llmist web`` may take its access token from."""

_noted: set[str] = set()
_lock = threading.Lock()


def note_key_variable(name: str) -> None:
    """Declare that a provider reads its key from the variable ``name``."""
    if name not in _noted:  # read without the lock: the set only grows
        with _lock:
            _noted.add(name)


def credential_variables() -> frozenset[str]:
    """Every variable that holds a credential of llmist: the providers' keys (those declared here
    and those noted since), and the web token."""
    with _lock:
        noted = frozenset(_noted)
    return frozenset(name for names in PROVIDER_KEYS.values() for name in names) | {WEB_TOKEN} | noted
