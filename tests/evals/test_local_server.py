"""The model server's watchdog: a server that dies stops the eval with its last log lines, and
the eval's table and results file are withheld, so a crash never reads as a score.

The server here is a stand-in ``llama_cpp.server`` module (a real subprocess on a loopback
port, speaking the OpenAI streaming format), found first on ``PYTHONPATH``; it can answer, or
crash at the first chat request as a llama.cpp build with an instruction the CPU lacks does.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from llmist.evals.local import LlamaCppServer, ServerDied, run_eval
from tests.evals.fake_llama import install_fake_llama_cpp, server_script
from tests.gadgets.processes import alive

FAKE_SERVER = server_script(
    """
mode = os.environ["FAKE_LLAMA_MODE"]
print("llama_model_loader: loaded meta data", file=sys.stderr, flush=True)
if mode == "no-start":
    print("error: unknown model architecture", file=sys.stderr, flush=True)
    sys.exit(1)
if "FAKE_LLAMA_HELPER" in os.environ:  # a process of its own, out of its session, as a worker may be
    import subprocess
    helper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"], start_new_session=True)
    with open(os.environ["FAKE_LLAMA_HELPER"], "w") as f:
        f.write(str(helper.pid))


def answer(request):
    if mode == "crash":
        print("Illegal instruction: invalid opcode (tileloadd) in libggml-cpu.so", file=sys.stderr, flush=True)
        os._exit(132)
    for delta, finish in (({"role": "assistant", "content": "It is 6912."}, None), ({}, "stop")):
        yield {"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "fake",
               "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
"""
)


@pytest.fixture
def fake_env(tmp_path: Path) -> dict[str, str]:
    return install_fake_llama_cpp(tmp_path, FAKE_SERVER)


def _server(env: dict[str, str], mode: str) -> LlamaCppServer:
    env = {**env, "FAKE_LLAMA_MODE": mode}
    return LlamaCppServer(Path("model.gguf"), python=sys.executable, alias="fake", start_timeout_s=60, env=env)


LINUX_ONLY = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="the launcher that keeps the server's process tree is Linux only"
)

ARGS = ["--case", "add_numbers", "--syntax", "block"]


def test_a_server_that_dies_mid_eval_stops_it_with_its_log_and_no_score(
    fake_env: dict[str, str], tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "results.jsonl"
    with _server(fake_env, "crash") as server:
        code = run_eval(server, "Fake-1B", [*ARGS, "--out", str(out)])
    printed = capfd.readouterr()
    assert code == 3
    assert "the model server died during the run; no score is reported" in printed.err
    assert "invalid opcode (tileloadd)" in printed.err
    assert "exited with code 132" in printed.err
    assert "success" not in printed.out  # no table
    assert not out.exists() and not Path(f"{out}.partial").exists()


def test_a_server_that_stays_up_releases_the_table_and_the_results(
    fake_env: dict[str, str], tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "results.jsonl"
    with _server(fake_env, "answer") as server:
        code = run_eval(server, "Fake-1B", [*ARGS, "--out", str(out)])
    printed = capfd.readouterr()
    assert code == 0, printed.err
    assert "Fake-1B" in printed.out and "0/1" in printed.out  # answered without calling add
    assert [json.loads(line)["case"] for line in out.read_text().splitlines()] == ["add_numbers"]


def test_a_server_that_cannot_start_says_why(fake_env: dict[str, str]) -> None:
    with pytest.raises(ServerDied, match="unknown model architecture") as raised, _server(fake_env, "no-start"):
        pass
    assert "exited with code 1" in str(raised.value)


def test_the_server_is_stopped_when_the_block_ends(fake_env: dict[str, str]) -> None:
    with _server(fake_env, "answer") as server:
        assert server.alive
    assert not server.alive


@LINUX_ONLY
def test_the_server_and_what_it_started_are_gone_when_the_block_ends(fake_env: dict[str, str], tmp_path: Path) -> None:
    helper_file = tmp_path / "helper.pid"
    with _server({**fake_env, "FAKE_LLAMA_HELPER": str(helper_file)}, "answer") as server:
        pid, helper = server.pid, int(helper_file.read_text())
        os.kill(helper, 0)  # running
    assert pid is not None and _gone(pid)
    assert _gone(helper), f"the server's helper {helper} outlived it"


def test_a_server_whose_program_is_missing_says_which(fake_env: dict[str, str], tmp_path: Path) -> None:
    missing = str(tmp_path / "no-such-python")
    server = LlamaCppServer(Path("model.gguf"), python=missing, start_timeout_s=60, env=fake_env)
    with pytest.raises((ServerDied, FileNotFoundError), match="no-such-python"), server:
        pass


HOLDER = """
import sys, time
from pathlib import Path
from llmist.evals.local import LlamaCppServer

env = dict(__import__("os").environ, FAKE_LLAMA_MODE="answer")
with LlamaCppServer(Path("model.gguf"), python=sys.executable, alias="fake", start_timeout_s=60, env=env) as server:
    print(server.pid, flush=True)
    time.sleep(120)
"""


def test_a_process_terminated_while_it_serves_stops_its_server(fake_env: dict[str, str]) -> None:
    # With SIGTERM's default handler the process died at once and left its server running.
    holder = subprocess.Popen([sys.executable, "-c", HOLDER], env=fake_env, stdout=subprocess.PIPE, text=True)
    assert holder.stdout is not None
    server_pid = int(holder.stdout.readline())
    holder.send_signal(signal.SIGTERM)
    assert holder.wait(timeout=30) == 143
    with pytest.raises(ProcessLookupError):
        os.kill(server_pid, 0)


def _gone(pid: int, within_s: float = 10.0) -> bool:
    """Whether process ``pid`` has ended (or is a zombie) within ``within_s`` (a hang detector,
    not a measure of speed)."""
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        if not alive(pid):
            return True
        time.sleep(0.05)
    return False


@LINUX_ONLY
def test_a_process_killed_while_it_serves_leaves_no_server_behind(fake_env: dict[str, str], tmp_path: Path) -> None:
    # SIGKILL runs no handler and no `with` exit: only the launcher's lifeline stops the server.
    helper_file = tmp_path / "helper.pid"
    env = {**fake_env, "FAKE_LLAMA_HELPER": str(helper_file)}
    holder = subprocess.Popen([sys.executable, "-c", HOLDER], env=env, stdout=subprocess.PIPE, text=True)
    assert holder.stdout is not None
    server_pid = int(holder.stdout.readline())
    helper = int(helper_file.read_text())
    os.kill(server_pid, 0)  # serving
    holder.kill()
    assert holder.wait(timeout=30) == -signal.SIGKILL
    left = [pid for pid in (server_pid, helper) if not _gone(pid)]
    for pid in left:  # not left running for the rest of the session
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    assert not left, f"{left} outlived the process that started the server {server_pid} (helper {helper})"


def test_the_sigterm_handler_is_given_back_when_the_server_stops(fake_env: dict[str, str]) -> None:
    before = signal.signal(signal.SIGTERM, signal.SIG_DFL)  # an earlier test (Ray) may have set one
    try:
        with _server(fake_env, "answer"):
            assert signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL
        assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL
    finally:
        signal.signal(signal.SIGTERM, before)


def test_a_sigterm_handler_of_the_program_is_left_alone(fake_env: dict[str, str]) -> None:
    def own(signum: int, frame: object) -> None:
        pass

    before = signal.signal(signal.SIGTERM, own)
    try:
        with _server(fake_env, "answer"):
            assert signal.getsignal(signal.SIGTERM) is own
        assert signal.getsignal(signal.SIGTERM) is own
    finally:
        signal.signal(signal.SIGTERM, before)
