"""The provider errors' place in llmist's hierarchy and their messages."""

from __future__ import annotations

import sys

from llmist._install import install_command
from llmist.gadgets.errors import LlmistError
from llmist.providers.errors import (
    MissingAPIKeyError,
    ProviderError,
    ProviderNotInstalledError,
    RateLimitError,
    RetryableProviderError,
)


def test_provider_errors_are_llmist_errors() -> None:
    assert issubclass(ProviderError, LlmistError)
    assert issubclass(RateLimitError, RetryableProviderError)


def test_missing_extra_message_gives_the_install_command() -> None:
    error = ProviderNotInstalledError("gemini", "google-genai", "gemini")
    # The command for this interpreter and this install (an editable checkout here, as in `make demo`).
    # The command has a line of its own, so no wrapping cuts it and it is copied whole.
    assert f"Install it with:\n    {install_command('gemini')}" in str(error) and "google-genai" in str(error)
    assert install_command("gemini") in str(error).splitlines()[-1]
    assert install_command("gemini").startswith(f"{sys.executable} -m pip install ")
    assert install_command("gemini").endswith("[gemini]'")
    assert isinstance(error, ImportError)


def test_missing_key_message_names_the_variable() -> None:
    assert "Set the HF_TOKEN environment variable" in str(MissingAPIKeyError("huggingface", "HF_TOKEN"))
