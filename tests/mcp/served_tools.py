"""Gadgets `llmist mcp serve` serves in the server tests: a class, a @gadget function, create_gadget."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

from pydantic import BaseModel, Field

from llmist import Gadget, GadgetResult, create_gadget, gadget
from llmist.gadgets import ExecutionContext


@gadget
def add(a: Annotated[int, Field(description="first addend")], b: int) -> str:
    """Add two integers."""
    return str(a + b)


class NapParams(BaseModel):
    seconds: float


class Nap(Gadget):
    """Sleep, but give up after a tenth of a second."""

    description = "Sleep for a while."
    Params = NapParams
    timeout_s = 0.1

    async def execute(self, params: NapParams, ctx: ExecutionContext) -> str:
        await asyncio.sleep(params.seconds)
        return "rested"


def _shout(params: dict[str, Any]) -> GadgetResult:
    return GadgetResult(params["text"].upper(), cost=0.25)


shout = create_gadget(
    name="shout",
    description="Upper-case a text (costs a quarter).",
    schema={"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
    execute=_shout,
)


@gadget
def repeat(text: str, times: int) -> str:
    """Repeat a text."""
    return text * times
