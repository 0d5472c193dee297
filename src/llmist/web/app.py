"""The ASGI app: the page, the AG-UI endpoint, and the few JSON routes the page needs.

Routes (all but the page and its files need the token when one is set):

- ``GET /``: the page; ``GET /static/...``: its script and style sheet (package data).
- ``POST /agui``: AG-UI. Body: ``RunAgentInput``; answer: the run's events over SSE.
- ``GET /api/info``: the model, the gadgets, which of them need approval, and the example
  prompts the empty page offers (``starters``, built from the gadgets by ``_starters``).
- ``GET /api/threads``: the session store's conversations; ``GET /api/threads/{id}``: one, as
  AG-UI messages and call records, with its live run and waiting approvals if any;
  ``GET /api/threads/{id}/live``: the live run's events (from its start) over SSE
  (``?run=ID``: that run, also once it ended, if it was the conversation's last).
- ``POST /api/runs/{run_id}/stop``; ``POST /api/runs/{run_id}/approvals/{invocation_id}``
  with ``{"action": "approve" | "edit" | "deny", "parameters": {...}, "reason": "..."}`` (a call
  that waits in a live run); ``POST /api/threads/{thread_id}/approvals/{invocation_id}`` with the
  same body (a call the conversation's session keeps: the answer names the run it resumed).
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import re
from collections.abc import AsyncIterator, Callable, Iterable
from pathlib import Path
from typing import Any

from ag_ui.core import RunAgentInput
from pydantic import ValidationError
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from llmist._text import clean_value
from llmist.agent import (
    Agent,
    AlreadyDecidedError,
    ApprovalConflictError,
    ApprovalStore,
    InvalidDecisionError,
    Session,
    SQLiteSession,
    UserPrompt,
)
from llmist.agent.sessions import default_store_path
from llmist.errors import LlmistError
from llmist.gadgets.builtins import requires_approval
from llmist.providers.base import ImagePart
from llmist.web._history import conversation_view
from llmist.web._runs import RunConflictError, RunHub
from llmist.web._starters import starters
from llmist.web.approvals import Approvals, Decision, InProcessApprovals, UnknownApprovalError
from llmist.web.security import DEFAULT_MAX_BODY_BYTES, check_max_body, guard, limit_body

__all__ = ["WebApp", "to_asgi"]

STATIC = Path(__file__).with_name("static")
_THREAD_ID = re.compile(r"^[A-Za-z0-9._:-]{1,128}$")
_SSE_HEADERS = {"cache-control": "no-cache", "x-accel-buffering": "no"}
_ERROR_CHARS = 1000
"""The longest error message an answer carries (docs/limits.md): a message may quote a request."""
_QUOTED_CHARS = 100
"""The most of one input a validation error quotes back."""


def to_asgi(
    agent: Agent[Any],
    *,
    sessions: str | Path | Callable[[str], Session] | None = None,
    token: str | None = None,
    approvals: Approvals | None = None,
    guarded: Iterable[str] | None = None,
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
) -> WebApp:
    """``agent`` as an ASGI app: the page at ``/`` and the AG-UI endpoint at ``/agui``.

    A function of the web layer rather than a method of ``Agent``: the agent layer does not
    import the web layer (``pip install 'llmist[web]'`` brings Starlette only for those who
    serve a page). It adds hooks to ``agent`` (they act only in runs the app starts).

    Args:
        agent: The agent every conversation talks to.
        sessions: Where conversations live: an SQLite file (default:
            :func:`~llmist.agent.sessions.default_store_path`), a database URL
            (``postgresql+asyncpg://...``, through ``SQLAlchemySession``), or a function of a
            thread id returning its :class:`~llmist.agent.Session` (the sidebar then lists none).
        token: Require ``Authorization: Bearer <token>`` on every API request.
        approvals: Where guarded calls wait for a person while their run waits. By default
            they wait in the session when it can keep them (an ``ApprovalStore``: the run ends,
            the page shows the call after a reload or a restart, and a decision resumes the run),
            else in this process (:class:`InProcessApprovals`).
        guarded: Gadgets whose calls need approval (default: those with ``requires_approval``,
            such as the built-in writes and commands).
        max_body_bytes: The largest request body served (default 8 MiB,
            :data:`~llmist.web.DEFAULT_MAX_BODY_BYTES`); a larger one is answered 413 unread.

    Raises:
        ValueError: ``max_body_bytes`` is not a whole number of bytes, at least 1.
    """
    check_max_body(max_body_bytes)
    store = _Store(sessions)
    waits = approvals if approvals is not None else InProcessApprovals()
    names = guarded if guarded is not None else [g.name for g in agent.gadgets if requires_approval(g)]
    hub = RunHub(agent, store.open, waits, names, stored=approvals is None)
    hub.install()
    routes = _Routes(agent, hub, store, waits)
    starlette = _starlette(routes, hub)
    return WebApp(guard(limit_body(starlette, max_bytes=max_body_bytes), token=token), hub)


def _starlette(routes: _Routes, hub: RunHub) -> Starlette:
    """The routes of the module docstring; shutting down stops the live runs."""

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield
        await hub.shutdown()

    return Starlette(
        routes=[
            Route("/", routes.page),
            Route("/agui", routes.agui, methods=["POST"]),
            Route("/api/info", routes.info),
            Route("/api/threads", routes.threads),
            Route("/api/threads/{thread_id}", routes.thread),
            Route("/api/threads/{thread_id}/live", routes.live),
            Route("/api/runs/{run_id}/stop", routes.stop, methods=["POST"]),
            Route("/api/runs/{run_id}/approvals/{invocation_id}", routes.decide, methods=["POST"]),
            Route("/api/threads/{thread_id}/approvals/{invocation_id}", routes.decide_stored, methods=["POST"]),
            Mount("/static", StaticFiles(directory=STATIC), name="static"),
        ],
        lifespan=lifespan,
    )


class WebApp:
    """The ASGI app :func:`to_asgi` returns (serve it with any ASGI server)."""

    def __init__(self, app: Any, hub: RunHub) -> None:
        self._app = app
        self._hub = hub

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        await self._app(scope, receive, send)

    async def cancel_runs(self) -> None:
        """Stop every live run and wait for them to end (their pages get ``RUN_FINISHED``,
        cancelled, and their streams close): call it before a server waits on its connections."""
        await self._hub.shutdown()


class _Store:
    """The conversations: an SQLite file, a database URL, or a user's function of the thread id."""

    def __init__(self, sessions: str | Path | Callable[[str], Session] | None) -> None:
        self.path: Path | None = None
        self.url: str | None = None
        self._open: Callable[[str], Session] | None = None
        if callable(sessions):
            self._open = sessions
        elif isinstance(sessions, str) and "://" in sessions:
            self.url = sessions
        else:
            self.path = Path(sessions) if sessions is not None else default_store_path()

    def open(self, thread_id: str) -> Session:
        if self._open is not None:
            return self._open(thread_id)
        if self.url is not None:
            from llmist.agent.sqlalchemy_session import SQLAlchemySession

            return SQLAlchemySession(self.url, thread_id)
        assert self.path is not None
        self.path.parent.mkdir(parents=True, exist_ok=True)
        return SQLiteSession(self.path, thread_id)

    async def ids(self) -> list[str]:
        if self.url is not None:
            from llmist.agent.sqlalchemy_session import SQLAlchemySession

            return await SQLAlchemySession.list_ids(self.url)
        return await SQLiteSession.list_ids(self.path) if self.path is not None else []


class _Json(JSONResponse):
    """JSON with every lone surrogate written as U+FFFD, the rule for text leaving the process
    (docs/limits.md): a conversation may hold one (a model's answer, a prompt's JSON escape)."""

    def render(self, content: Any) -> bytes:
        return super().render(clean_value(content))


def _error(status: int, message: str) -> JSONResponse:
    # Cut, because a message may quote what the request sent (a decision's action, say), and an
    # answer must never grow with the request.
    return _Json({"error": _cut(message, _ERROR_CHARS)}, status_code=status)


def _cut(text: str, limit: int) -> str:
    """``text``, or its first ``limit`` characters and how many more there were."""
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text) - limit:,} more characters)"


def _invalid(exc: ValidationError) -> str:
    """What is wrong with a body, naming each of its first problems and quoting at most the
    first :data:`_QUOTED_CHARS` characters of the value at fault (Pydantic's own message quotes
    all of it: the whole body, when that is not JSON)."""
    problems = []
    for error in exc.errors(include_url=False)[:3]:
        where = ".".join(str(part) for part in error["loc"]) or "the body"
        quoted = _cut(repr(error.get("input")), _QUOTED_CHARS)
        problems.append(f"{where}: {error['msg']} (got {quoted})")
    more = exc.error_count() - len(problems)
    return "; ".join(problems) + (f"; and {more} more" if more > 0 else "")


class _Routes:
    def __init__(self, agent: Agent[Any], hub: RunHub, store: _Store, approvals: Approvals) -> None:
        self.agent, self.hub, self.store, self.approvals = agent, hub, store, approvals

    async def page(self, request: Request) -> Response:
        return FileResponse(STATIC / "index.html", media_type="text/html; charset=utf-8")

    async def info(self, request: Request) -> Response:
        model = self.agent.model
        return _Json(
            {
                "model": model if isinstance(model, str) else getattr(model, "name", type(model).__name__),
                "gadgets": [g.name for g in self.agent.gadgets],
                "guarded": sorted(self.hub.guarded),
                "starters": starters(self.agent.gadgets, self.hub.guarded),
            }
        )

    async def threads(self, request: Request) -> Response:
        ids = await self.store.ids()
        live = set(self.hub.live)
        ids += sorted(live - set(ids))  # a run's first save may not have landed yet
        return _Json({"threads": [{"id": i, "live": i in live} for i in sorted(ids, reverse=True)]})

    async def thread(self, request: Request) -> Response:
        thread_id = request.path_params["thread_id"]
        if not _THREAD_ID.match(thread_id):
            return _error(400, "a thread id is 1 to 128 letters, digits, '.', '_', ':' or '-'")
        run = self.hub.live.get(thread_id)
        # While a run is live, the page shows the conversation as it stood before it, and the
        # run's own events (replayed by /live) show the rest.
        session = self.store.open(thread_id)
        stored = run.history if run is not None else await session.load()
        waiting = await session.pending() if run is None and isinstance(session, ApprovalStore) else []
        messages, calls = conversation_view(stored, self.agent.call_syntax, self.agent.markers, waiting, thread_id)
        if run is not None and run.prompt is not None:
            messages.append(run.prompt)
        return _Json(
            {
                "id": thread_id,
                "messages": messages,
                "calls": calls,
                "liveRun": run.run_id if run is not None else None,
            }
        )

    async def live(self, request: Request) -> Response:
        run = self.hub.followed(request.path_params["thread_id"], request.query_params.get("run"))
        if run is None:
            return _error(404, "this conversation has no run in progress")
        return StreamingResponse(run.follow(), media_type="text/event-stream", headers=_SSE_HEADERS)

    async def agui(self, request: Request) -> Response:
        try:
            body = RunAgentInput.model_validate_json(await request.body())
        except ValidationError as exc:
            return _error(422, f"the body is not an AG-UI RunAgentInput: {_invalid(exc)}")
        if not _THREAD_ID.match(body.thread_id):
            return _error(400, "threadId must be 1 to 128 letters, digits, '.', '_', ':' or '-'")
        try:
            prompt = _prompt(body)
        except ValueError as exc:
            return _error(422, str(exc))
        try:
            shown = body.messages[-1].model_dump(mode="json", by_alias=True, exclude_none=True) if prompt else None
            run = await self.hub.start(body.thread_id, body.run_id, prompt, shown)
        except RunConflictError as exc:
            return _error(409, str(exc))
        except (ValueError, LlmistError) as exc:
            return _error(422, str(exc))
        return StreamingResponse(run.follow(), media_type="text/event-stream", headers=_SSE_HEADERS)

    async def decide_stored(self, request: Request) -> Response:
        thread_id = request.path_params["thread_id"]
        if not _THREAD_ID.match(thread_id):
            return _error(400, "a thread id is 1 to 128 letters, digits, '.', '_', ':' or '-'")
        decision = await _decision(request)
        if isinstance(decision, Response):
            return decision
        return await self._decide_stored(thread_id, request.path_params["invocation_id"], decision)

    async def _decide_stored(self, thread_id: str, invocation_id: str, decision: Decision) -> Response:
        try:
            run = await self.hub.decide(thread_id, invocation_id, decision)
        except UnknownApprovalError as exc:
            return _error(404, str(exc))
        except (AlreadyDecidedError, RunConflictError, ApprovalConflictError) as exc:
            return _error(409, str(exc))
        except InvalidDecisionError as exc:
            return _error(422, str(exc))
        return _Json({"decided": decision.action, "resumed": run.run_id if run is not None else None})

    async def stop(self, request: Request) -> Response:
        run = self.hub.find(request.path_params["run_id"])
        if run is None:
            return _error(404, "no such run in progress (it may have ended)")
        run.stream.cancel()
        return _Json({"stopping": run.run_id})

    async def decide(self, request: Request) -> Response:
        decision = await _decision(request)
        if isinstance(decision, Response):
            return decision
        run_id, invocation_id = request.path_params["run_id"], request.path_params["invocation_id"]
        thread_id = self.hub.paused.get(run_id)
        if thread_id is not None:  # the run ended, its calls wait in the session: decided there
            return await self._decide_stored(thread_id, invocation_id, decision)
        try:
            self.approvals.decide(run_id, invocation_id, decision)
        except UnknownApprovalError as exc:
            return _error(404, str(exc))
        except InvalidDecisionError as exc:
            return _error(422, str(exc))
        return _Json({"decided": decision.action})


async def _decision(request: Request) -> Decision | Response:
    """The decision a request's JSON body holds, or the 422 answer saying what is wrong."""
    try:
        data = await request.json()
        return Decision(
            action=data.get("action"), parameters=data.get("parameters"), reason=str(data.get("reason") or "")
        )
    except (ValueError, AttributeError, TypeError) as exc:
        return _error(422, f"a decision is {{'action': 'approve' | 'edit' | 'deny', ...}}: {exc}")


def _prompt(body: RunAgentInput) -> UserPrompt | None:
    """The new user message of an AG-UI input: its last message when that is the user's.

    The conversation itself lives in the session store: earlier messages a client sends are
    not read again (a client cannot rewrite what the agent saw).
    """
    if not body.messages:
        return None
    last = body.messages[-1]
    if last.role != "user":
        return None
    content = last.content
    if isinstance(content, str):
        return content
    parts: list[Any] = []
    for part in content:
        if part.type == "text":
            parts.append(part.text)
        elif part.type == "image" and part.source.type == "data":
            try:
                data = base64.b64decode(part.source.value, validate=True)
            except (binascii.Error, ValueError):
                raise ValueError("an image part's data is not valid base64") from None
            parts.append(ImagePart.from_bytes(data, media_type=part.source.mime_type))
        elif part.type == "image":
            parts.append(ImagePart.from_url(part.source.value))
        else:
            raise ValueError(f"a user message part of type {part.type!r} is not supported (text and image are)")
    return parts
