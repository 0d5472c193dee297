"""Approvals across real processes (``approval_child.py``): one pauses, another decides, a third
resumes; deciders and resumers racing; processes killed with SIGKILL in between. Each approved
call runs exactly once, whatever happens. Every store."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from llmist.agent import GadgetResultMessage
from llmist.agent.repairs import NEXT_STEP_NOTE
from tests.cli.helpers import llmist
from tests.sessions.stores import Store

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow


def child(store: Store, log: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """Run one child to its end."""
    argv = [sys.executable, "-m", "tests.sessions.approval_child", store.spec, str(log), *args]
    return subprocess.run(argv, capture_output=True, text=True, cwd=ROOT, timeout=120, check=False)


def start(store: Store, log: Path, *args: str) -> subprocess.Popen[str]:
    """Start one child (its standard input and output are pipes)."""
    argv = [sys.executable, "-m", "tests.sessions.approval_child", store.spec, str(log), *args]
    return subprocess.Popen(
        argv, cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def wait_for(proc: subprocess.Popen[str], line: str) -> None:
    assert proc.stdout is not None
    seen = proc.stdout.readline().strip()
    assert seen == line, (seen, proc.stderr.read() if proc.stderr else "")


def lines(log: Path) -> list[str]:
    return log.read_text(encoding="utf-8").splitlines() if log.exists() else []


def paused(store: Store, log: Path, *, killed: bool = False) -> None:
    a = child(store, log, "pause", *(["--kill"] if killed else []))
    assert a.returncode == (-signal.SIGKILL if killed else 0), a.stderr
    assert json.loads(a.stdout) == {
        "stop": "awaiting_approval",
        "pending": [
            {"id": "w1", "gadget": "append", "reason": "append needs a person's approval for each call"},
            {"id": "w2", "gadget": "append", "reason": "append needs a person's approval for each call"},
        ],
    }
    assert lines(log) == []


def test_one_process_pauses_another_decides_a_third_resumes(store: Store, tmp_path: Path) -> None:
    log = tmp_path / "log.txt"
    paused(store, log)
    b = child(store, log, "decide", "w1=approve", "w2=deny:keep the log short")
    assert b.returncode == 0 and b.stdout.split() == ["decided", "decided"], b.stderr
    c = child(store, log, "resume")
    assert c.returncode == 0, c.stderr
    assert json.loads(c.stdout) == {"stop": "no_calls", "output": "The log has both lines' answers; done."}
    assert lines(log) == ["one"]  # w1 ran once; w2 never did
    transcript = asyncio.run(store.session("job").load())
    assert [m.role for m in transcript] == [
        "system", "user", "assistant", "gadget_result", "gadget_result", "gadget_result", "assistant"
    ]  # fmt: skip
    results = [m for m in transcript if isinstance(m, GadgetResultMessage)]
    assert [(m.invocation_id, m.text) for m in results] == [
        ("p1", f"Result of peek (id p1):\n(empty)\n\n{NEXT_STEP_NOTE}"),
        ("w1", "Result of append (id w1):\nappended 'one'"),
        ("w2", "Result of append (id w2):\nNot run: the user declined this append call: keep the log short."),
    ]
    assert asyncio.run(store.session("job").pending()) == []


def test_a_paused_process_killed_then_decided_with_the_cli_resumes_and_runs_each_call_once(
    store: Store, tmp_path: Path
) -> None:
    log = tmp_path / "log.txt"
    paused(store, log, killed=True)
    where = ["--session-db", store.where] if store.kind == "sqlite" else ["--session-url", store.where]
    listed = llmist("approvals", "job", *where, "--json")
    assert [p["invocation_id"] for p in json.loads(listed.stdout)["pending"]] == ["w1", "w2"], listed.stderr
    assert llmist("approve", "job", "w1", "--edit", "line=ONE", *where).returncode == 0
    assert llmist("deny", "job", "w2", "--reason", "one line is enough", *where).returncode == 0
    c = child(store, log, "resume")
    assert c.returncode == 0, c.stderr
    assert lines(log) == ["ONE"]
    again = child(store, log, "resume")  # a later run of the session runs nothing again
    assert again.returncode == 0, again.stderr
    assert lines(log) == ["ONE"]


def test_a_decider_killed_after_deciding_leaves_the_decisions_for_the_resume(store: Store, tmp_path: Path) -> None:
    log = tmp_path / "log.txt"
    paused(store, log)
    b = start(store, log, "decide", "w1=approve", "w2=approve", "--wait")
    wait_for(b, "decided")
    wait_for(b, "decided")
    os.kill(b.pid, signal.SIGKILL)
    assert b.wait() == -signal.SIGKILL
    c = child(store, log, "resume")
    assert c.returncode == 0, c.stderr
    assert sorted(lines(log)) == ["one", "two"]


def test_a_resume_killed_while_an_approved_call_runs_never_runs_it_again(store: Store, tmp_path: Path) -> None:
    log = tmp_path / "log.txt"
    paused(store, log)
    assert child(store, log, "decide", "w1=approve", "w2=deny").returncode == 0
    c = start(store, log, "resume", "--hang")
    wait_for(c, "appended")  # w1 ran, and its process dies before it says so
    os.kill(c.pid, signal.SIGKILL)
    c.wait()
    again = child(store, log, "resume")
    assert again.returncode == 0, again.stderr
    assert lines(log) == ["one"]
    results = [m for m in asyncio.run(store.session("job").load()) if isinstance(m, GadgetResultMessage)]
    assert "Unknown outcome: the run that was running this approved call ended" in results[1].text


def test_of_two_processes_deciding_one_call_at_once_exactly_one_decides(store: Store, tmp_path: Path) -> None:
    log = tmp_path / "log.txt"
    paused(store, log)
    deciders = [start(store, log, "decide", how, "--barrier") for how in ("w1=approve", "w1=deny:no")]
    for d in deciders:
        wait_for(d, "ready")
    outcomes = [d.communicate("go\n", timeout=60) for d in deciders]
    codes = sorted(d.returncode for d in deciders)
    assert codes == [0, 4], outcomes
    assert any("the first decision stands" in out for out, _ in outcomes)


def test_of_two_processes_resuming_at_once_one_runs_the_calls_once(store: Store, tmp_path: Path) -> None:
    log = tmp_path / "log.txt"
    paused(store, log)
    assert child(store, log, "decide", "w1=approve", "w2=approve").returncode == 0
    resumers = [start(store, log, "resume", "--barrier") for _ in range(2)]
    for r in resumers:
        wait_for(r, "ready")
    outcomes = [r.communicate("go\n", timeout=60) for r in resumers]
    codes = sorted(r.returncode for r in resumers)
    assert codes in ([0, 4], [0, 0]), outcomes  # the later one may start after the first finished
    if codes == [0, 4]:
        assert any("conflict: " in out and "each runs once" in out for out, _ in outcomes)
    assert sorted(lines(log)) == ["one", "two"]


def test_a_resume_while_another_process_runs_the_calls_is_told_and_runs_nothing(store: Store, tmp_path: Path) -> None:
    log = tmp_path / "log.txt"
    paused(store, log)
    assert child(store, log, "decide", "w1=approve", "w2=approve").returncode == 0
    first = start(store, log, "resume", "--hang")
    wait_for(first, "appended")  # it holds the calls, and is running them
    second = child(store, log, "resume")
    assert second.returncode == 4 and "is running the decided calls; each runs once" in second.stdout, second
    os.kill(first.pid, signal.SIGKILL)
    first.wait()
    third = child(store, log, "resume")  # the holder died: this one takes over, and runs nothing twice
    assert third.returncode == 0, third.stderr
    ran = lines(log)
    assert len(ran) == len(set(ran)) and set(ran) <= {"one", "two"}
    results = [m for m in asyncio.run(store.session("job").load()) if isinstance(m, GadgetResultMessage)]
    assert [m.invocation_id for m in results] == ["p1", "w1", "w2"]
