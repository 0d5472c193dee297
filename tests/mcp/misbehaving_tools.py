"""Gadgets that misbehave, for the CLI tests of `llmist mcp serve` and `llmist agent --json`."""

from __future__ import annotations

import os
import sys

from llmist import GadgetResult, gadget


@gadget(timeout_s=2)
def lookup(key: str) -> GadgetResult:
    """Return a result that is not text."""
    return GadgetResult(result=42)  # type: ignore[arg-type]


@gadget
def chatty(text: str) -> str:
    """Print to standard output (Python and a child process), then answer."""
    print("chatty printed this")
    sys.stdout.flush()
    os.system("echo chatty child wrote this")
    return text.upper()


@gadget(timeout_s=0.5)
async def stubborn() -> str:
    """Ignore every cancellation, for ever."""
    import asyncio

    while True:
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            continue


stubborn.cancel_grace_s = 0.2


@gadget
def surrogate(text: str) -> str:
    """Echo the text with a lone surrogate in it."""
    return f"{text} \ud800 end"
