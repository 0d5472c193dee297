"""``llmist a2a serve``, run as a user runs it, answers a2a-sdk's client; --session-db keeps a
waiting task across a restart of the process."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
from a2a.types import GetTaskRequest, TaskState

from tests.a2a.remotes import collect, sdk_client, user_message
from tests.cli.helpers import clean_env
from tests.web.servers import free_port

pytestmark = pytest.mark.slow

TOOLS = '''
from llmist import gadget


@gadget
def add(a: int, b: int) -> str:
    """Add two numbers."""
    return str(a + b)


@gadget(requires_approval=True)
def send_email(to: str) -> str:
    """Send an email."""
    return f"Sent to {to}."
'''


@contextmanager
def llmist_a2a(args: Sequence[str], cwd: Path) -> Iterator[str]:
    """``llmist a2a serve ARGS --port N`` in a subprocess; its URL once the card answers; Ctrl-C after."""
    port = free_port()
    command = [sys.executable, "-m", "llmist.cli", "a2a", "serve", *args, "--port", str(port)]
    proc = subprocess.Popen(
        command, cwd=cwd, env=clean_env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"llmist a2a serve exited: {proc.stdout.read() if proc.stdout else ''}")
            try:
                httpx.get(base + "/.well-known/agent-card.json", timeout=1).raise_for_status()
                break
            except httpx.TransportError:
                assert time.monotonic() < deadline, "llmist a2a serve did not start"
                time.sleep(0.1)
        yield base
    finally:
        proc.send_signal(signal.SIGINT)
        output, _ = proc.communicate(timeout=30)
        assert proc.returncode == 0 and "Traceback" not in output, output
        assert "agent card at http://127.0.0.1" in output


def script(path: Path, *turns: object) -> str:
    path.write_text(json.dumps({"turns": list(turns)}), encoding="utf-8")
    return f"mock:{path.name}"


async def test_llmist_a2a_serve_answers_the_sdk_client_sending_and_streaming(tmp_path: Path) -> None:
    (tmp_path / "tools.py").write_text(TOOLS, encoding="utf-8")
    turns = [[{"gadget": "add", "params": {"a": 2, "b": 3}}], "The sum is 5."]
    model = script(tmp_path / "s.json", *turns, *turns)
    with llmist_a2a(["-m", model, "-g", "tools.py", "--name", "calc"], tmp_path) as base:
        async with httpx.AsyncClient(timeout=30) as http:
            sent = await collect(await sdk_client(http, base, streaming=False), user_message("2 + 3?"))
            streamed = await collect(await sdk_client(http, base), user_message("2 + 3?"))
            card = (await http.get(base + "/.well-known/agent-card.json")).json()
    assert card["name"] == "calc" and [s["name"] for s in card["skills"]] == ["add", "send_email"]
    assert sent[0].task.status.state == TaskState.TASK_STATE_COMPLETED
    assert sent[0].task.artifacts[0].parts[0].text == "The sum is 5."
    assert streamed[-1].status_update.status.state == TaskState.TASK_STATE_COMPLETED
    assert any(e.WhichOneof("payload") == "artifact_update" for e in streamed)


async def test_with_session_db_a_task_waiting_for_approval_survives_a_restart(tmp_path: Path) -> None:
    (tmp_path / "tools.py").write_text(TOOLS, encoding="utf-8")
    first = script(tmp_path / "first.json", [{"gadget": "send_email", "params": {"to": "ada@example.com"}}])
    second = script(tmp_path / "second.json", "Ada has the email.")
    common = ["-g", "tools.py", "--session-db", "a2a.db"]
    with llmist_a2a(["-m", first, *common], tmp_path) as base:
        async with httpx.AsyncClient(timeout=30) as http:
            [paused] = await collect(await sdk_client(http, base, streaming=False), user_message("Email Ada."))
    assert paused.task.status.state == TaskState.TASK_STATE_INPUT_REQUIRED
    with llmist_a2a(["-m", second, *common], tmp_path) as base:
        async with httpx.AsyncClient(timeout=30) as http:
            client = await sdk_client(http, base, streaming=False)
            task = await client.get_task(GetTaskRequest(id=paused.task.id))
            assert task.status.state == TaskState.TASK_STATE_INPUT_REQUIRED
            [done] = await collect(client, user_message("approve", task_id=task.id, context_id=task.context_id))
    assert done.task.status.state == TaskState.TASK_STATE_COMPLETED
    assert done.task.artifacts[0].parts[0].text == "Ada has the email."


def test_off_loopback_without_a_token_the_command_refuses(tmp_path: Path) -> None:
    (tmp_path / "tools.py").write_text(TOOLS, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "llmist.cli", "a2a", "serve", "-m", "mock", "-g", "tools.py", "--host", "0.0.0.0"],
        cwd=tmp_path,
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode != 0 and "without a token" in done.stderr + done.stdout
