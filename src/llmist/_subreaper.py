"""A launcher that keeps every process of one program within reach (Linux).

``llmist._processes`` runs this file (``python -I -S _subreaper.py STATUS_FD LC_CTYPE PROGRAM
[ARGS...]``) in place of the program: ``start_shell`` for a shell command (``/bin/sh -c
COMMAND``), ``start_program`` for a long-lived server (the local model server of
``llmist.evals.local``). It makes itself a *child subreaper* (``prctl(PR_SET_CHILD_SUBREAPER)``),
then starts the program (searched on ``PATH``) with empty input. A process whose parent dies is
re-parented to its nearest living subreaper ancestor, so every process the program starts stays a
descendant of this one, whatever it does: ``setsid``, dropping the marker variable (``env -i``), a
double fork. Nothing a process can change takes it out of that tree.

The launcher:

- reports on ``STATUS_FD``, a line each: ``pid N`` once the program started, then ``exit N``
  when it exits (``os.waitstatus_to_exitcode``, so ``-9`` for SIGKILL; ``127`` alone when it
  could not start), and keeps reaping whatever is re-parented to it;
- exits as soon as it has no child left;
- ignores SIGTERM, SIGHUP and SIGINT (llmist signals the whole process group, launcher included,
  and must not orphan the tree by killing its root first); the program gets them back at default;
- when its standard input ends (llmist is done with the program, or was killed itself), SIGKILLs
  every descendant until none is left, then exits. That is also what stops the program's
  processes when the process that started it dies in the middle, even by SIGKILL: the kernel
  closes the pipe's write end with the process.

With :data:`PARENT` in place of ``STATUS_FD`` (an MCP server over stdio, whose input and output
are the protocol's), the program keeps the launcher's input and reports nothing; the lifeline is
the launcher's parent: when that process ends, or when the program exits, every descendant is
SIGKILLed, so neither the server nor a helper it started outlives it.

Standard library only, and no import of ``llmist``: it starts as a script, not as a module of
the package, so that a command does not wait for the package to import. For the same reason it
imports nothing it can do without (no ``pathlib``, ``typing``, ``threading``): every command
pays for the launcher's start. ``llmist._processes``
imports :func:`process_table` and :func:`descendants` from here, so ``/proc`` is read one way.
"""

from __future__ import annotations

import _thread
import os
import signal
import sys
import time
from collections.abc import Callable, Iterable, Mapping

__all__ = ["LC_CTYPE_UNSET", "PARENT", "ProcessInfo", "descendants", "process_table"]

PARENT = "parent"
"""The ``STATUS_FD`` argument that says: no report, the program keeps this process's input, and
the lifeline is this process's parent (see the module)."""

LC_CTYPE_UNSET = "-"
"""The ``LC_CTYPE`` argument that says the variable was not set. Python's locale coercion may
set it in the launcher's own environment; the program gets the caller's value back."""

_PR_SET_CHILD_SUBREAPER = 36
_FINISH_WITHIN_S = 5.0
"""Once its input ends, how long the launcher keeps killing before it gives up (a process in
uninterruptible sleep cannot die until its I/O ends)."""

_IGNORED = (signal.SIGTERM, signal.SIGHUP, signal.SIGINT)
_RESET = (*_IGNORED, signal.SIGPIPE, signal.SIGXFSZ)
"""Signals the program gets back at their default: the ones ignored here, and those Python ignores
at start (``subprocess`` restores them too)."""


class ProcessInfo:
    """One line of :func:`process_table`."""

    __slots__ = ("name", "pgrp", "ppid", "state")

    def __init__(self, name: str, state: str, ppid: int, pgrp: int) -> None:
        self.name = name
        """Its command name (``/proc/PID/comm``, as ``stat`` shows it)."""
        self.state = state
        """``R``, ``S``, ``Z``..."""
        self.ppid = ppid
        """Its parent."""
        self.pgrp = pgrp
        """Its process group."""


def process_table() -> dict[int, ProcessInfo]:
    """Every process ``/proc`` shows, by pid (empty where there is no ``/proc``)."""
    table: dict[int, ProcessInfo] = {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        return table
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="utf-8", errors="replace") as file:
                stat = file.read()
            # The name sits in parentheses and may itself hold spaces and ")": cut at the last one.
            name, rest = stat[stat.index("(") + 1 : stat.rindex(")")], stat[stat.rindex(")") + 2 :].split()
            table[int(entry)] = ProcessInfo(name, rest[0], int(rest[1]), int(rest[2]))
        except (OSError, ValueError, IndexError):  # gone meanwhile
            continue
    return table


def descendants(table: Mapping[int, ProcessInfo], root: int) -> set[int]:
    """The pids below ``root`` in ``table``'s process tree (``root`` excluded)."""
    children: dict[int, list[int]] = {}
    for pid, info in table.items():
        children.setdefault(info.ppid, []).append(pid)
    found: set[int] = set()
    todo = [root]
    while todo:
        for child in children.get(todo.pop(), ()):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def _kill_all(pids: Iterable[int]) -> None:
    for pid in pids:
        try:  # noqa: SIM105 (not contextlib.suppress: each import delays every command)
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


def _input_ends() -> None:
    try:
        while os.read(0, 4096):
            pass
    except OSError:
        pass


def _parent_ends() -> None:
    parent = os.getppid()
    try:
        pidfd = os.pidfd_open(parent)
    except (AttributeError, OSError):  # no pidfd here (Linux before 5.3): look now and then
        pidfd = -1
    # Checked after the open: a parent that died before it is already replaced (re-parented).
    if os.getppid() != parent:
        return
    if pidfd >= 0:
        import select

        select.select([pidfd], [], [])  # readable once the process has ended
        return
    while os.getppid() == parent:
        time.sleep(0.1)


def _now() -> None:
    pass


def _finish_when(ends: Callable[[], None], no_children: list[bool]) -> None:
    """Wait for ``ends()`` to return, then SIGKILL every descendant until none is left."""
    ends()
    own = os.getpid()
    deadline = time.monotonic() + _FINISH_WITHIN_S
    # Again and again: a process may fork between the look and the kill, and its child is
    # re-parented here when it dies.
    while not no_children and time.monotonic() < deadline:
        _kill_all(descendants(process_table(), own))
        time.sleep(0.02)
    os._exit(0)


def _report(status_fd: int, line: str, *, last: bool = False) -> None:
    try:
        os.write(status_fd, f"{line}\n".encode())
        if last:
            os.close(status_fd)
    except OSError:  # llmist stopped listening: nothing to tell
        pass


def _spawn(program: list[str], lc_ctype: str, status_fd: int, devnull: int) -> int:
    """Start ``program`` (its pid); on failure, say why on the output, report 127 and exit."""
    env = dict(os.environ)
    env.pop("LC_CTYPE", None)
    if lc_ctype != LC_CTYPE_UNSET:
        env["LC_CTYPE"] = lc_ctype.removeprefix("=")
    # Reporting, the program gets empty input; with PARENT it keeps ours, the protocol's.
    redirect = [(os.POSIX_SPAWN_DUP2, devnull, 0), (os.POSIX_SPAWN_CLOSE, status_fd)] if status_fd >= 0 else []
    try:
        return os.posix_spawnp(program[0], program, env, file_actions=redirect, setsigdef=_RESET)
    except OSError as error:  # on its output: a server's log, a command's output, MCP's errlog
        print(f"llmist: cannot start {program[0]}: {error}", file=sys.stderr, flush=True)
        if status_fd >= 0:
            _report(status_fd, "exit 127", last=True)
        os._exit(127)


def main(argv: list[str]) -> int:
    """Run ``argv[3:]`` (the program and its arguments) under this process as a child subreaper;
    see the module. Exits the process when the program is over, with 127 when it cannot start."""
    status_fd, lc_ctype, program = -1 if argv[1] == PARENT else int(argv[1]), argv[2], argv[3:]
    # If this fails (a Python built without ctypes, a kernel before 3.4, a seccomp filter), llmist
    # still finds the command's processes by their process group and marker, as it does where
    # there is no subreaper. Imported here: llmist._processes imports this module too.
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    except (ImportError, OSError, AttributeError):
        pass
    for sig in _IGNORED:
        signal.signal(sig, signal.SIG_IGN)
    devnull = os.open(os.devnull, os.O_RDWR)
    child = _spawn(program, lc_ctype, status_fd, devnull)
    # The output pipe must end when the program's own processes close it, not when this one does.
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    no_children: list[bool] = []  # non-empty once the program is over
    if status_fd >= 0:
        _report(status_fd, f"pid {child}")
        _thread.start_new_thread(_finish_when, (_input_ends, no_children))
    else:
        os.dup2(devnull, 0)  # the program's now: its input ends when llmist closes it, not when we do
        _thread.start_new_thread(_finish_when, (_parent_ends, no_children))
    while True:
        try:
            pid, status = os.waitpid(-1, 0)
        except ChildProcessError:  # no child, so no descendant: the program is over
            break
        if pid == child and status_fd >= 0:
            _report(status_fd, f"exit {os.waitstatus_to_exitcode(status)}", last=True)
        elif pid == child:  # an MCP server's helpers end with it, as a closed connection expects
            _thread.start_new_thread(_finish_when, (_now, no_children))
    no_children.append(True)
    os._exit(0)  # nothing to flush or finalize: skip the interpreter's shutdown, the command waits for it


if __name__ == "__main__":
    sys.exit(main(sys.argv))
