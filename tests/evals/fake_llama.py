"""A stand-in ``llama_cpp`` package, found first on ``PYTHONPATH``, whose ``llama_cpp.server`` is
a real subprocess on a loopback port speaking the OpenAI streaming format: the server of the
tests of :class:`~llmist.evals.local.LlamaCppServer`."""

from __future__ import annotations

import os
from pathlib import Path

_HEAD = """
import json, os, sys
from http.server import BaseHTTPRequestHandler, HTTPServer

args = sys.argv[1:]
port = int(args[args.index("--port") + 1])
"""

_SERVE = """

class Handler(BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass

    def do_GET(self):
        body = json.dumps({"data": [{"id": "fake"}]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self):
        chunks = answer(json.loads(self.rfile.read(int(self.headers["Content-Length"]))))
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        for chunk in chunks:
            self.wfile.write(f"data: {json.dumps(chunk)}\\n\\n".encode())
        self.wfile.write(b"data: [DONE]\\n\\n")


HTTPServer(("127.0.0.1", port), Handler).serve_forever()
"""


def server_script(answer: str) -> str:
    """The server's ``__main__``: ``answer`` is Python source that defines ``answer(request)``,
    the chunks streamed for a chat request (it may also run code at start, or exit instead)."""
    return _HEAD + answer + _SERVE


def install_fake_llama_cpp(root: Path, server: str, package: str = "") -> dict[str, str]:
    """Write the ``llama_cpp`` package (its ``__init__`` is ``package``, its server's
    ``__main__`` is ``server``) under ``root`` and return an environment that imports it first."""
    where = root / "fake" / "llama_cpp"
    (where / "server").mkdir(parents=True)
    (where / "__init__.py").write_text(package)
    (where / "server" / "__init__.py").write_text("")
    (where / "server" / "__main__.py").write_text(server)
    path = os.pathsep.join(p for p in (str(root / "fake"), os.environ.get("PYTHONPATH")) if p)
    return {**os.environ, "PYTHONPATH": path}
