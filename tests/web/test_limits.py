"""What a request may send and what an error sends back: every body is bounded (413 past the
limit, unread), an error never echoes a request back, and ``llmist web`` names a port it cannot
take and the command that installs a missing extra (issue 40)."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest

from llmist import Agent
from llmist._install import install_command
from llmist.cli._config import SETTINGS
from llmist.testing import MockModel
from llmist.web import DEFAULT_MAX_BODY_BYTES, ListenError, serve_web, to_asgi
from tests.cli.helpers import clean_env, llmist
from tests.web.servers import llmist_web, serving

MiB = 1024 * 1024
RUN = {"threadId": "t", "runId": "r", "messages": [{"id": "m", "role": "user", "content": "hi"}]}


def _agent() -> Agent[str]:
    return Agent(model=MockModel(["hello"] * 5))


@pytest.fixture
def server(tmp_path: Path) -> Iterator[httpx2.Client]:
    """The app with its default limit, over real HTTP."""
    with serving(to_asgi(_agent(), sessions=tmp_path / "s.db")) as url, httpx2.Client(base_url=url, timeout=60) as c:
        yield c


@pytest.fixture
def small(tmp_path: Path) -> Iterator[httpx2.Client]:
    """The app with a 64 KiB limit."""
    app = to_asgi(_agent(), sessions=tmp_path / "s.db", max_body_bytes=64 * 1024)
    with serving(app) as url, httpx2.Client(base_url=url, timeout=60) as c:
        yield c


def _chunks(total: int, size: int = 16 * 1024, fill: bytes = b"x") -> Iterator[bytes]:
    """``total`` bytes as a generator: the client sends them chunked, with no Content-Length."""
    while total > 0:
        yield fill * min(size, total)
        total -= size


def test_a_32_mib_body_gets_a_small_413(server: httpx2.Client) -> None:
    response = server.post("/agui", content=b"{" * (32 * MiB), headers={"content-type": "application/json"})
    assert response.status_code == 413
    assert len(response.content) < 1000
    assert "larger than this server's limit of 8,388,608 bytes" in response.json()["error"]
    # The server still serves, and a 413 carries the page's security headers too.
    assert "frame-ancestors 'none'" in response.headers["content-security-policy"]
    assert server.get("/api/info").status_code == 200


def test_a_chunked_body_past_the_limit_gets_413(small: httpx2.Client) -> None:
    response = small.post("/agui", content=_chunks(2 * MiB), headers={"content-type": "application/json"})
    assert "content-length" not in response.request.headers
    assert response.status_code == 413
    assert "limit of 65,536 bytes" in response.json()["error"]


def test_a_chunked_body_within_the_limit_is_served_whole(small: httpx2.Client) -> None:
    body = json.dumps(RUN).encode()
    pieces = iter([body[:7], body[7:20], body[20:]])
    with small.stream("POST", "/agui", content=pieces, headers={"content-type": "application/json"}) as response:
        assert response.status_code == 200
        assert "RUN_FINISHED" in response.read().decode()


def test_a_body_of_exactly_the_limit_is_read_and_one_byte_more_is_not(small: httpx2.Client) -> None:
    at_limit = small.post("/agui", content=b" " * (64 * 1024))
    assert at_limit.status_code == 422  # read, and found not to be a RunAgentInput
    assert small.post("/agui", content=b" " * (64 * 1024 + 1)).status_code == 413
    assert small.post("/agui", content=_chunks(64 * 1024 + 1, fill=b" ")).status_code == 413


def test_a_decision_body_is_bounded_too(small: httpx2.Client) -> None:
    response = small.post("/api/runs/r/approvals/c", content=_chunks(MiB))
    assert response.status_code == 413


def test_without_the_token_a_large_body_is_refused_before_it_is_counted(tmp_path: Path) -> None:
    app = to_asgi(_agent(), sessions=tmp_path / "s.db", token="s3cret", max_body_bytes=1024)
    with serving(app) as url:
        assert httpx2.post(url + "/agui", content=b"x" * MiB, timeout=60).status_code == 401


@pytest.mark.parametrize(
    "body",
    [
        b"not json " * 200_000,  # 1.8 MB that is not JSON
        json.dumps({**RUN, "messages": "\u00e9" * 1_000_000}).encode(),  # a wrong type, 2 MB of it
        json.dumps({"threadId": ["x" * 500_000] * 3, "runId": {"a": "y" * 500_000}}).encode(),
    ],
    ids=["not-json", "wrong-type", "several-wrong"],
)
def test_a_422_quotes_at_most_a_few_hundred_characters_of_the_input(server: httpx2.Client, body: bytes) -> None:
    response = server.post("/agui", content=body, headers={"content-type": "application/json"})
    assert response.status_code == 422
    assert len(response.content) < 2000
    error = response.json()["error"]
    assert error.startswith("the body is not an AG-UI RunAgentInput: ")
    assert "more characters)" in error  # says that it cut the quote


def test_a_decision_error_does_not_echo_its_action(server: httpx2.Client) -> None:
    response = server.post("/api/runs/r/approvals/c", json={"action": "z" * 1_000_000})
    assert response.status_code in (404, 422)
    assert len(response.content) < 2000


@pytest.mark.parametrize("bad", [0, -1, True, 1.5, "8MiB"])
def test_a_limit_that_is_not_a_positive_number_of_bytes_is_refused(tmp_path: Path, bad: object) -> None:
    with pytest.raises(ValueError, match=r"max_body_bytes must be a whole number of bytes, at least 1; got"):
        to_asgi(_agent(), sessions=tmp_path / "s.db", max_body_bytes=bad)  # type: ignore[arg-type]


def test_the_config_default_is_the_web_default() -> None:
    assert SETTINGS["max_body_bytes"].default == DEFAULT_MAX_BODY_BYTES == 8 * MiB


@pytest.fixture
def taken() -> Iterator[int]:
    """A port another program listens on, for as long as the test runs."""
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        yield int(holder.getsockname()[1])


def test_serve_web_on_a_taken_port_raises_before_announcing(taken: int) -> None:
    announced: list[str] = []
    with pytest.raises(ListenError, match=rf"port {taken} is already in use") as caught:
        serve_web(_agent(), port=taken, on_listening=announced.append)
    assert announced == [] and caught.value.port == taken


@pytest.mark.slow
def test_llmist_web_on_a_taken_port_names_it_and_exits_2(tmp_path: Path, taken: int) -> None:
    result = llmist("web", "-m", "mock", "--port", str(taken), "--session-db", str(tmp_path / "s.db"), cwd=tmp_path)
    assert result.returncode == 2, result
    assert "serving" not in result.stdout and "llmist web:" not in result.stdout
    message = " ".join(result.stderr.split())
    assert f"cannot listen on 127.0.0.1:{taken}: port {taken} is already in use" in message
    assert "--port" in message and "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) <= 2


@pytest.mark.slow
def test_llmist_web_takes_its_body_limit_from_the_flag_and_the_config(tmp_path: Path) -> None:
    (tmp_path / "llmist.toml").write_text("max_body_bytes = 2048\n", encoding="utf-8")
    db = str(tmp_path / "s.db")
    with llmist_web(["-m", "mock", "--session-db", db], cwd=tmp_path) as url:
        assert httpx2.post(url + "/agui", content=b"x" * 2049, timeout=60).status_code == 413
        assert httpx2.post(url + "/agui", content=b"x" * 2048, timeout=60).status_code == 422
    with llmist_web(["-m", "mock", "--session-db", db, "--max-body-bytes", "100000"], cwd=tmp_path) as url:
        assert httpx2.post(url + "/agui", content=b"x" * 2049, timeout=60).status_code == 422
    result = llmist("web", "-m", "mock", "--max-body-bytes", "0", cwd=tmp_path)
    assert result.returncode == 2 and "--max-body-bytes must be a positive integer, got 0" in result.stderr


def _without(module: str, *argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``llmist ARGV`` in a Python where importing ``module`` fails, as if its extra were not installed."""
    code = f"import sys; sys.modules[{module!r}] = None; sys.argv = {['llmist', *argv]!r}; "
    code += "from llmist.cli.main import main; main()"
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=clean_env(), cwd=cwd, timeout=60
    )


@pytest.mark.slow
@pytest.mark.parametrize(
    ("module", "argv", "extra"),
    [
        ("starlette", ("web", "-m", "mock"), "web"),
        ("uvicorn", ("web", "-m", "mock"), "web"),
        ("mcp", ("agent", "hi", "-m", "mock", "--mcp", "python -m mcp_server_time"), "mcp"),
        ("mcp", ("web", "-m", "mock", "--mcp", "python -m mcp_server_time"), "mcp"),
        ("mcp", ("mcp", "serve", "tools.py"), "mcp"),
    ],
)
def test_a_missing_extra_names_the_exact_install_command(
    tmp_path: Path, module: str, argv: tuple[str, ...], extra: str
) -> None:
    result = _without(module, *argv, cwd=tmp_path)
    assert result.returncode == 2, result
    message = " ".join(result.stderr.split())
    # This Python's pip, and this checkout (the tests run an editable install), not the released package.
    assert f"Install it with: {install_command(extra)}" in message
    assert f"{sys.executable} -m pip install" in message and f"[{extra}]'" in message
    assert f"pip install 'llmist[{extra}]'" not in message
    assert "Traceback" not in result.stderr
