"""Run ``llmist`` as a user does: a real subprocess, with pipes or under a pseudo-terminal."""

from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import signal
import struct
import subprocess
import sys
import termios
import time
from collections.abc import Callable, Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DEMO_SCRIPT = ROOT / "examples" / "cli" / "demo-script.json"
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07|\r")


def clean_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment of a user with no config file and no API keys."""
    env = {k: v for k, v in os.environ.items() if not k.endswith(("_API_KEY", "_TOKEN")) and not k.startswith("LLMIST")}
    env.update({"COLUMNS": "100", "NO_COLOR": "1", "LLMIST_CONFIG": os.devnull, "PYTHONUNBUFFERED": "1"})
    env.update(extra or {})
    return env


def llmist(
    *args: str, stdin: str | None = None, cwd: Path | None = None, env: Mapping[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run ``python -m llmist.cli ARGS`` with pipes (not a terminal)."""
    return subprocess.run(
        [sys.executable, "-m", "llmist.cli", *args],
        input=stdin if stdin is not None else "",
        capture_output=True,
        text=True,
        env=clean_env(env),
        cwd=cwd,
        timeout=90,
    )


def one_error_line(done: subprocess.CompletedProcess[str]) -> str:
    """The one line a command that refused its input printed: it exited 2 (a usage or setup
    error) with no traceback."""
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    return lines[0]


def strip_ansi(text: str) -> str:
    """What a person reads: escape sequences and carriage returns removed."""
    return _ANSI.sub("", text)


class Terminal:
    """``llmist`` running under a pseudo-terminal (100x40 unless ``columns`` says); read its screen
    output, type into it."""

    def __init__(
        self, *args: str, cwd: Path | None = None, env: Mapping[str, str] | None = None, columns: int = 100
    ) -> None:
        master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, columns, 0, 0))
        environment = clean_env({"TERM": "xterm-256color", **(env or {})})
        if "NO_COLOR" not in (env or {}):  # a terminal shows colour unless the test asks for NO_COLOR
            environment.pop("NO_COLOR", None)
        environment.pop("COLUMNS", None)  # the terminal's own size applies
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "llmist.cli", *args],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            cwd=cwd,
            env=environment,
            start_new_session=True,
        )
        os.close(slave)
        self.master = master
        self.raw = b""

    @property
    def text(self) -> str:
        """Everything shown so far, without escape sequences."""
        return strip_ansi(self.raw.decode("utf-8", "replace"))

    def _read(self, timeout: float) -> bool:
        ready, _, _ = select.select([self.master], [], [], timeout)
        if not ready:
            return True
        try:
            data = os.read(self.master, 65536)
        except OSError:
            return False
        if not data:
            return False
        self.raw += data
        return True

    def expect(self, what: str | Callable[[str], bool], timeout: float = 30.0) -> str:
        """Read until ``what`` appears on screen (or the predicate holds); fail with the screen if not."""
        check = what if callable(what) else (lambda text: what in text)
        deadline = time.monotonic() + timeout
        while not check(self.text):
            if time.monotonic() > deadline or not self._read(0.1):
                if check(self.text):
                    break
                raise AssertionError(f"did not see {what!r} within {timeout}s; screen:\n{self.text}")
        return self.text

    def type(self, keys: str) -> None:
        """Type ``keys`` (use "\\x03" for Ctrl-C via the terminal)."""
        os.write(self.master, keys.encode())

    def interrupt(self) -> None:
        """Press Ctrl-C: SIGINT to the process group, as the terminal driver does."""
        os.killpg(self.proc.pid, signal.SIGINT)

    def wait(self, timeout: float = 30.0) -> int:
        """Read until the program exits; its exit code."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and self._read(0.1):
            if self.proc.poll() is not None and not select.select([self.master], [], [], 0.05)[0]:
                break
        code = self.proc.wait(timeout=max(0.1, deadline - time.monotonic()))
        os.close(self.master)
        return code
