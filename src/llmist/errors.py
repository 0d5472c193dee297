"""The root of every exception llmist raises on purpose.

It lives at the package root, outside the layers, so that every layer can subclass it
without importing another. Catch :class:`LlmistError` for anything llmist decided to raise;
each layer's module draws its own part of the tree::

    LlmistError
    ├── syntax.BlockParseError          a block's parameters break the pointer grammar (also a ValueError)
    ├── gadgets.errors                  gadget definitions, parameters and the signals gadgets raise
    │   ├── GadgetError                 (mcp.MCPServerError and the sandbox's SandboxError under it)
    │   ├── InvalidParametersError
    │   ├── GadgetSignal                ModelRetry, TaskCompletionSignal, HumanInputRequired
    │   └── GadgetAbortedError          GadgetTimeoutError
    ├── providers.errors.ProviderError  model backends: missing SDK or key, refusals, retryable failures
    └── agent.errors                    the agent's: OutputValidationError, RepairRefused,
                                        SessionError, MessageFormatError, RealModelRequestBlocked
"""

from __future__ import annotations

__all__ = ["LlmistError"]


class LlmistError(Exception):
    """Base class of every exception llmist raises on purpose."""
