"""Who may use the page and its endpoints (the rules docs/web.md lists).

- The server binds to loopback unless told otherwise; any other address needs a token
  (:func:`check_exposure`), so gadgets that write files or run commands are never reachable
  from the network without one.
- With a token, every API request carries ``Authorization: Bearer <token>`` (the page reads
  the token once from the address's ``#token=`` fragment, which browsers never send).
- Without one (loopback only), a request must name a loopback host (a web page that rebinds
  its own domain name to 127.0.0.1 is refused), and a request sent from another origin is
  refused whatever the token.
- Every response forbids inline scripts and framing (the page escapes what the model writes;
  the policy is the second line of defence).
- A request's body is bounded (:func:`limit_body`): one past the limit is answered 413 without
  being read into memory, so a client cannot grow the server by sending more.
"""

from __future__ import annotations

import hmac
import ipaddress
import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any
from urllib.parse import urlsplit

from llmist._credentials import WEB_TOKEN

__all__ = [
    "DEFAULT_MAX_BODY_BYTES",
    "TOKEN_ENV",
    "WebSecurityError",
    "check_exposure",
    "check_max_body",
    "guard",
    "is_loopback",
    "limit_body",
]

TOKEN_ENV = WEB_TOKEN
"""The environment variable a token may come from instead of ``--token``."""

DEFAULT_MAX_BODY_BYTES = 8 * 1024 * 1024
"""The largest request body served by default: 8 MiB. The page's largest request is a message
with an image attached, sent as base64 (4 bytes for every 3): an image of 5 MB, the most some
providers take, fits; the page's other requests are a few hundred bytes."""

_Scope = MutableMapping[str, Any]
_Receive = Callable[[], Awaitable[Any]]
_Send = Callable[[Any], Awaitable[None]]
_ASGI = Callable[[_Scope, _Receive, _Send], Awaitable[None]]

_HEADERS = [
    (
        b"content-security-policy",
        b"default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; "
        b"connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
    ),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
]
_OPEN_PATHS = ("/", "/favicon.ico")
_OPEN_PREFIX = "/static/"


class WebSecurityError(ValueError):
    """The server would be exposed without the protection its address needs."""


def is_loopback(host: str) -> bool:
    """Whether ``host`` (a name or an address, IPv6 with or without brackets) is this machine only."""
    name = host.strip().strip("[]").lower()
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def check_exposure(host: str, token: str | None, *, builtins: bool = False) -> None:
    """Refuse to serve on a non-loopback ``host`` without a token.

    Raises:
        WebSecurityError: naming the address, what is missing and how to give it.
    """
    if is_loopback(host) or token:
        return
    what = "the agent, with gadgets that write files and run commands (--builtins)," if builtins else "the agent"
    raise WebSecurityError(
        f"refusing to serve {what} on {host!r} without a token: anyone who reaches that address could "
        f"use it. Pass --token SECRET (or set {TOKEN_ENV}), or bind to 127.0.0.1"
    )


def _host_name(value: str) -> str:
    """The host of a ``Host`` header value (``"[::1]:8000"`` -> ``"::1"``)."""
    return urlsplit("//" + value).hostname or ""


def _netloc(value: str) -> str:
    return urlsplit(value).netloc.lower()


def guard(app: _ASGI, *, token: str | None) -> _ASGI:
    """``app`` behind the rules of the module docstring."""
    expected = token.encode() if token else None

    async def guarded(scope: _Scope, receive: _Receive, send: _Send) -> None:
        if scope["type"] != "http":
            await app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        refusal = _refusal(scope, headers, expected)
        if refusal is not None:
            status, message = refusal
            await _send_json(send, status, {"error": message})
            return

        async def with_headers(message: Any) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *_HEADERS]
            await send(message)

        await app(scope, receive, with_headers)

    return guarded


def _refusal(scope: _Scope, headers: dict[str, str], token: bytes | None) -> tuple[int, str] | None:
    host = headers.get("host", "")
    if token is None and not is_loopback(_host_name(host)):
        return 403, f"host {host!r} is not a loopback name; without a token this server answers only 127.0.0.1"
    origin = headers.get("origin")
    if origin is not None and origin != "null" and _netloc(origin) != host.lower():
        return 403, f"requests from another origin ({origin}) are refused"
    if origin == "null":
        return 403, "requests from an opaque origin are refused"
    path: str = scope.get("path", "")
    if token is None or path in _OPEN_PATHS or path.startswith(_OPEN_PREFIX):
        return None
    scheme, _, given = headers.get("authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not hmac.compare_digest(given.strip().encode(), token):
        return 401, "missing or wrong token: send the header 'Authorization: Bearer <token>'"
    return None


async def _send_json(
    send: _Send, status: int, body: dict[str, Any], *, extra: list[tuple[bytes, bytes]] = _HEADERS
) -> None:
    data = json.dumps(body).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode()), *extra]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": data})


def check_max_body(max_bytes: int) -> int:
    """``max_bytes`` if it is a usable body limit (a whole number of bytes, at least 1).

    Raises:
        ValueError: naming the value and what is expected.
    """
    if isinstance(max_bytes, bool) or not isinstance(max_bytes, int) or max_bytes < 1:
        raise ValueError(f"max_body_bytes must be a whole number of bytes, at least 1; got {max_bytes!r}")
    return max_bytes


def limit_body(app: _ASGI, *, max_bytes: int) -> _ASGI:
    """``app`` behind a bound on each request's body: past ``max_bytes`` the answer is 413.

    A ``Content-Length`` over the limit is refused before a byte of the body is read. Otherwise
    the body (chunked, or a length within the limit) is read here, counted as it arrives, and
    refused as soon as the count passes the limit, so at most ``max_bytes`` of it is ever held;
    a body within the limit is handed to ``app`` whole. (The server discards what a refused
    client still sends, so the client can read the 413.)
    """
    check_max_body(max_bytes)

    async def limited(scope: _Scope, receive: _Receive, send: _Send) -> None:
        if scope["type"] != "http":
            await app(scope, receive, send)
            return
        declared = _content_length(scope)
        if declared is not None and declared > max_bytes:
            await _too_large(send, max_bytes)
            return
        whole = await _read_body(receive, max_bytes)
        if whole is None:
            await _too_large(send, max_bytes)
            return
        first: list[Any] = [whole]

        async def replay() -> Any:
            # The body read above, once; then what the server sends next (a disconnect).
            return first.pop() if first else await receive()

        await app(scope, replay, send)

    return limited


async def _read_body(receive: _Receive, max_bytes: int) -> dict[str, Any] | None:
    """The request's body as one message, or ``None`` as soon as it passes ``max_bytes`` (the rest
    unread). A disconnect before its end is returned as it came, for the app to see."""
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return dict(message)
        body: bytes = message.get("body", b"")
        size += len(body)
        if size > max_bytes:
            return None
        chunks.append(body)
        if not message.get("more_body", False):
            return {"type": "http.request", "body": b"".join(chunks), "more_body": False}


def _content_length(scope: _Scope) -> int | None:
    for key, value in scope.get("headers", []):
        if key.lower() == b"content-length":
            # The server (h11) has already refused a malformed length with 400; a length of
            # more digits than any body has is over every limit (and int() refuses 4,300 digits).
            digits = value.strip()
            if not digits.isdigit():
                return None
            return int(digits) if len(digits) <= 18 else 10**18
    return None


async def _too_large(send: _Send, max_bytes: int) -> None:
    # No security headers of its own: behind guard() (as to_asgi puts it) they are added there.
    await _send_json(
        send,
        413,
        {
            "error": f"the request body is larger than this server's limit of {max_bytes:,} bytes "
            "(an image attached to a message counts as its base64 text, a third larger): send less, "
            "or serve with a larger limit (llmist web --max-body-bytes N, or to_asgi(max_body_bytes=N))"
        },
        extra=[],
    )
