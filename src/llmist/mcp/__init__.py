"""MCP both ways: tools of MCP servers as gadgets (client), and gadgets served over MCP (server).

Needs the ``mcp`` extra: ``pip install 'llmist[mcp]'``. Layer: after ``execution`` (it builds
gadgets and serves them through the executor), before ``agent`` and ``cli``, which use it.
"""

from llmist._install import install_command

try:
    import mcp as _sdk  # noqa: F401 - fail here, with the fix, when the extra is missing
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    # The exact command for this Python and this install (a checkout's, say), as the providers'
    # missing-SDK errors give it: a bare "pip install 'llmist[mcp]'" would fetch the released package.
    raise ImportError(
        f"llmist.mcp needs the official MCP SDK (the 'mcp' extra), which is not installed. "
        f"Install it with: {install_command('mcp')}",
        name=exc.name,
    ) from exc

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
