"""Hooks: observers watch, interceptors transform, controllers decide (here: an approval)."""

import asyncio
from typing import Any

from llmist import (
    Agent,
    Controllers,
    HookPresets,
    Hooks,
    Interceptors,
    Observers,
    SkipGadget,
    gadget,
    merge_hooks,
)
from llmist.agent import GadgetContext, LLMCallContext
from llmist.testing import MockModel, block_call


@gadget
def delete_file(path: str) -> str:
    """Delete a file."""
    return f"deleted {path}"


def log_call(ctx: LLMCallContext) -> None:
    print(f"model call #{ctx.iteration} with {len(ctx.messages)} messages")


def redact(text: str, ctx: Any) -> str:
    return text.replace("secret", "******")


async def approve(ctx: GadgetContext) -> SkipGadget | None:
    if ctx.gadget_name == "delete_file" and ctx.parameters["path"].startswith("/etc"):
        return SkipGadget("Denied: the user does not allow deleting files under /etc.")
    return None  # proceed


hooks = merge_hooks(
    HookPresets.logging(),
    Hooks(
        observers=Observers(on_llm_call_start=log_call),
        interceptors=Interceptors(intercept_text_chunk=redact),
        controllers=Controllers(before_gadget=approve),
    ),
)


async def main() -> None:
    script = [block_call("delete_file", path="/etc/passwd"), "I was not allowed; the secret stays."]
    result = await Agent(model=MockModel(script), gadgets=[delete_file], hooks=hooks).run("Clean up")
    print(result.gadget_results[0].result)  # Denied: ...
    print(result.output)  # I was not allowed; the ****** stays.

    assert result.gadget_results[0].result is not None and result.gadget_results[0].result.startswith("Denied")
    assert result.output == "I was not allowed; the ****** stays."


if __name__ == "__main__":
    asyncio.run(main())
