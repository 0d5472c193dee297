"""`llmist mcp serve` driven by the official SDK's client, over stdio and streamable HTTP."""

from __future__ import annotations

import asyncio
import re
import sys
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client, types
from mcp.client.streamable_http import streamable_http_client

from llmist import Agent
from llmist.mcp import COST_META_KEY, MCPServerHTTP
from llmist.providers.base import Message
from llmist.testing import MockModel

pytestmark = pytest.mark.slow

TOOLS = str(Path(__file__).with_name("served_tools.py"))
SERVE = [sys.executable, "-m", "llmist.cli", "mcp", "serve", TOOLS]
_SERVING: dict[str, asyncio.subprocess.Process] = {}
"""The process behind each URL http_serve() yielded (so a test can kill it)."""


@asynccontextmanager
async def http_serve() -> AsyncIterator[str]:
    """`llmist mcp serve --http 0` in a subprocess; yields its endpoint URL once it listens."""
    process = await asyncio.create_subprocess_exec(*SERVE, "--http", "0", stderr=asyncio.subprocess.PIPE)
    try:
        assert process.stderr is not None
        line = (await process.stderr.readline()).decode()
        assert line.startswith("serving 4 gadget(s) at "), line
        url = line.rsplit(" ", 1)[-1].strip()
        _SERVING[url] = process
        yield url
    finally:
        if process.returncode is None:
            process.terminate()
        await process.wait()


@asynccontextmanager
async def connect(transport: str, *options: str) -> AsyncIterator[ClientSession]:
    """An initialized SDK client session to `llmist mcp serve [options]` over ``transport``."""
    if transport == "stdio":
        params = StdioServerParameters(command=SERVE[0], args=[*SERVE[1:], *options])
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            yield session
    else:
        async with (
            http_serve() as url,
            streamable_http_client(url) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            yield session


TRANSPORTS = pytest.mark.parametrize("transport", ["stdio", "http"])


def text(result: types.CallToolResult) -> str:
    return "".join(block.text for block in result.content if isinstance(block, types.TextContent))


@TRANSPORTS
async def test_every_gadget_of_the_file_is_listed_with_its_schema(transport: str) -> None:
    async with connect(transport) as session:
        tools = {tool.name: tool for tool in (await session.list_tools()).tools}
    assert set(tools) == {"add", "Nap", "shout", "repeat"}
    assert tools["add"].description == "Add two integers."
    assert tools["add"].input_schema["properties"]["a"]["description"] == "first addend"
    assert tools["add"].input_schema["required"] == ["a", "b"]


@TRANSPORTS
async def test_a_call_runs_the_gadget_and_reports_its_cost(transport: str) -> None:
    async with connect(transport) as session:
        added = await session.call_tool("add", {"a": 2, "b": "40"})
        shouted = await session.call_tool("shout", {"text": "hi"})
    assert (added.is_error, text(added)) == (False, "42")
    assert text(shouted) == "HI"
    assert shouted.meta is not None and shouted.meta[COST_META_KEY] == 0.25


@TRANSPORTS
async def test_invalid_arguments_are_an_error_result_naming_the_field(transport: str) -> None:
    async with connect(transport) as session:
        result = await session.call_tool("add", {"a": "many"})
    assert result.is_error
    assert "a: Input should be a valid integer" in text(result)
    assert "b: missing (required)" in text(result)


@TRANSPORTS
async def test_a_gadget_past_its_timeout_is_an_error_result(transport: str) -> None:
    async with connect(transport) as session:
        result = await session.call_tool("Nap", {"seconds": 30})
    assert result.is_error
    assert "timed out" in text(result).lower()


async def test_an_output_past_the_limit_is_stored_and_read_with_the_viewer() -> None:
    async with connect("stdio", "--output-limit", "100") as session:
        assert "GadgetOutputViewer" in [tool.name for tool in (await session.list_tools()).tools]
        stored = text(await session.call_tool("repeat", {"text": "line\n", "times": 1000}))
        output_id = re.findall(r"repeat_[0-9a-f]+", stored)[0]
        viewed = await session.call_tool("GadgetOutputViewer", {"id": output_id, "limit": "2-"})
    assert len(stored) < 1000
    assert (viewed.is_error, text(viewed)) == (False, "line\nline")


async def test_llmist_own_client_uses_llmist_own_server_over_http() -> None:
    async with http_serve() as url, MCPServerHTTP(url, headers={"X-Test": "1"}, tool_prefix="remote_") as server:
        assert [g.name for g in await server.gadgets()] == ["remote_add", "remote_Nap", "remote_shout", "remote_repeat"]
        assert await server.call_tool("add", {"a": 1, "b": 2}) == "3"


async def test_an_http_server_that_dies_mid_run_gives_an_error_result_and_the_run_goes_on() -> None:
    async with http_serve() as url:
        server = MCPServerHTTP(url)
        # Two different calls: an identical second one would be answered with the first's result.
        calls = [f"!!!GADGET_START:add\n!!!ARG:a\n{a}\n!!!ARG:b\n2\n!!!GADGET_END" for a in (1, 5)]

        def answer(conversation: Sequence[Message]) -> str:
            rounds = sum(m.role == "assistant" for m in conversation)
            if rounds == 1:  # the first call worked: stop the server before the second
                _SERVING[url].kill()
            return calls[rounds] if rounds < 2 else "went on without it"

        result = await Agent(model=MockModel(answer), mcp_servers=[server]).run("add twice")
    first, second = result.gadget_results
    assert first.result == "3"
    assert second.error is not None and "add" in second.error
    assert result.output == "went on without it"
