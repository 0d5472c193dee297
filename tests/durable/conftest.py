"""The durable-run tests' fixtures: a system database of each kind, and child processes.

``database`` is a new system database's URL, once a SQLite file and once a database on the real
PostgreSQL server of the ``postgres`` fixture (Debian's package, started by the tests; skipped,
naming the install command, only where it is not installed). :class:`Children` starts
``tests/durable/child.py`` processes and waits on their marker files, each wait bounded.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
WAIT_S = 60.0
"""The longest any wait of these tests takes before it fails (a child that never gets there)."""


@pytest.fixture(params=["sqlite", "postgresql"])
def database(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A new, empty DBOS system database: its URL."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'system.sqlite'}"
    server = request.getfixturevalue("postgres")
    return str(server.new_database()).replace("postgresql+asyncpg://", "postgresql://")


class Children:
    """The child processes of one test (all killed at its end) and their working directory."""

    def __init__(self, url: str, work: Path) -> None:
        self.url, self.work = url, work
        self.procs: list[subprocess.Popen[str]] = []

    def start(self, mode: str, workflow: str, *extra: str) -> subprocess.Popen[str]:
        """``python -m tests.durable.child URL DIR MODE WORKFLOW EXTRA...``, started."""
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT)])}
        args = [sys.executable, "-m", "tests.durable.child", self.url, str(self.work), mode, workflow, *extra]
        proc = subprocess.Popen(args, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.procs.append(proc)
        return proc

    def wait_for(self, name: str, proc: subprocess.Popen[str] | None = None) -> None:
        """Wait until marker ``name`` appears (failing, with the child's output, if ``proc`` ends first)."""
        deadline = time.monotonic() + WAIT_S
        while not (self.work / name).exists():
            if proc is not None and proc.poll() is not None:
                out, err = proc.communicate()
                pytest.fail(f"the child ended before {name}: {out}\n{err[-3000:]}")
            if time.monotonic() > deadline:
                pytest.fail(f"{name} never appeared in {WAIT_S} s")
            time.sleep(0.01)

    def wait_until(self, done: Callable[[], bool], what: str) -> None:
        """Wait until ``done()`` (a condition on the marker files), at most :data:`WAIT_S`."""
        deadline = time.monotonic() + WAIT_S
        while not done():
            if time.monotonic() > deadline:
                pytest.fail(f"{what}: not after {WAIT_S} s")
            time.sleep(0.01)

    def kill(self, proc: subprocess.Popen[str]) -> None:
        """SIGKILL: no exit handlers, no tidying up, as in a crash."""
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=WAIT_S)

    def finish(self, proc: subprocess.Popen[str]) -> str:
        """The child's standard output once it exits 0 (its stderr in the failure otherwise)."""
        out, err = proc.communicate(timeout=WAIT_S)
        assert proc.returncode == 0, err[-3000:]
        return out

    def lines(self, name: str) -> list[str]:
        """The lines of log ``name`` ([] when it was never written)."""
        path = self.work / name
        return path.read_text(encoding="utf-8").splitlines() if path.exists() else []

    def release(self, name: str) -> None:
        """Let a stop go on (``release_gadget``, ``release_response``)."""
        (self.work / name).touch()


@pytest.fixture
def children(database: str, tmp_path: Path) -> Iterator[Children]:
    """:class:`Children` on a new system database (of each kind); whatever is still running at the
    end is killed."""
    work = tmp_path / "work"
    work.mkdir()
    kids = Children(database, work)
    yield kids
    for proc in kids.procs:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=WAIT_S)
