"""Gadgets shared by the agent tests."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Annotated

import pytest
from pydantic import BaseModel, Field

from llmist import Gadget, TaskCompletionSignal, gadget
from llmist.gadgets import ExecutionContext
from llmist.providers.base import Message
from llmist.testing import block_real_models


@pytest.fixture(autouse=True)
def _offline() -> Iterator[None]:
    with block_real_models():
        yield


@gadget
def add(a: Annotated[int, Field(description="first")], b: Annotated[int, Field(description="second")]) -> int:
    """Add two integers."""
    return a + b


@gadget
async def boom(reason: str) -> str:
    """Always fails."""
    raise RuntimeError(f"boom: {reason}")


@gadget
def finish(summary: str) -> str:
    """Call when the task is complete."""
    raise TaskCompletionSignal(summary)


class EchoParams(BaseModel):
    text: str = Field(description="what to echo")


class Echo(Gadget):
    """Class-based gadget."""

    description = "Echo the text back."
    Params = EchoParams

    def execute(self, params: EchoParams, ctx: ExecutionContext) -> str:
        return params.text


class ListSession:
    """A session kept in a list (the session protocol, nothing else)."""

    def __init__(self, session_id: str = "list") -> None:
        self.session_id = session_id
        self.stored: list[Message] = []

    async def load(self) -> list[Message]:
        return list(self.stored)

    async def save(self, messages: Sequence[Message]) -> None:
        self.stored = list(messages)

    async def flush(self) -> None:
        return None
