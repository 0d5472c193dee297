"""docs/web.md's examples run: the AG-UI client in-process, the served page as a real process,
and each `llmist web` command line of the guide."""

from __future__ import annotations

import json
import re
import runpy
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx2
import pytest

from tests.cli.helpers import clean_env
from tests.web.servers import free_port, llmist_web

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "web"
RUN = {"threadId": "t", "runId": "r", "messages": [{"id": "m", "role": "user", "content": "Capitals?"}]}


def test_the_agui_client_example_prints_the_runs_events(capsys: pytest.CaptureFixture[str]) -> None:
    runpy.run_path(str(EXAMPLES / "agui_client.py"), run_name="__main__")
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "RUN_STARTED " and lines[-1] == "RUN_FINISHED "
    assert 'TOOL_CALL_ARGS {"a":2,"b":3}' in lines and "TOOL_CALL_RESULT 5" in lines


def events(base: str, body: dict[str, object]) -> list[dict[str, Any]]:
    """The run's events; each call that asks for approval is approved, as a person on the page would."""
    seen: list[dict[str, Any]] = []
    with httpx2.stream("POST", base + "/agui", json=body, timeout=30) as response:
        for line in response.iter_lines():
            if line.startswith("data: "):
                seen.append(json.loads(line[6:]))
                if seen[-1].get("name") == "llmist.approval_requested":
                    value = seen[-1]["value"]
                    url = f"{base}/api/runs/{value['runId']}/approvals/{value['toolCallId']}"
                    httpx2.post(url, json={"action": "approve"}).raise_for_status()
    return seen


@pytest.mark.slow
def test_the_serve_example_serves_the_page_until_ctrl_c(tmp_path: Path) -> None:
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, str(EXAMPLES / "serve.py")],
        cwd=tmp_path,
        env=clean_env({"PORT": str(port)}),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                assert "<title>llmist</title>" in httpx2.get(base + "/", timeout=1).text
                break
            except httpx2.TransportError:
                assert proc.poll() is None and time.monotonic() < deadline, "the example did not start"
                time.sleep(0.1)
        assert httpx2.get(base + "/api/info").json()["guarded"] == ["SaveNote"]
    finally:
        proc.send_signal(signal.SIGINT)
        out, _ = proc.communicate(timeout=20)
    assert proc.returncode == 0, out


COMMANDS = [
    line
    for block in re.findall(
        r"```bash[^\n]*\n(.*?)```", (ROOT / "docs" / "web.md").read_text(encoding="utf-8"), re.DOTALL
    )
    for line in block.splitlines()
    if line.startswith("llmist web")
]


@pytest.mark.slow
@pytest.mark.parametrize("line", COMMANDS)
def test_every_llmist_web_command_of_the_guide_serves_a_run(line: str, tmp_path: Path) -> None:
    args = shlex.split(line)[2:]
    with llmist_web([*args, "--session-db", str(tmp_path / "s.db")], cwd=ROOT) as base:
        kinds = [e["type"] for e in events(base, RUN)]
    assert kinds[0] == "RUN_STARTED" and kinds[-1] == "RUN_FINISHED"


def test_the_guide_has_llmist_web_commands() -> None:
    assert COMMANDS
