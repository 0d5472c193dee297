"""Gadgets served to any MCP client, over stdio or streamable HTTP, through the official SDK.

Each call goes through :class:`~llmist.execution.GadgetExecutor`, as inside the agent loop: the
arguments are prepared by the gadget's schema and validated, the gadget's timeout (or the
default) applies, costs add up, and long outputs are stored when an output limit is set. A
failed call (bad arguments, a raised error, a timeout) is an ``isError`` result, so the client's
model can read what was wrong and try again.
"""

from __future__ import annotations

import itertools
import socket
from collections.abc import Callable, Sequence
from typing import Any

from mcp import types
from mcp.server.lowlevel import Server

from llmist._text import clean
from llmist.execution import GadgetExecutor
from llmist.gadgets import Gadget, GadgetOutputStore, GadgetOutputViewer, as_gadget
from llmist.syntax import ParsedCall

__all__ = ["COST_META_KEY", "build_mcp_server", "serve_http", "serve_stdio"]

COST_META_KEY = "llmist/cost_usd"
"""Key of a call's cost (USD, gadget-reported) in the result's ``_meta``, when it is not zero."""

_call_ids = itertools.count(1)


def build_mcp_server(
    gadgets: Sequence[object],
    *,
    name: str = "llmist",
    default_timeout_s: float | None = None,
    output_limit_chars: int | None = None,
) -> Server[Any]:
    """A low-level SDK ``Server`` whose tools are ``gadgets`` (instances, classes, ``@gadget`` functions).

    Args:
        name: The server's name, as clients show it.
        default_timeout_s: Timeout of gadgets without their own ``timeout_s``.
        output_limit_chars: Store outputs longer than this and serve ``GadgetOutputViewer`` to read them.
    """
    listed: list[Gadget] = [as_gadget(g) for g in gadgets]
    store = GadgetOutputStore(output_limit_chars) if output_limit_chars is not None else None
    if store is not None and not any(g.name == GadgetOutputViewer.name for g in listed):
        listed.append(GadgetOutputViewer(store))
    executor = GadgetExecutor(listed, default_timeout_s=default_timeout_s, output_store=store)
    tools = [_tool(g) for g in listed]

    async def list_tools(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        return await _call(executor, params.name, params.arguments or {})

    return Server(name, on_list_tools=list_tools, on_call_tool=call_tool)


def _tool(gadget: Gadget) -> types.Tool:
    return types.Tool(name=gadget.name, description=gadget.description, input_schema=gadget.Params.model_json_schema())


async def _call(executor: GadgetExecutor, name: str, arguments: dict[str, Any]) -> types.CallToolResult:
    call = ParsedCall(
        gadget_name=name,
        invocation_id=f"mcp_{next(_call_ids)}",
        parameters_raw="",
        parameters=dict(arguments),
        parse_error=None,
        dependencies=(),
    )
    outcome = await executor.execute(call)
    meta = {COST_META_KEY: outcome.cost} if outcome.cost else None
    # Lone surrogates become U+FFFD: the rule for text leaving the process (JSON-RPC is UTF-8).
    if outcome.error is not None:
        return types.CallToolResult(content=[types.TextContent(text=clean(outcome.error))], is_error=True, _meta=meta)
    return types.CallToolResult(content=[types.TextContent(text=clean(outcome.result or ""))], _meta=meta)


async def serve_stdio(server: Server[Any]) -> None:
    """Serve ``server`` on this process's stdin and stdout until the client closes them."""
    from mcp.server.stdio import stdio_server

    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


async def serve_http(
    server: Server[Any], port: int, *, host: str = "127.0.0.1", on_listening: Callable[[str], None] | None = None
) -> None:
    """Serve ``server`` over streamable HTTP at ``http://host:port/mcp`` until cancelled.

    Port 0 picks a free port. ``on_listening`` gets the endpoint's URL once the socket accepts
    connections, so a client started then cannot find it closed.
    """
    import uvicorn

    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(128)
    bound_port = sock.getsockname()[1]
    app = server.streamable_http_app(host=host)
    config = uvicorn.Config(app, log_level="warning", lifespan="on")
    if on_listening is not None:
        on_listening(f"http://{host}:{bound_port}/mcp")
    with sock:
        await uvicorn.Server(config).serve(sockets=[sock])
