"""A web page for an agent, and the AG-UI protocol (``pip install 'llmist[web]'``).

``to_asgi(agent)`` is a Starlette app: the page at ``/`` (plain HTML, CSS and JavaScript shipped
in the package) and an AG-UI endpoint at ``/agui`` that streams a run's events over SSE.
``serve_web(agent)`` serves it with uvicorn on 127.0.0.1. See docs/web.md.
"""

from llmist.web.agui import STATUSES, AguiRun
from llmist.web.app import WebApp, to_asgi
from llmist.web.approvals import ApprovalRequest, Approvals, Decision, InProcessApprovals, UnknownApprovalError
from llmist.web.security import DEFAULT_MAX_BODY_BYTES, TOKEN_ENV, WebSecurityError, check_exposure, is_loopback
from llmist.web.serve import ListenError, WebServer, serve_web

__all__ = [
    "DEFAULT_MAX_BODY_BYTES",
    "STATUSES",
    "TOKEN_ENV",
    "AguiRun",
    "ApprovalRequest",
    "Approvals",
    "Decision",
    "InProcessApprovals",
    "ListenError",
    "UnknownApprovalError",
    "WebApp",
    "WebSecurityError",
    "WebServer",
    "check_exposure",
    "is_loopback",
    "serve_web",
    "to_asgi",
]
