"""``serve_web(agent)``: the page and the AG-UI endpoint on uvicorn, loopback unless told otherwise."""

from __future__ import annotations

import contextlib
import errno
import os
import socket
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import uvicorn

from llmist.agent import Agent
from llmist.web.app import WebApp, to_asgi
from llmist.web.security import DEFAULT_MAX_BODY_BYTES, TOKEN_ENV, check_exposure, check_max_body

__all__ = ["ListenError", "WebServer", "serve_web"]


class ListenError(OSError):
    """The server cannot listen on its address: the port is taken, needs privileges, or the host
    is not one of this machine's. The message names the address, the cause and what to do."""

    def __init__(self, message: str, *, host: str, port: int, errno_: int | None = None) -> None:
        super().__init__(message)
        self.host = host
        """The address that was asked for."""
        self.port = port
        """The port that was asked for."""
        self.cause_errno = errno_
        """The ``errno`` of the failure, when the system gave one."""


class WebServer(uvicorn.Server):
    """uvicorn's server, which stops the app's live runs before it waits for connections to
    close (a followed run is an open SSE stream: otherwise shutting down waits out its timeout)."""

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        """Cancel the runs, then shut down as uvicorn does."""
        app = self.config.app
        if isinstance(app, WebApp):
            await app.cancel_runs()
        await super().shutdown(sockets)


def _listen(host: str, port: int) -> socket.socket:
    """A socket listening on ``host``:``port`` (``port`` 0: a free one), as uvicorn would open it.

    It listens at once, so the port is this process's from here on: nothing is announced for a
    port that another program holds, and of two servers started on one port, the second fails here.

    Raises:
        ListenError: naming the address, why it cannot be used and what to do.
    """
    name = host.strip().strip("[]")
    where = f"[{name}]:{port}" if ":" in name else f"{name}:{port}"
    sock = socket.socket(socket.AF_INET6 if ":" in name else socket.AF_INET)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # uvicorn's: a restart may reuse the port
        sock.bind((name, port))
        sock.listen(2048)
    except OSError as exc:
        sock.close()
        raise ListenError(_why(exc, where, port), host=host, port=port, errno_=exc.errno) from None
    sock.set_inheritable(True)
    return sock


def _why(exc: OSError, where: str, port: int) -> str:
    if isinstance(exc, socket.gaierror):
        return f"cannot listen on {where}: the host name is not known ({exc.strerror}); use 127.0.0.1, or an address"
    if exc.errno == errno.EADDRNOTAVAIL:
        return (
            f"cannot listen on {where}: the host is not an address of this machine ({exc.strerror}); "
            f"use 127.0.0.1, or one of this machine's addresses"
        )
    if exc.errno == errno.EADDRINUSE:
        return (
            f"cannot listen on {where}: port {port} is already in use by another program. "
            f"Choose another port (llmist web --port N), or stop the program that holds it"
        )
    if exc.errno == errno.EACCES:
        return f"cannot listen on {where}: permission denied (ports below 1024 need privileges); use one from 1024 up"
    return f"cannot listen on {where}: {exc.strerror or exc}"


def serve_web(
    agent: Agent[Any],
    *,
    host: str = "127.0.0.1",
    port: int = 8000,
    token: str | None = None,
    sessions: str | Path | None = None,
    builtins: bool = False,
    guarded: Iterable[str] | None = None,
    log_level: str = "warning",
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
    on_listening: Callable[[str], None] | None = None,
) -> None:
    """Serve ``agent``'s page until interrupted (Ctrl-C).

    ``host`` other than loopback needs ``token`` (or ``$LLMIST_WEB_TOKEN``): without one this
    raises :class:`~llmist.web.WebSecurityError` before anything listens. ``builtins`` says the
    agent has the built-in file and command gadgets (named in that error). A port that is taken
    (or a host that is not this machine's) raises :class:`ListenError` before anything is
    served. ``on_listening`` is called with the page's address (``http://127.0.0.1:8000/``,
    the real port when ``port`` is 0) once the server holds its port. The other arguments are
    :func:`to_asgi`'s.
    """
    token = token or os.environ.get(TOKEN_ENV) or None
    check_exposure(host, token, builtins=builtins)
    check_max_body(max_body_bytes)
    sock = _listen(host, port)
    try:
        app = to_asgi(agent, sessions=sessions, token=token, guarded=guarded, max_body_bytes=max_body_bytes)
        bound = int(sock.getsockname()[1])
        if on_listening is not None:
            name = host.strip().strip("[]")
            on_listening(f"http://{f'[{name}]' if ':' in name else name}:{bound}/")
        config = uvicorn.Config(app, host=host, port=bound, log_level=log_level, timeout_graceful_shutdown=5)
        with contextlib.suppress(KeyboardInterrupt):  # uvicorn re-raises Ctrl-C once it has shut down cleanly
            WebServer(config).run(sockets=[sock])
    finally:
        sock.close()
