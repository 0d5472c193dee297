"""``llmist mcp serve FILE [--http PORT]``: the gadgets of a file, served to any MCP client."""

from __future__ import annotations

import asyncio
from typing import Annotated

import typer

from llmist.cli._common import CliError, fail, stderr
from llmist.cli._help import Command
from llmist.cli._loader import load_gadgets

__all__ = ["mcp_app"]

mcp_app = typer.Typer(
    name="mcp", help="Serve gadgets over the Model Context Protocol.", no_args_is_help=True, rich_markup_mode=None
)


@mcp_app.command("serve", cls=Command, short_help="Serve a file's gadgets as MCP tools (stdio or HTTP).")
def serve_command(
    source: Annotated[str, typer.Argument(metavar="FILE_OR_MODULE", help="Gadget file (tools.py) or module.")],
    http: Annotated[
        int | None,
        typer.Option(
            "--http", metavar="PORT", help="Serve streamable HTTP on this port (0: a free one; default: stdio)."
        ),
    ] = None,
    host: Annotated[
        str, typer.Option("--host", metavar="HOST", help="Address to listen on with --http.")
    ] = "127.0.0.1",
    timeout: Annotated[
        float | None, typer.Option("--timeout", metavar="SECONDS", help="Timeout of gadgets without their own.")
    ] = None,
    output_limit: Annotated[
        int | None,
        typer.Option("--output-limit", metavar="CHARS", help="Store longer outputs; serve GadgetOutputViewer."),
    ] = None,
    name: Annotated[
        str, typer.Option("--name", metavar="NAME", help="The server's name, as clients show it.")
    ] = "llmist",
) -> None:
    """Serve every gadget of FILE_OR_MODULE as an MCP tool, over stdio or (--http) streamable HTTP."""
    try:
        from llmist.mcp import build_mcp_server, serve_http, serve_stdio
    except ImportError as exc:
        fail(str(exc))
    try:
        gadgets = load_gadgets(source)
    except CliError as exc:
        fail(str(exc))
    server = build_mcp_server(gadgets, name=name, default_timeout_s=timeout, output_limit_chars=output_limit)
    if http is None:
        asyncio.run(serve_stdio(server))
        return

    def listening(url: str) -> None:
        stderr.print(f"serving {len(gadgets)} gadget(s) at {url}", markup=False, highlight=False, soft_wrap=True)

    asyncio.run(serve_http(server, http, host=host, on_listening=listening))
