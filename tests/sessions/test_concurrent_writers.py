"""A run whose conversation could not be stored fails: a store locked by another process is
waited for (the busy timeout), then ``llmist agent --session`` fails with a non-zero exit code,
never silently."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from llmist.agent import SQLiteSession
from llmist.testing import block_call
from tests.cli.helpers import clean_env, llmist

pytestmark = pytest.mark.slow


def _script(tmp_path: Path, name: str, turns: list[object], delay_s: float = 0.0) -> Path:
    path = tmp_path / name
    path.write_text(json.dumps({"turns": turns, "delay_s": delay_s, "chunk_size": 4}), encoding="utf-8")
    return path


def _agent(tmp_path: Path, db: Path, script: Path, prompt: str, *extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "llmist.cli", "agent", prompt, "-m", f"mock:{script}", "--session", "s",
         "--session-db", str(db), *extra],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=clean_env(),
    )  # fmt: skip


_LOCK = """
import sqlite3, sys, time
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute("BEGIN EXCLUSIVE")
print("locked", flush=True)
time.sleep(float(sys.argv[2]))
conn.execute("COMMIT")
"""


def _hold_lock(db: Path, seconds: float) -> subprocess.Popen[str]:
    holder = subprocess.Popen([sys.executable, "-c", _LOCK, str(db), str(seconds)], stdout=subprocess.PIPE, text=True)
    assert holder.stdout is not None and holder.stdout.readline() == "locked\n"
    return holder


def _existing_store(tmp_path: Path) -> Path:
    db = tmp_path / "sessions.db"  # an existing store, so the command opens it without writing
    first = llmist("agent", "start", "-m", f"mock:{_script(tmp_path, 'a.json', ['Started.'])}",
                   "--session", "s", "--session-db", str(db))  # fmt: skip
    assert first.returncode == 0, first.stderr
    return db


def test_a_store_locked_past_the_busy_timeout_fails_the_command(tmp_path: Path) -> None:
    db = _existing_store(tmp_path)
    holder = _hold_lock(db, 30)
    try:
        started = time.monotonic()
        proc = llmist("agent", "more", "-m", f"mock:{_script(tmp_path, 'b.json', ['More.'])}",
                      "--session", "s", "--session-db", str(db))  # fmt: skip
        took = time.monotonic() - started
    finally:
        holder.kill()
        holder.wait()
    assert proc.returncode != 0, proc.stdout
    assert "database is locked" in proc.stdout + proc.stderr and str(db) in proc.stdout + proc.stderr
    assert took < 25
    assert [m.text for m in asyncio.run(SQLiteSession(db, "s").load())[1:]] == ["start", "Started."]


def test_a_store_locked_for_less_than_the_busy_timeout_is_waited_for(tmp_path: Path) -> None:
    db = _existing_store(tmp_path)
    holder = _hold_lock(db, 1.5)
    release = threading.Thread(target=holder.wait)
    release.start()
    proc = llmist("agent", "more", "-m", f"mock:{_script(tmp_path, 'b.json', ['More.'])}",
                  "--session", "s", "--session-db", str(db))  # fmt: skip
    release.join()
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert [m.text for m in asyncio.run(SQLiteSession(db, "s").load())[1:]] == ["start", "Started.", "more", "More."]


# --- two runs on one conversation at once ---------------------------------------------------

_MEET = """
import os, time
from pathlib import Path
from llmist import gadget

@gadget
def meet(room: str) -> str:
    \"\"\"Wait until the other run is here too (both have loaded the session by now).\"\"\"
    Path(room, str(os.getpid())).touch()
    while len(list(Path(room).iterdir())) < 2:
        time.sleep(0.05)
    return "met"
"""


def test_two_processes_on_one_session_never_damage_or_overwrite_it(tmp_path: Path) -> None:
    db = _existing_store(tmp_path)
    room = tmp_path / "room"
    room.mkdir()
    gadgets = tmp_path / "meet.py"
    gadgets.write_text(_MEET, encoding="utf-8")
    scripts = {name: _script(tmp_path, f"{name}.json", [block_call("meet", room=str(room)), f"{name} done."])
               for name in ("a", "b")}  # fmt: skip
    procs = {name: _agent(tmp_path, db, script, f"from {name}", "-g", str(gadgets)) for name, script in scripts.items()}
    outcomes = {name: (proc.wait(timeout=120), proc.communicate()) for name, proc in procs.items()}
    exits = sorted(code for code, _ in outcomes.values())
    assert exits[0] == 0 and exits[1] != 0, outcomes  # both loaded before either wrote: one lost the race
    (loser,) = [name for name, (code, _) in outcomes.items() if code != 0]
    (winner,) = {"a", "b"} - {loser}
    out, err = outcomes[loser][1]
    assert "another writer changed this session" in out + err and str(db) in out + err
    stored = [m.text for m in asyncio.run(SQLiteSession(db, "s").load())[1:]]  # loads: not damaged
    assert stored[:2] == ["start", "Started."] and stored[2] == f"from {winner}" and stored[-1] == f"{winner} done."
    assert not any(f"from {loser}" in text or f"{loser} done." in text for text in stored)
