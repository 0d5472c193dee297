"""Gadgets and scripted models for the page's tests."""

from __future__ import annotations

import asyncio
import threading
from typing import Annotated, Any, ClassVar

from pydantic import BaseModel, Field

from llmist import Gadget, gadget
from llmist.gadgets import ExecutionContext


class Gate:
    """A gate a test opens to let waiting gadgets finish (so 'running' can be seen)."""

    def __init__(self) -> None:
        self._event = threading.Event()

    def open(self) -> None:
        self._event.set()

    async def wait(self) -> None:
        await asyncio.to_thread(self._event.wait, 30)


class WriteNote(Gadget):
    """A gadget that needs a person's approval, as the built-in writes do."""

    description = "Write a note."
    requires_approval = True

    class Params(BaseModel):
        title: str = Field(description="title")
        text: str = Field(description="the note")

    written: ClassVar[list[dict[str, Any]]] = []

    def execute(self, params: Any, ctx: ExecutionContext) -> str:
        WriteNote.written.append(params.model_dump())
        return f"wrote {params.title!r} ({len(params.text)} characters)"


@gadget(description="Echo a text back.")
def echo(text: Annotated[str, Field(description="text")]) -> str:
    return text


def gated(gate: Gate) -> Any:
    """A gadget ``fetch(url)`` that waits for ``gate`` before answering."""

    @gadget(description="Fetch a page.")
    async def fetch(url: Annotated[str, Field(description="address")]) -> str:
        await gate.wait()
        return f"contents of {url}"

    return fetch
