"""Connections to MCP servers (stdio or streamable HTTP) whose tools become gadgets.

The official ``mcp`` SDK speaks the protocol; this module only owns the connection's lifetime,
the cached tool list, and the mapping of tools to gadgets. Each connection lives in a task of
its own: the SDK's transports hold anyio cancel scopes that must be entered and left by one task,
while an agent may connect in one task and disconnect in another (a cancelled run, a closed stream).
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import logging
import re
import signal
import sys
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from types import TracebackType
from typing import Any, Self, TextIO

import httpx2
from mcp import ClientSession, MCPError, StdioServerParameters, stdio_client, types
from mcp.client.streamable_http import streamable_http_client

from llmist._processes import MARKER, kill, new_marker, under_launcher
from llmist._text import clean_value
from llmist.gadgets import Gadget, GadgetError, GadgetResult, create_gadget
from llmist.mcp._results import result_text, tool_result

__all__ = [
    "DEFAULT_CONNECT_TIMEOUT_S",
    "MCPServer",
    "MCPServerError",
    "MCPServerHTTP",
    "MCPServerStdio",
    "stop_stdio_servers",
]

logger = logging.getLogger("llmist.mcp")

_BAD_NAME_CHARS = re.compile(r"[^A-Za-z0-9_\-]")

DEFAULT_CONNECT_TIMEOUT_S = 30.0
"""Seconds an MCP server has, by default, to start and answer the MCP handshake."""


class MCPServerError(GadgetError):
    """An MCP server could not be reached, died, or answered a tool call with an error."""


class MCPServer:
    """A connection to one MCP server; use ``async with`` or pass it in ``Agent(mcp_servers=[...])``.

    Args:
        tool_prefix: Put before each tool's name (``"time_"`` makes ``get_current_time`` the gadget
            ``time_get_current_time``), to keep two servers' tools apart.
        name: What errors and logs call this server (default: its command or URL).
        connect_timeout_s: How long the server has to start and answer the MCP handshake before
            :meth:`connect` gives up with an :class:`MCPServerError` (and stops it).
    """

    def __init__(
        self, *, tool_prefix: str = "", name: str = "", connect_timeout_s: float = DEFAULT_CONNECT_TIMEOUT_S
    ) -> None:
        if connect_timeout_s <= 0:
            raise ValueError(f"connect_timeout_s must be positive, got {connect_timeout_s}")
        self.tool_prefix = tool_prefix
        self.name = name
        self.connect_timeout_s = connect_timeout_s
        """Seconds the server has to start and answer the MCP handshake."""
        self._session: ClientSession | None = None
        self._task: asyncio.Task[None] | None = None
        self._stop: asyncio.Event | None = None
        self._tools: list[types.Tool] | None = None
        self._failure: BaseException | None = None
        self._changed = asyncio.Event()

    def _transport(self) -> AbstractAsyncContextManager[Any]:
        raise NotImplementedError

    @property
    def connected(self) -> bool:
        """Whether the connection is open and its server still answers."""
        return self._session is not None and self._failure is None

    async def connect(self) -> None:
        """Start (or reach) the server and open an MCP session; raises :class:`MCPServerError`,
        also when it does not answer within ``connect_timeout_s`` (the server is then stopped).

        Does nothing while connected; after the server died, starts a new connection.
        """
        if self._task is not None:
            if self.connected:
                return
            await self.close()
        ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._stop = asyncio.Event()
        self._failure = None
        self._task = asyncio.create_task(self._hold(ready), name=f"llmist-mcp:{self.name}")
        try:
            await asyncio.wait_for(ready, self.connect_timeout_s)
        except TimeoutError:
            await self.close()
            raise MCPServerError(
                f"MCP server {self.name} did not answer within {self.connect_timeout_s:g} s (connect_timeout_s); "
                "check that the command starts an MCP server, or give it more time"
            ) from None
        except BaseException:
            await self.close()
            raise

    async def close(self) -> None:
        """End the session and stop a stdio server; safe to call twice."""
        task, self._task = self._task, None
        if task is None:
            return
        assert self._stop is not None
        self._stop.set()
        if self._session is None:  # still connecting (or it failed): nothing will see _stop
            task.cancel()
        self._session = None
        self._tools = None
        # Shielded: a caller cancelled while closing still leaves the server to shut down cleanly.
        # _hold() keeps its own errors, so only the caller's cancellation can come out of here.
        await asyncio.shield(task)

    async def _hold(self, ready: asyncio.Future[None]) -> None:
        """The connection's own task: open, signal ready, wait for close (or the server's end)."""
        try:
            async with (
                self._transport() as (read, write),
                ClientSession(read, write, message_handler=self._on_message) as session,
            ):
                await session.initialize()
                self._session = session
                ready.set_result(None)
                assert self._stop is not None
                await self._stop.wait()
        except BaseException as exc:
            self._failure = exc
            if not ready.done():
                ready.set_exception(MCPServerError(f"could not connect to MCP server {self.name}: {_describe(exc)}"))
            elif not isinstance(exc, asyncio.CancelledError):
                logger.warning("MCP server %s failed: %s", self.name, _describe(exc))
        finally:
            self._session = None

    async def _on_message(self, message: Any) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            self._tools = None  # refreshed at the next list_tools()
            self._changed.set()
        elif isinstance(message, Exception):
            logger.warning("MCP server %s: transport error: %s", self.name, _describe(message))

    async def list_tools(self) -> list[types.Tool]:
        """The server's tools: cached per connection, fetched again after a tools/list_changed."""
        session = self._live_session()
        if self._tools is None:
            tools: list[types.Tool] = []
            cursor: str | None = None
            while True:
                params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
                page = await session.list_tools(params=params)
                tools.extend(page.tools)
                cursor = page.next_cursor
                if not cursor:
                    break
            self._tools = tools
        return list(self._tools)

    async def wait_tools_changed(self) -> None:
        """Wait until the server says its tool list changed (at once if it did since the last wait)."""
        await self._changed.wait()
        self._changed.clear()

    async def call_tool(self, name: str, arguments: Mapping[str, Any]) -> str:
        """Call tool ``name``; its result as text (media described). An ``isError`` result or a
        lost server raises."""
        return result_text(await self._call(name, arguments))

    async def call_tool_result(self, name: str, arguments: Mapping[str, Any]) -> GadgetResult:
        """Call tool ``name``; its result as its gadget returns it: the text, and its images,
        audio and binary resources as media. An ``isError`` result or a lost server raises."""
        return tool_result(await self._call(name, arguments))

    async def _call(self, name: str, arguments: Mapping[str, Any]) -> types.CallToolResult:
        session = self._live_session()
        try:
            # Lone surrogates become U+FFFD: the rule for text leaving the process (JSON-RPC is UTF-8).
            result = await session.call_tool(name, clean_value(dict(arguments)))
        except MCPError as exc:
            if exc.error.code != types.CONNECTION_CLOSED:
                raise MCPServerError(f"MCP server {self.name} refused the call of {name}: {exc}") from exc
            self._failure = exc
            raise MCPServerError(
                f"MCP server {self.name} stopped while running {name} (connection closed). "
                "Its tools cannot be used for the rest of this run; go on without them."
            ) from exc
        if result.is_error:
            raise MCPServerError(result_text(result) or f"{name} reported an error without a message")
        return result

    async def gadgets(self) -> list[Gadget]:
        """One gadget per tool: the prefixed name, the tool's description and input schema."""
        return [self._gadget(tool) for tool in await self.list_tools()]

    def _gadget(self, tool: types.Tool) -> Gadget:
        tool_name = tool.name

        async def call(arguments: dict[str, Any]) -> GadgetResult:
            return await self.call_tool_result(tool_name, arguments)

        description = tool.description or tool.title or f"The {tool_name} tool of MCP server {self.name}."
        return create_gadget(
            name=self.tool_prefix + _BAD_NAME_CHARS.sub("_", tool_name),
            description=description,
            schema=tool.input_schema,
            execute=call,
        )

    def _live_session(self) -> ClientSession:
        if self._failure is not None:
            raise MCPServerError(
                f"MCP server {self.name} is no longer running ({_describe(self._failure)}); "
                "its tools cannot be used for the rest of this run."
            )
        if self._session is None:
            raise MCPServerError(f"MCP server {self.name} is not connected: use `async with` or Agent(mcp_servers=...)")
        return self._session

    async def __aenter__(self) -> Self:
        await self.connect()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()


class MCPServerStdio(MCPServer):
    """An MCP server run as a subprocess, speaking over its stdin and stdout.

    The SDK starts it in a session of its own and ends that process group when the connection
    closes. Its processes also carry a marker in their environment, so that
    :func:`stop_stdio_servers` (at interpreter exit, or from ``llmist agent`` when a second
    Ctrl-C quits at once) stops them even on exit paths that skip the close. On Linux it runs
    under llmist's process launcher, so that neither it nor a process it started outlives the
    connection or this process, even one killed with SIGKILL; elsewhere such a kill leaves what
    the server started (and a server busy in a call) running.

    Args:
        command: The program (``"python"``, ``"uvx"``, ``"mcp-server-time"``...).
        args: Its arguments.
        env: Environment variables added to the SDK's safe default environment.
        cwd: Working directory of the server.
    """

    def __init__(
        self,
        command: str,
        args: Sequence[str] = (),
        env: Mapping[str, str] | None = None,
        cwd: str | Path | None = None,
        *,
        tool_prefix: str = "",
        name: str = "",
        connect_timeout_s: float = DEFAULT_CONNECT_TIMEOUT_S,
    ) -> None:
        super().__init__(
            tool_prefix=tool_prefix, name=name or " ".join([command, *args]), connect_timeout_s=connect_timeout_s
        )
        self._marker = new_marker()
        self.params = StdioServerParameters(
            command=command, args=list(args), env={**(env or {}), MARKER: self._marker}, cwd=cwd
        )

    def _transport(self) -> AbstractAsyncContextManager[Any]:
        params = self.params
        # On Linux, under llmist's launcher: the server and every process it starts end when it
        # exits (the SDK stops only the group, and only a server that outlives its grace) or when
        # this process dies, even by SIGKILL (the server would read its input's end, but a busy
        # server or its helpers would not). ``params`` stays as given.
        command = under_launcher([params.command, *params.args], params.env or {})
        params = params.model_copy(update={"command": command[0], "args": command[1:]})
        return _registered(self._marker, stdio_client(params, errlog=_real_stderr()))

    def __repr__(self) -> str:
        return f"MCPServerStdio({self.name!r})"


_live_markers: set[str] = set()
"""Markers of the stdio servers whose processes may be running."""


@contextlib.asynccontextmanager
async def _registered(marker: str, transport: AbstractAsyncContextManager[Any]) -> AsyncIterator[Any]:
    _live_markers.add(marker)
    try:
        async with transport as streams:
            yield streams
    finally:
        _live_markers.discard(marker)


@atexit.register
def stop_stdio_servers() -> int:
    """Stop (SIGKILL) every process of the stdio MCP servers still connected in this process: for
    exit paths that skip closing them (``os._exit``, an unhandled signal). Runs at interpreter
    exit. How many processes it reached."""
    reached = 0
    for marker in list(_live_markers):
        reached += len(kill(None, marker, signal.SIGKILL))
    _live_markers.clear()
    return reached


class MCPServerHTTP(MCPServer):
    """An MCP server reached over streamable HTTP at ``url`` (e.g. ``http://127.0.0.1:8000/mcp``).

    Args:
        url: The server's MCP endpoint.
        headers: Sent with every request (an ``Authorization`` header, say).
    """

    def __init__(
        self,
        url: str,
        headers: Mapping[str, str] | None = None,
        *,
        tool_prefix: str = "",
        name: str = "",
        connect_timeout_s: float = DEFAULT_CONNECT_TIMEOUT_S,
    ) -> None:
        super().__init__(tool_prefix=tool_prefix, name=name or url, connect_timeout_s=connect_timeout_s)
        self.url = url
        self.headers = dict(headers or {})

    @contextlib.asynccontextmanager
    async def _http(self) -> AsyncIterator[Any]:
        # The SDK's default client has MCP's long read timeout; only the headers are ours.
        timeout = httpx2.Timeout(30.0, read=300.0)
        async with (
            httpx2.AsyncClient(headers=self.headers, timeout=timeout) as client,
            streamable_http_client(self.url, http_client=client) as streams,
        ):
            yield streams[0], streams[1]

    def _transport(self) -> AbstractAsyncContextManager[Any]:
        return self._http()

    def __repr__(self) -> str:
        return f"MCPServerHTTP({self.url!r})"


def _real_stderr() -> TextIO:
    """Where the server's stderr goes: ours, or the process's own when ours is captured (pytest,
    a notebook) and has no file descriptor a subprocess could inherit."""
    try:
        sys.stderr.fileno()
    except (AttributeError, OSError, ValueError):
        return sys.__stderr__ if sys.__stderr__ is not None else sys.stderr
    return sys.stderr


def _describe(exc: BaseException) -> str:
    if isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        return _describe(exc.exceptions[0])
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
