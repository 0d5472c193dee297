"""``serve_web(agent)``: the page and the AG-UI endpoint on uvicorn, loopback unless told otherwise."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import uvicorn

from llmist.agent import Agent
from llmist.web.app import to_asgi
from llmist.web.security import TOKEN_ENV, check_exposure

__all__ = ["serve_web"]


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
    uvicorn.run(app, host=host, port=port, log_level=log_level, timeout_graceful_shutdown=5)
