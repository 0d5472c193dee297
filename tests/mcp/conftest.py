"""MCP servers run as subprocesses for the client tests: one written here, one from PyPI."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from llmist.mcp import MCPServerStdio
from llmist.testing import block_real_models

TOY_SERVER = Path(__file__).with_name("toy_server.py")


@pytest.fixture(autouse=True)
def _offline() -> Iterator[None]:
    with block_real_models():
        yield


@pytest.fixture
def toy() -> MCPServerStdio:
    """The SDK-written server of toy_server.py (not yet connected)."""
    return MCPServerStdio(sys.executable, [str(TOY_SERVER)])


@pytest.fixture
def time_server() -> MCPServerStdio:
    """The published reference server ``mcp-server-time`` (from PyPI), pinned to UTC."""
    return MCPServerStdio(sys.executable, ["-m", "mcp_server_time", "--local-timezone", "UTC"])
