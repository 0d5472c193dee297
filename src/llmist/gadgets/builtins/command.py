"""``RunCommand``: run a shell command in the sandbox root, with a timeout and limited output."""

from __future__ import annotations

import asyncio
import contextlib
import fnmatch
import os
import signal
from collections.abc import Iterable, Mapping
from typing import Annotated, Any

from pydantic import BaseModel, Field

from llmist._credentials import credential_variables
from llmist._processes import Leftover, Shell, start_shell
from llmist.gadgets.base import Gadget, GadgetExample
from llmist.gadgets.builtins._sandbox import Sandbox
from llmist.gadgets.context import ExecutionContext
from llmist.gadgets.errors import GadgetError

__all__ = ["DEFAULT_MAX_OUTPUT_BYTES", "RunCommand"]

_KILL_GRACE_S = 1.0
"""Seconds between SIGTERM and SIGKILL."""

DEFAULT_MAX_OUTPUT_BYTES = 10 * 1024 * 1024
"""Output a command may write before it is stopped (10 MiB)."""

_KEEP_AT_LEAST = 64 * 1024
"""Bytes of the output's head and of its tail kept at least (more when ``max_output_chars`` asks)."""

_LINGER_S = 0.5
"""After the shell exits, how long the output may still flow before what the command left
running is stopped."""


class RunCommandParams(BaseModel):
    """Parameters of :class:`RunCommand`."""

    command: Annotated[str, Field(description="Shell command line, run with /bin/sh in the sandbox root")]
    timeout_s: Annotated[
        float | None, Field(gt=0, description="Seconds before the command is killed (default: the gadget's)")
    ] = None


class RunCommand(Gadget):
    """Run a shell command in the sandbox root and return its exit code and output.

    The command runs in its own session and process group; on Linux under a launcher that is a
    child subreaper, so that every process it starts stays within reach however it detaches
    (see :mod:`llmist._processes`).
    Its environment is this process's, without llmist's own credentials: the variables the
    providers read their keys from and ``LLMIST_WEB_TOKEN`` (see :meth:`hidden_variables`), and
    any variable ``hide_env`` names. ``env_passthrough`` names variables a command sees anyway.
    Standard input is empty. Output is read as it comes; only its first and last 64 KiB (or
    ``2 × max_output_chars`` bytes) are kept (the rest is counted), and a command that writes
    more than ``max_output_bytes`` is stopped. The call ends when the shell exits: processes
    it left running (``sleep 100 &``, even ``setsid``) are stopped and named in the result. On
    timeout or cancellation every process of the command gets SIGTERM, then SIGKILL after a
    grace period. Note that the sandbox root is only the working directory: a command can
    reach anything the user can, which is why each call needs approval.
    """

    description = (
        "Run a shell command (sh -c) in the working directory and return its exit code and "
        "combined stdout/stderr. Long output is cut in the middle. Processes left running in "
        "the background are stopped when the command ends."
    )
    Params = RunCommandParams
    examples = (GadgetExample({"command": "python3 hello.py"}, output="$ python3 hello.py\nhello\n[exit code 0]"),)

    def __init__(
        self,
        root: str | os.PathLike[str] = ".",
        *,
        command_timeout_s: float = 30.0,
        max_timeout_s: float = 600.0,
        max_output_chars: int = 20_000,
        max_output_bytes: int = DEFAULT_MAX_OUTPUT_BYTES,
        env_passthrough: Iterable[str] = (),
        hide_env: Iterable[str] = (),
    ) -> None:
        if min(command_timeout_s, max_timeout_s, max_output_chars, max_output_bytes) <= 0:
            raise ValueError("command_timeout_s, max_timeout_s, max_output_chars and max_output_bytes must be positive")
        self.env_passthrough = _variable_patterns("env_passthrough", env_passthrough)
        """Variables (names, or patterns such as ``AWS_*``) a command sees even though they are hidden."""
        self.hide_env = _variable_patterns("hide_env", hide_env)
        """More variables (names, or patterns such as ``AWS_*``) a command does not see."""
        self.sandbox = Sandbox(root)
        """The command's working directory."""
        self.command_timeout_s = command_timeout_s
        """Default seconds before a command is killed."""
        self.max_timeout_s = max_timeout_s
        """Largest ``timeout_s`` a call may ask for."""
        self.max_output_chars = max_output_chars
        """Output beyond this is cut in the middle (head and tail kept)."""
        self.max_output_bytes = max_output_bytes
        """A command that writes more output than this is stopped."""

    def hidden_variables(self, environ: Mapping[str, str] | None = None) -> list[str]:
        """The variables of ``environ`` (default: this process's environment) that a command does
        not see, sorted: llmist's credentials and what ``hide_env`` names, unless
        ``env_passthrough`` names them."""
        environ = os.environ if environ is None else environ
        credentials = credential_variables()
        return sorted(
            name
            for name in environ
            if (name in credentials or _matches(name, self.hide_env)) and not _matches(name, self.env_passthrough)
        )

    def environment(self) -> dict[str, str]:
        """The environment a command runs with now: this process's, without :meth:`hidden_variables`."""
        environ = dict(os.environ)
        for name in self.hidden_variables(environ):
            del environ[name]
        return environ

    def requires_approval(self, parameters: dict[str, Any]) -> str:
        """Every call needs a person's approval: a command can reach anything the user can. The
        reason says what of the environment the command sees."""
        hidden = self.hidden_variables()
        passed = sorted(n for n in credential_variables() & os.environ.keys() if _matches(n, self.env_passthrough))
        seen = f"; it sees {', '.join(passed)}" if passed else ""
        if not hidden:
            return f"it runs a shell command, with this process's environment{seen}"
        return f"it runs a shell command, with this process's environment but not {', '.join(hidden)}{seen}"

    async def execute(self, params: RunCommandParams, ctx: ExecutionContext) -> str:
        """Run the command; raise :class:`GadgetError` when it times out or writes too much."""
        if not params.command.strip():
            raise GadgetError("`command` is empty; give a shell command line such as 'ls -la'")
        timeout = min(params.timeout_s or self.command_timeout_s, self.max_timeout_s)
        shell = await start_shell(params.command, cwd=self.sandbox.root, env=self.environment())
        command = _Command(shell)

        def on_abort(_reason: object) -> None:
            shell.kill(signal.SIGKILL)

        ctx.signal.add_listener(on_abort)
        output = _Output(max(2 * self.max_output_chars, _KEEP_AT_LEAST))
        reader = asyncio.create_task(_drain(shell.proc, output, self.max_output_bytes))
        try:
            ended = await command.wait(reader, timeout)
        except asyncio.CancelledError:
            await asyncio.shield(command.stop())
            raise
        finally:
            # Once the command ended its process group id may be reused: an abort later in the
            # run must not signal it.
            ctx.signal.remove_listener(on_abort)
            await asyncio.shield(command.end_output(reader))
        text = output.text(self.max_output_chars)
        if ended == "timeout":
            raise GadgetError(
                f"The command timed out after {timeout:g} s and was killed: {params.command}\n"
                f"Output before the timeout:\n{text or '(none)'}"
            )
        if ended == "output":
            raise GadgetError(
                f"The command was stopped after writing more than {self.max_output_bytes:,} bytes of output "
                f"(RunCommand max_output_bytes): {params.command}\nIts output, cut in the middle:\n{text}"
            )
        lines = [f"$ {params.command}", text.removesuffix("\n") if text else None, f"[exit code {shell.returncode}]"]
        if command.stopped:
            lines.append(_stopped_note(command.stopped))
        return "\n".join(line for line in lines if line is not None)


class _Command:
    """A running command: waits for it, and stops every process it started."""

    def __init__(self, shell: Shell) -> None:
        self.shell = shell
        self.stopped: list[Leftover] = []
        """Processes that were still running when the shell exited, and were stopped."""

    async def wait(self, reader: asyncio.Task[bool], timeout: float) -> str:
        """How the command ended: ``"exit"`` (the shell exited; what it left running is
        stopped), ``"timeout"`` or ``"output"`` (past the byte limit; both stopped)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        shell = asyncio.ensure_future(self.shell.exited())
        try:
            pending: set[asyncio.Future[Any]] = {reader, shell}
            while not shell.done():
                done, pending = await asyncio.wait(
                    pending, timeout=deadline - loop.time(), return_when="FIRST_COMPLETED"
                )
                if not done:
                    await self.stop()
                    return "timeout"
                if reader in done and not reader.result():
                    await self.stop()
                    return "output"
        finally:
            shell.cancel()
        if not reader.done():  # the output may still be flowing, or held open by a background process
            await asyncio.wait((reader,), timeout=_LINGER_S)
        if reader.done() and not reader.result():
            await self.stop()
            return "output"
        self.stopped = await self.stop()
        return "exit"

    async def end_output(self, reader: asyncio.Task[bool]) -> None:
        """Once every process of the command is stopped: read the output pipe to its end, for at
        most a grace period, dropping what comes past the byte limit.

        asyncio closes a subprocess's transport only when the process has exited and its pipe
        has ended. A pipe left open (its reader stopped at the byte limit, or cancelled with
        the run) was closed by the garbage collector instead, perhaps after its event loop had
        closed ("Event loop is closed" printed at exit).
        """
        if not reader.done():  # its writers are gone now: the pipe ends
            await asyncio.wait((reader,), timeout=_KILL_GRACE_S)
        if not reader.done():  # a process out of reach holds the pipe open
            reader.cancel()
            return
        if reader.cancelled() or reader.exception() is not None or reader.result():
            return
        assert self.shell.proc.stdout is not None
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(_read_to_end(self.shell.proc.stdout), _KILL_GRACE_S)

    async def stop(self) -> list[Leftover]:
        """SIGTERM every process of the command, SIGKILL what is left after a grace period, and
        reap the shell (and its launcher); the processes that were still running besides the shell."""
        shell = self.shell
        reached = shell.kill(signal.SIGTERM)
        if reached or shell.returncode is None:
            loop = asyncio.get_running_loop()
            until = loop.time() + _KILL_GRACE_S
            while loop.time() < until and (shell.returncode is None or shell.leftovers()):
                if shell.returncode is None:
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(shell.exited(), 0.05)
                else:
                    await asyncio.sleep(0.05)
            shell.kill(signal.SIGKILL)
        await shell.release(_KILL_GRACE_S)
        return reached


async def _read_to_end(stream: asyncio.StreamReader) -> None:
    """Read ``stream`` to its end, dropping what it reads."""
    while await stream.read(65536):
        pass


def _variable_patterns(option: str, values: Iterable[str]) -> tuple[str, ...]:
    """``values`` checked as environment variable names or ``fnmatch`` patterns."""
    if isinstance(values, (str, bytes)):
        raise TypeError(f"RunCommand {option} takes a list of variable names, not one string: [{values!r}]")
    checked = []
    for value in values:
        if not isinstance(value, str) or not value or "=" in value or "\0" in value:
            raise ValueError(
                f"RunCommand {option}: {value!r} is not an environment variable name "
                "(expected a non-empty name without '=' or NUL, such as 'OPENAI_API_KEY' or 'AWS_*')"
            )
        checked.append(value)
    return tuple(checked)


def _matches(name: str, patterns: tuple[str, ...]) -> bool:
    # Case-sensitive, as POSIX variable names are.
    return any(fnmatch.fnmatchcase(name, pattern) for pattern in patterns)


def _stopped_note(stopped: list[Leftover]) -> str:
    n = len(stopped)
    names = ", ".join(sorted({p.name for p in stopped}))
    if n == 1:
        return f"[1 process it started was still running and was stopped ({names})]"
    return f"[{n} processes it started were still running and were stopped ({names})]"


class _Output:
    """What a command wrote: its first and last ``keep`` bytes, and how many bytes in all."""

    def __init__(self, keep: int) -> None:
        self.keep = keep
        self.head = bytearray()
        self.tail = bytearray()
        self.total = 0

    def add(self, chunk: bytes) -> None:
        self.total += len(chunk)
        room = self.keep - len(self.head)
        if room > 0:
            self.head += chunk[:room]
            chunk = chunk[room:]
        if chunk:
            self.tail += chunk
            if len(self.tail) > self.keep:
                del self.tail[: len(self.tail) - self.keep]

    def text(self, max_chars: int) -> str:
        """The output as text, at most ``max_chars`` characters: cut in the middle, saying how
        much was left out (in characters when all of it was kept, else in bytes)."""
        if self.total == len(self.head) + len(self.tail):
            whole = (self.head + self.tail).decode("utf-8", "replace")
            if len(whole) <= max_chars:
                return whole
            head, tail = whole[: max_chars // 2], whole[-(max_chars // 2) :]
            return f"{head}\n... [{len(whole) - len(head) - len(tail)} characters cut] ...\n{tail}"
        head = self.head.decode("utf-8", "replace")[: max_chars // 2]
        tail = self.tail.decode("utf-8", "replace")[-(max_chars // 2) :]
        shown = len(head.encode("utf-8", "replace")) + len(tail.encode("utf-8", "replace"))
        return f"{head}\n... [{self.total - shown:,} bytes cut] ...\n{tail}"


async def _drain(proc: asyncio.subprocess.Process, into: _Output, limit: int) -> bool:
    """Read the output to its end (``True``), or until more than ``limit`` bytes came (``False``)."""
    assert proc.stdout is not None
    while chunk := await proc.stdout.read(65536):
        into.add(chunk)
        if into.total > limit:
            return False
    return True
