"""`llmist mcp serve` over stdio stays a clean JSON-RPC stream and always answers: a gadget that
prints to standard output, or returns a result that is not text, cannot break it."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client, types

pytestmark = pytest.mark.slow

TOOLS = str(Path(__file__).with_name("misbehaving_tools.py"))


def text(result: types.CallToolResult) -> str:
    return "".join(block.text for block in result.content if isinstance(block, types.TextContent))


async def _call(name: str, arguments: dict[str, object]) -> types.CallToolResult:
    params = StdioServerParameters(command=sys.executable, args=["-m", "llmist.cli", "mcp", "serve", TOOLS])
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        first = await session.call_tool(name, arguments)
        again = await session.call_tool(name, arguments)  # the stream is still whole after the first
        assert text(again) == text(first)
        return first


async def test_a_result_that_is_not_text_is_answered() -> None:
    result = await asyncio.wait_for(_call("lookup", {"key": "k"}), 60)
    assert (result.is_error, text(result)) == (False, "42")


async def test_a_gadget_printing_to_stdout_does_not_break_the_stream() -> None:
    result = await asyncio.wait_for(_call("chatty", {"text": "hi"}), 60)
    assert (result.is_error, text(result)) == (False, "HI")


async def test_a_lone_surrogate_in_a_result_is_sent_as_a_replacement_character() -> None:
    result = await asyncio.wait_for(_call("surrogate", {"text": "hi"}), 60)
    assert (result.is_error, text(result)) == (False, "hi \ufffd end")
