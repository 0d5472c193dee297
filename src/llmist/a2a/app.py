"""``to_a2a(agent)``: an llmist agent as an A2A server (an ASGI app), and ``serve_a2a`` to run it.

Routes:

- ``GET /.well-known/agent-card.json``: the agent card (name, description, each gadget as a
  skill; its interface URL is the address the request came to, unless ``url=`` fixes one).
- ``POST /a2a``: JSON-RPC, both the A2A 1.0 methods (``SendMessage``, ``SendStreamingMessage``,
  ``GetTask``, ``CancelTask``...) and the 0.3 names (``message/send``, ``message/stream``...).

Where things are kept:

- **Tasks**: in memory while the server runs; with ``session_db`` (an SQLite file) in its
  ``tasks`` table, through a2a-sdk's own ``DatabaseTaskStore`` (sqlite+aiosqlite), so a
  client can read, continue or cancel a task after a restart.
- **Conversations** (one per A2A context) and the calls that wait for approval: in llmist
  :class:`~llmist.agent.SQLiteSession` records of the same file, the store that already keeps a
  conversation and its waiting calls together and runs each decided call exactly once. Without
  ``session_db`` they go to a temporary file removed when the app closes.

Who may call: the web page's rules (:mod:`llmist.web.security`): loopback unless a token is set,
``Authorization: Bearer <token>`` on every request when one is, no other origin, and a bounded
request body (413 past ``max_body_bytes``).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import weakref
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import uvicorn
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.request_handlers.response_helpers import agent_card_to_dict
from a2a.server.routes import create_jsonrpc_routes
from a2a.server.tasks import InMemoryTaskStore, TaskStore
from a2a.utils.constants import AGENT_CARD_WELL_KNOWN_PATH
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from llmist.a2a._card import agent_card
from llmist.a2a._executor import LlmistExecutor
from llmist.agent import Agent, SQLiteSession
from llmist.web.security import DEFAULT_MAX_BODY_BYTES, TOKEN_ENV, check_exposure, check_max_body, guard, limit_body
from llmist.web.serve import _listen  # the web server's socket opening and its clear errors, shared

__all__ = ["A2AApp", "serve_a2a", "to_a2a"]

TASKS_TABLE = "tasks"
"""The table of ``session_db`` that a2a-sdk's task store uses (beside llmist's ``llmist_*`` tables):
a2a-sdk's default, which its own migrations (``a2a-db``) know."""


class A2AApp:
    """The ASGI app :func:`to_a2a` returns: call it as any ASGI app; :meth:`aclose` ends it.

    Attributes:
        agent: The agent it serves.
        executor: The a2a-sdk ``AgentExecutor`` that runs it.
        task_store: Where tasks are kept.
    """

    def __init__(
        self,
        agent: Agent[Any],
        *,
        session_db: str | Path | None,
        token: str | None,
        url: str | None,
        max_body_bytes: int,
    ) -> None:
        self.agent = agent
        self._tmp = None if session_db is not None else tempfile.mkdtemp(prefix="llmist-a2a-")
        if self._tmp is not None:
            weakref.finalize(self, shutil.rmtree, self._tmp, True)
        db = Path(session_db) if session_db is not None else Path(self._tmp or ".") / "sessions.db"
        self.session_db = db
        self.executor = LlmistExecutor(agent, lambda context_id: SQLiteSession(db, context_id))
        self.task_store: TaskStore = _database_store(db) if session_db is not None else InMemoryTaskStore()
        card = agent_card(agent, (url or "http://127.0.0.1").rstrip("/"))
        self._handler = DefaultRequestHandler(agent_executor=self.executor, task_store=self.task_store, agent_card=card)
        fixed = url.rstrip("/") if url else None

        async def card_route(request: Request) -> JSONResponse:
            # The interface URL is where this request came, so a server on port 0 (or behind a
            # name) advertises an address its caller can reach.
            base = fixed or str(request.base_url).rstrip("/")
            return JSONResponse(agent_card_to_dict(agent_card(agent, base)))

        routes = [
            Route(AGENT_CARD_WELL_KNOWN_PATH, card_route, methods=["GET"]),
            *create_jsonrpc_routes(self._handler, "/a2a", enable_v0_3_compat=True),
        ]
        starlette = Starlette(routes=routes, lifespan=self._lifespan)
        self._app = guard(limit_body(starlette, max_bytes=max_body_bytes), token=token)

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        """Serve one ASGI connection."""
        await self._app(scope, receive, send)

    @contextlib.asynccontextmanager
    async def _lifespan(self, _app: Starlette) -> AsyncIterator[None]:
        yield
        await self.aclose()

    async def aclose(self) -> None:
        """Stop the live runs and close the task store (and remove the temporary sessions file)."""
        await self._handler.aclose()
        engine = getattr(self.task_store, "engine", None)
        if engine is not None:
            await engine.dispose()
        if self._tmp is not None:
            shutil.rmtree(self._tmp, ignore_errors=True)


def _database_store(db: Path) -> TaskStore:
    from a2a.server.tasks import DatabaseTaskStore
    from sqlalchemy.ext.asyncio import create_async_engine

    class _Store(DatabaseTaskStore):
        async def initialize(self) -> None:
            # llmist's session store refuses a file that holds another program's tables and
            # none of its own: its tables go in first, a2a-sdk's join them.
            if not self._initialized:
                db.parent.mkdir(parents=True, exist_ok=True)
                await SQLiteSession(db, "llmist-a2a").load()
            await super().initialize()

    return _Store(create_async_engine(f"sqlite+aiosqlite:///{db}"), table_name=TASKS_TABLE)


def to_a2a(
    agent: Agent[Any],
    *,
    session_db: str | Path | None = None,
    token: str | None = None,
    url: str | None = None,
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
) -> A2AApp:
    """``agent`` as an A2A server: an ASGI app (see the module docstring for its routes).

    Args:
        agent: The agent. Its ``name`` and ``description`` (or its gadgets' names) make the card.
        session_db: An SQLite file that keeps tasks and conversations across restarts.
        token: When set, every request needs ``Authorization: Bearer <token>``; without one the
            app answers only requests that name a loopback host.
        url: The address the card advertises (default: the one each request came to).
        max_body_bytes: The largest request body (413 past it).
    """
    check_max_body(max_body_bytes)
    return A2AApp(agent, session_db=session_db, token=token, url=url, max_body_bytes=max_body_bytes)


def serve_a2a(
    agent: Agent[Any],
    *,
    host: str = "127.0.0.1",
    port: int = 8000,
    token: str | None = None,
    session_db: str | Path | None = None,
    builtins: bool = False,
    log_level: str = "warning",
    on_listening: Callable[[str], None] | None = None,
) -> None:
    """Serve ``agent`` over A2A until interrupted (Ctrl-C), as ``llmist web`` serves its page.

    A ``host`` other than loopback needs ``token`` (or ``$LLMIST_WEB_TOKEN``): without one this
    raises :class:`~llmist.web.WebSecurityError` before anything listens; a port that is taken
    raises :class:`~llmist.web.ListenError`. ``on_listening`` gets the server's address (the
    real port when ``port`` is 0) once it holds the port. The rest are :func:`to_a2a`'s.
    """
    token = token or os.environ.get(TOKEN_ENV) or None
    check_exposure(host, token, builtins=builtins)
    sock = _listen(host, port)
    try:
        app = to_a2a(agent, session_db=session_db, token=token)
        bound = int(sock.getsockname()[1])
        if on_listening is not None:
            name = host.strip().strip("[]")
            on_listening(f"http://{f'[{name}]' if ':' in name else name}:{bound}")
        config = uvicorn.Config(app, host=host, port=bound, log_level=log_level, timeout_graceful_shutdown=5)
        with contextlib.suppress(KeyboardInterrupt):
            uvicorn.Server(config).run(sockets=[sock])
    finally:
        sock.close()
