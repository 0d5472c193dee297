"""Every process a command started, found again to be stopped: its process tree, its process group,
and what carries its marker.

A command (``RunCommand``'s shell, an MCP server over stdio) runs in a new session and process
group, and with a marker in its environment (:data:`MARKER`, a fresh value per command) that its
descendants inherit. ``killpg`` reaches the group; a process that left it (``setsid``) and kept
the marker is found through ``/proc`` (Linux).

A process can shed both (``env -i setsid ...``), but not its ancestry. On Linux,
:func:`start_shell` runs the shell under a launcher that is a *child subreaper*
(:mod:`llmist._subreaper`): every process the command starts stays in the launcher's process tree
however it detaches, and :class:`Shell` finds them there. Elsewhere (macOS) there is no
subreaper and no ``/proc``: only the process group is reached, and a process that left it
(``setsid``, a daemon's double fork) keeps running.

:func:`start_program` runs a long-lived program (the local model server of
:mod:`llmist.evals.local`) under the same launcher, for its other half: the launcher SIGKILLs
everything below it when its standard input ends, and that pipe's write end is held by this
process alone, so the program never outlives it, even when it is SIGKILLed. Elsewhere the program
is a plain child, and a SIGKILL of this process leaves it running.

:func:`under_launcher` is the command for a program that speaks over its own input and output (an
MCP server over stdio): the launcher passes them through, and its lifeline is this process
itself; when it ends, or when the program exits, everything the program started is SIGKILLed.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import shutil
import signal
import subprocess
import sys
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from llmist._subreaper import LC_CTYPE_UNSET, PARENT, descendants, process_table

__all__ = [
    "MARKER",
    "Leftover",
    "Program",
    "Shell",
    "exited",
    "kill",
    "leftovers",
    "new_marker",
    "start_program",
    "start_shell",
    "under_launcher",
]

MARKER = "LLMIST_COMMAND_ID"
"""The environment variable that marks a command's processes."""

_LAUNCHER = Path(__file__).with_name("_subreaper.py")
# Imported from its own folder, put last on the path (the standard library comes first): not run
# as a script, which Python would compile at every start, and not as ``llmist._subreaper``,
# which would import the whole package first.
_RUN_LAUNCHER = (
    f"import sys; sys.path.append({str(_LAUNCHER.parent)!r}); from _subreaper import main; sys.exit(main(sys.argv))"
)


@dataclass(frozen=True, slots=True)
class Leftover:
    """A live process the command started."""

    pid: int
    name: str
    """Its command name (``/proc/PID/comm``)."""


def new_marker() -> str:
    """A fresh value of :data:`MARKER` for one command."""
    return secrets.token_hex(12)


def leftovers(group: int | None, marker: str, *, root: int | None = None) -> list[Leftover]:
    """Live processes in process group ``group`` (``None``: no group), below ``root`` in the
    process tree (``None``: no tree), or whose environment holds ``MARKER=marker``; zombies,
    ``root`` and this process excluded. ``[]`` where ``/proc`` is missing."""
    table = process_table()
    below = descendants(table, root) if root is not None else set()
    needle = f"{MARKER}={marker}".encode()
    own = os.getpid()
    found: list[Leftover] = []
    for pid, info in table.items():
        if pid in (own, root) or info.state == "Z":
            continue
        if info.pgrp != group and pid not in below:
            try:
                if needle not in Path(f"/proc/{pid}/environ").read_bytes().split(b"\0"):
                    continue
            except OSError:  # gone meanwhile, or not ours to read
                continue
        found.append(Leftover(pid, info.name))
    return found


def kill(group: int | None, marker: str, sig: signal.Signals, *, root: int | None = None) -> list[Leftover]:
    """Send ``sig`` to process group ``group`` (``None``: no group) and to every other process of
    the command (see :func:`leftovers`); the processes it reached (beyond the group, only where
    ``/proc`` exists)."""
    reached = leftovers(group, marker, root=root)  # first: a process that the signal ends is gone from /proc
    if group is not None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(group, sig)
    for process in reached:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(process.pid, sig)
    return reached


async def exited(proc: asyncio.subprocess.Process) -> None:
    """Until ``proc`` has exited. Not ``proc.wait()``: before Python 3.12 it also waits for the
    output pipe to close, which a background process may hold open for ever. A pidfd says when
    the process ends (Linux); elsewhere its return code is polled."""
    if proc.returncode is not None:
        return
    loop = asyncio.get_running_loop()
    try:
        pidfd = os.pidfd_open(proc.pid)
    except (AttributeError, OSError):  # no pidfd here, or the process is gone already
        pidfd = -1
    if pidfd >= 0:
        ended: asyncio.Future[None] = loop.create_future()

        def readable() -> None:
            if not ended.done():
                ended.set_result(None)

        loop.add_reader(pidfd, readable)
        try:
            if proc.returncode is None:
                await ended
        finally:
            loop.remove_reader(pidfd)
            os.close(pidfd)
    # The child watcher reaps it and sets the code right after the pidfd says it ended: a short
    # wait then (a command pays it each time), a longer one while polling without a pidfd.
    while proc.returncode is None:
        await asyncio.sleep(0.001 if pidfd >= 0 else 0.01)


def _subreaper_available() -> bool:
    # A frozen application's sys.executable is the application, not a Python that takes -c.
    frozen = getattr(sys, "frozen", False)
    return sys.platform.startswith("linux") and bool(sys.executable) and not frozen and _LAUNCHER.is_file()


def _launcher_argv(status_fd: int | str, env: Mapping[str, str], program: Sequence[str]) -> list[str]:
    """The command that runs ``program`` under the launcher, reporting on ``status_fd`` (or
    :data:`~llmist._subreaper.PARENT`)."""
    lc_ctype = "=" + env["LC_CTYPE"] if "LC_CTYPE" in env else LC_CTYPE_UNSET
    return [sys.executable, "-I", "-S", "-c", _RUN_LAUNCHER, str(status_fd), lc_ctype, *program]


def _parse_report(data: bytes | bytearray) -> tuple[int | None, int | None]:
    """The program's pid and exit status in what the launcher wrote (``None``: not said)."""
    found: dict[bytes, int] = {}
    for line in data.split(b"\n")[: data.count(b"\n")]:  # complete lines only
        key, _, value = line.partition(b" ")
        with contextlib.suppress(ValueError):
            found[bytes(key)] = int(value)
    return found.get(b"pid"), found.get(b"exit")


async def start_shell(command: str, *, cwd: str | os.PathLike[str], env: Mapping[str, str]) -> Shell:
    """Start ``sh -c command`` in ``cwd`` with environment ``env`` (plus a fresh :data:`MARKER`),
    in a new session and process group, with empty input and its stdout and stderr on one pipe
    (``Shell.proc.stdout``); on Linux under a child subreaper (see the module)."""
    marker = new_marker()
    env = {**env, MARKER: marker}
    if not _subreaper_available():
        proc = await asyncio.create_subprocess_shell(
            command,
            cwd=cwd,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
            start_new_session=True,
            env=env,
        )
        return Shell(proc, marker, None)
    read_end, write_end = os.pipe()
    try:
        proc = await asyncio.create_subprocess_exec(
            *_launcher_argv(write_end, env, ["/bin/sh", "-c", command]),
            cwd=cwd,
            # The launcher's input stays open while llmist needs it; its end tells the launcher
            # to stop everything (the shell itself reads /dev/null).
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
            start_new_session=True,
            env=env,
            pass_fds=(write_end,),
        )
    except BaseException:
        os.close(read_end)
        raise
    finally:
        os.close(write_end)
    return Shell(proc, marker, _Status(read_end))


class _Status:
    """The launcher's report of the shell's exit status, read from a pipe without blocking."""

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._loop = asyncio.get_running_loop()
        self._data = bytearray()
        self.future: asyncio.Future[int | None] = self._loop.create_future()
        """The shell's exit status; ``None`` when the launcher ended without telling it."""
        os.set_blocking(fd, False)
        self._loop.add_reader(fd, self._readable)

    def _readable(self) -> None:
        try:
            chunk = os.read(self._fd, 64)
        except BlockingIOError:
            return
        except OSError:
            chunk = b""
        self._data += chunk
        code = _parse_report(self._data)[1]
        if chunk and code is None:
            return
        if not self.future.done():
            self.future.set_result(code)  # None: ended without a status
        self._stop_reading()

    def _stop_reading(self) -> None:
        if self._fd >= 0:
            self._loop.remove_reader(self._fd)
            os.close(self._fd)
            self._fd = -1

    def close(self) -> None:
        """Stop reading (idempotent); an unanswered :attr:`future` answers ``None``."""
        if self._fd >= 0 and not self.future.done():
            self._readable()  # a status written but not read yet still counts
        self._stop_reading()
        if not self.future.done():
            self.future.set_result(None)


class Shell:
    """A command :func:`start_shell` started: when its shell exits, with which status, and every
    process it started, to be signalled."""

    def __init__(self, proc: asyncio.subprocess.Process, marker: str, status: _Status | None) -> None:
        self.proc = proc
        """The process started: the launcher (Linux), else the shell itself."""
        self.marker = marker
        """This command's value of :data:`MARKER`."""
        self._status = status

    @property
    def returncode(self) -> int | None:
        """The shell's exit status (``-N``: killed by signal N), ``None`` while it runs."""
        if self._status is None:
            return self.proc.returncode
        if self._status.future.done():
            code = self._status.future.result()
            return code if code is not None else self.proc.returncode
        return None

    async def exited(self) -> None:
        """Until the shell has exited (the processes it left may still run)."""
        if self._status is None:
            await exited(self.proc)
            return
        # Shielded: a caller's timeout must not cancel the one future every caller shares.
        if await asyncio.shield(self._status.future) is None:
            await exited(self.proc)

    def leftovers(self) -> list[Leftover]:
        """Live processes of the command (the launcher excluded)."""
        if self._status is None:
            return leftovers(self.proc.pid, self.marker)
        if self.proc.returncode is None:
            # Everything the command started is below the launcher; its group and marker too.
            return leftovers(None, self.marker, root=self.proc.pid)
        return leftovers(self.proc.pid, self.marker)  # the launcher is gone (killed): what is left

    def kill(self, sig: signal.Signals) -> list[Leftover]:
        """Send ``sig`` to every process of the command but the launcher, which must outlive them
        to keep what they orphan; the processes reached."""
        if self._status is None:
            return kill(self.proc.pid, self.marker, sig)
        if self.proc.returncode is None:
            return kill(None, self.marker, sig, root=self.proc.pid)
        return kill(self.proc.pid, self.marker, sig)

    async def release(self, grace_s: float) -> None:
        """Once the command's processes were told to stop: let the launcher SIGKILL what is left
        and exit (it ends when its input does), then wait for it, at most ``grace_s`` seconds
        before it is killed too. Without a launcher, wait as long for the shell. Idempotent."""
        if self._status is not None and self.proc.stdin is not None:
            self.proc.stdin.close()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(exited(self.proc), grace_s)
        if self.proc.returncode is None and self._status is not None:
            kill(self.proc.pid, self.marker, signal.SIGKILL)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(exited(self.proc), grace_s)
        if self._status is not None:
            self._status.close()


def under_launcher(argv: Sequence[str], env: Mapping[str, str]) -> list[str]:
    """The command that runs ``argv`` with environment ``env`` under the launcher, keeping its
    input and output (see the module); ``argv`` itself where there is no launcher, or where
    ``argv[0]`` is not found, so that starting it fails as it would have, with its own error."""
    path = env.get("PATH", os.environ.get("PATH", os.defpath))
    if not _subreaper_available() or shutil.which(argv[0], path=path) is None:
        return list(argv)
    return _launcher_argv(PARENT, env, argv)


def start_program(argv: Sequence[str], *, output: IO[bytes], env: Mapping[str, str] | None = None) -> Program:
    """Start ``argv`` (searched on ``PATH``) with its stdout and stderr on ``output`` and
    environment ``env`` (``None``: this process's). On Linux it runs under the launcher with empty
    input, and it and everything it starts end when :meth:`Program.release` is called or this
    process ends, however it ends (SIGKILL included). Elsewhere it is a plain child with this
    process's input, which a SIGKILL of this process leaves running. Returns once it started."""
    if not _subreaper_available():
        proc = subprocess.Popen(
            list(argv), stdout=output, stderr=subprocess.STDOUT, env=None if env is None else dict(env)
        )
        return Program(argv, proc, None)
    read_end, write_end = os.pipe()
    try:
        proc = subprocess.Popen(
            _launcher_argv(write_end, os.environ if env is None else env, argv),
            # The launcher's input is the lifeline: only this process holds its write end (Popen
            # closes it in the other children it starts), so the kernel closes it when this
            # process dies, and the launcher stops everything.
            stdin=subprocess.PIPE,
            stdout=output,
            stderr=subprocess.STDOUT,
            env=None if env is None else dict(env),
            pass_fds=(write_end,),
        )
    except BaseException:
        os.close(read_end)
        raise
    finally:
        os.close(write_end)
    program = Program(argv, proc, read_end)
    program._spawned.wait()  # the launcher's first line, a few tens of milliseconds away
    return program


class Program:
    """A program :func:`start_program` started: its pid, its exit status, signals to it, and its
    end. Shaped like ``subprocess.Popen``, whose ``poll()`` would tell the launcher's status."""

    def __init__(self, argv: Sequence[str], proc: subprocess.Popen[bytes], status_fd: int | None) -> None:
        self.proc = proc
        """The process started: the launcher (Linux), else the program itself."""
        self.pid = proc.pid
        """The program's process id (the launcher's when it could not start the program)."""
        self._argv = list(argv)
        self._code: int | None = None
        self._spawned = threading.Event()
        self._ended = threading.Event()
        self._launched = status_fd is not None
        if status_fd is not None:
            reader = threading.Thread(target=self._read, args=(status_fd,), name=f"llmist-launcher-{proc.pid}")
            reader.daemon = True
            reader.start()

    def _read(self, fd: int) -> None:
        """Read the launcher's report until it ends (a thread: ``poll`` and ``wait`` never read)."""
        data = b""
        try:
            while chunk := os.read(fd, 64):
                data += chunk
                pid, self._code = _parse_report(data)
                if pid is not None:
                    self.pid = pid
                    self._spawned.set()
        except OSError:
            pass
        finally:
            os.close(fd)
        if self._code is None:  # the launcher died without a word (killed): its own status
            self._code = self.proc.wait()
        self._spawned.set()
        self._ended.set()

    def poll(self) -> int | None:
        """The program's exit status (``-N``: killed by signal N), ``None`` while it runs."""
        if not self._launched:
            return self.proc.poll()
        return self._code if self._ended.is_set() else None

    def wait(self, timeout: float | None = None) -> int:
        """Until the program exits, at most ``timeout`` seconds (then ``subprocess.TimeoutExpired``);
        its exit status."""
        if not self._launched:
            return self.proc.wait(timeout)
        if not self._ended.wait(timeout) or self._code is None:
            raise subprocess.TimeoutExpired(self._argv, timeout or 0.0)
        return self._code

    def send_signal(self, sig: signal.Signals) -> None:
        """Send ``sig`` to the program (not to what it started) while it runs."""
        if not self._launched:
            self.proc.send_signal(sig)
            return
        # The launcher reaps the program just before it reports the exit: in between, the pid
        # could in theory be reused, as it can for any process not our own child.
        if self.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, sig)

    def release(self, grace_s: float = 5.0) -> None:
        """End the program and everything it started: close the launcher's input (it SIGKILLs what
        is left, then exits) and wait for it, at most ``grace_s`` seconds before it is killed too.
        Nothing to do without a launcher. Idempotent."""
        if not self._launched:
            return
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        try:
            self.proc.wait(grace_s)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self._ended.wait()
