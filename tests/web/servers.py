"""Serve an app for a test: in this process (uvicorn in a thread) or as ``llmist web`` in a subprocess."""

from __future__ import annotations

import contextlib
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import httpx2
import uvicorn

from llmist.web import WebServer
from tests.cli.helpers import clean_env


@contextlib.contextmanager
def serving(app: Any, port: int = 0) -> Iterator[str]:
    """Serve ``app`` on a free loopback port (or ``port``) in a thread; yield its base URL; stop it afterwards."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", port))
    port = sock.getsockname()[1]
    server = WebServer(uvicorn.Config(app, log_level="warning", timeout_graceful_shutdown=5))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, name="test-uvicorn", daemon=True)
    thread.start()
    try:
        while not server.started:
            if not thread.is_alive():
                raise RuntimeError("the test server did not start")
            time.sleep(0.01)
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=15)
        sock.close()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def llmist_web(
    args: Sequence[str], *, cwd: Path, env: dict[str, str] | None = None, killed: bool = False
) -> Iterator[str]:
    """Run ``llmist web ARGS --port N`` as a user does; yield its base URL once it answers; stop it
    with Ctrl-C (SIGINT) and check it exits cleanly, or (``killed``) end it with SIGKILL, as a
    crash or an out-of-memory kill would, with no chance to tidy up."""
    port = free_port()
    command = [sys.executable, "-m", "llmist.cli", "web", *args, "--port", str(port)]
    proc = subprocess.Popen(
        command, cwd=cwd, env=clean_env(env), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            if proc.poll() is not None:
                raise RuntimeError(
                    f"llmist web exited with {proc.returncode}: {proc.stdout.read() if proc.stdout else ''}"
                )
            try:
                httpx2.get(base + "/api/info", timeout=1)
                break
            except httpx2.TransportError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
        yield base
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL if killed else signal.SIGINT)
        try:
            output, _ = proc.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            output, _ = proc.communicate()
    if killed:
        assert proc.returncode == -signal.SIGKILL, f"llmist web was not killed:\n{output}"
        return
    assert proc.returncode == 0 and "Traceback" not in output, f"llmist web did not stop cleanly:\n{output}"
