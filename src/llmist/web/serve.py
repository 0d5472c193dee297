"""``serve_web(agent)``: the page and the AG-UI endpoint on uvicorn, loopback unless told otherwise."""

from __future__ import annotations

import contextlib
import os
import socket
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import uvicorn

from llmist.agent import Agent
from llmist.web.app import WebApp, to_asgi
from llmist.web.security import TOKEN_ENV, check_exposure

__all__ = ["WebServer", "serve_web"]


class WebServer(uvicorn.Server):
    """uvicorn's server, which stops the app's live runs before it waits for connections to
    close (a followed run is an open SSE stream: otherwise shutting down waits out its timeout)."""

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        """Cancel the runs, then shut down as uvicorn does."""
        app = self.config.app
        if isinstance(app, WebApp):
            await app.cancel_runs()
        await super().shutdown(sockets)


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
) -> None:
    """Serve ``agent``'s page until interrupted (Ctrl-C).

    ``host`` other than loopback needs ``token`` (or ``$LLMIST_WEB_TOKEN``): without one this
    raises :class:`~llmist.web.WebSecurityError` before anything listens. ``builtins`` says the
    agent has the built-in file and command gadgets (named in that error). The other arguments
    are :func:`to_asgi`'s.
    """
    token = token or os.environ.get(TOKEN_ENV) or None
    check_exposure(host, token, builtins=builtins)
    app = to_asgi(agent, sessions=sessions, token=token, guarded=guarded)
    server = WebServer(uvicorn.Config(app, host=host, port=port, log_level=log_level, timeout_graceful_shutdown=5))
    with contextlib.suppress(KeyboardInterrupt):  # uvicorn re-raises Ctrl-C once it has shut down cleanly
        server.run()
