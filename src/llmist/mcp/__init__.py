"""MCP both ways: tools of MCP servers as gadgets (client), and gadgets served over MCP (server).

Needs the ``mcp`` extra: ``pip install 'llmist[mcp]'``. Layer: after ``execution`` (it builds
gadgets and serves them through the executor), before ``agent`` and ``cli``, which use it.
"""

try:
    import mcp as _sdk  # noqa: F401 - fail here, with the fix, when the extra is missing
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError("llmist.mcp needs the official MCP SDK: pip install 'llmist[mcp]'") from exc

from llmist.mcp._client import (
    DEFAULT_CONNECT_TIMEOUT_S,
    MCPServer,
    MCPServerError,
    MCPServerHTTP,
    MCPServerStdio,
    stop_stdio_servers,
)
from llmist.mcp._server import COST_META_KEY, build_mcp_server, serve_http, serve_stdio

__all__ = [
    "COST_META_KEY",
    "DEFAULT_CONNECT_TIMEOUT_S",
    "MCPServer",
    "MCPServerError",
    "MCPServerHTTP",
    "MCPServerStdio",
    "build_mcp_server",
    "serve_http",
    "serve_stdio",
    "stop_stdio_servers",
]
