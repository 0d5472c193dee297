"""``RunCommand``: run a shell command in the sandbox root, with a timeout and limited output."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from typing import Annotated, Any

from pydantic import BaseModel, Field

from llmist.gadgets.base import Gadget, GadgetExample
from llmist.gadgets.builtins._sandbox import Sandbox
from llmist.gadgets.context import ExecutionContext
from llmist.gadgets.errors import GadgetError

__all__ = ["RunCommand"]

_KILL_GRACE_S = 1.0


class RunCommandParams(BaseModel):
    """Parameters of :class:`RunCommand`."""

    command: Annotated[str, Field(description="Shell command line, run with /bin/sh in the sandbox root")]
    timeout_s: Annotated[
        float | None, Field(gt=0, description="Seconds before the command is killed (default: the gadget's)")
    ] = None


class RunCommand(Gadget):
    """Run a shell command in the sandbox root and return its exit code and output.

    The command runs in its own process group; on timeout or cancellation the whole group is
    sent SIGTERM, then SIGKILL after a grace period. Standard input is empty. Note that the
    sandbox root is only the working directory: a command can reach anything the user can,
    which is why each call needs approval.
    """

    description = (
        "Run a shell command (sh -c) in the working directory and return its exit code and "
        "combined stdout/stderr. Long output is cut in the middle."
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
    ) -> None:
        if command_timeout_s <= 0 or max_timeout_s <= 0 or max_output_chars <= 0:
            raise ValueError("command_timeout_s, max_timeout_s and max_output_chars must be positive")
        self.sandbox = Sandbox(root)
        """The command's working directory."""
        self.command_timeout_s = command_timeout_s
        """Default seconds before a command is killed."""
        self.max_timeout_s = max_timeout_s
        """Largest ``timeout_s`` a call may ask for."""
        self.max_output_chars = max_output_chars
        """Output beyond this is cut in the middle (head and tail kept)."""

    def requires_approval(self, parameters: dict[str, Any]) -> str:
        """Every call needs a person's approval: a command can reach anything the user can."""
        return "it runs a shell command"

    async def execute(self, params: RunCommandParams, ctx: ExecutionContext) -> str:
        """Run the command; raise :class:`GadgetError` when it times out."""
        if not params.command.strip():
            raise GadgetError("`command` is empty; give a shell command line such as 'ls -la'")
        timeout = min(params.timeout_s or self.command_timeout_s, self.max_timeout_s)
        proc = await asyncio.create_subprocess_shell(
            params.command,
            cwd=self.sandbox.root,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
            start_new_session=True,
        )
        ctx.signal.add_listener(lambda _reason: _kill_group(proc.pid, signal.SIGKILL))
        output = bytearray()
        reader = asyncio.create_task(_drain(proc, output))
        try:
            await asyncio.wait_for(asyncio.shield(reader), timeout)
            code = await proc.wait()
        except TimeoutError:
            await _terminate(proc)
            reader.cancel()
            text = self._limit(output.decode("utf-8", "replace"))
            raise GadgetError(
                f"The command timed out after {timeout:g} s and was killed: {params.command}\n"
                f"Output before the timeout:\n{text or '(none)'}"
            ) from None
        except asyncio.CancelledError:
            await asyncio.shield(_terminate(proc))
            reader.cancel()
            raise
        text = self._limit(output.decode("utf-8", "replace"))
        return f"$ {params.command}\n{text}{'' if not text or text.endswith(chr(10)) else chr(10)}[exit code {code}]"

    def _limit(self, text: str) -> str:
        limit = self.max_output_chars
        if len(text) <= limit:
            return text
        head, tail = text[: limit // 2], text[-(limit // 2) :]
        return f"{head}\n... [{len(text) - len(head) - len(tail)} characters cut] ...\n{tail}"


async def _drain(proc: asyncio.subprocess.Process, into: bytearray) -> None:
    assert proc.stdout is not None
    while chunk := await proc.stdout.read(65536):
        into += chunk


def _kill_group(pid: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, sig)


async def _terminate(proc: asyncio.subprocess.Process) -> None:
    """SIGTERM the process group, SIGKILL it after a grace period, and reap the shell."""
    _kill_group(proc.pid, signal.SIGTERM)
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(proc.wait(), _KILL_GRACE_S)
    _kill_group(proc.pid, signal.SIGKILL)
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(proc.wait(), _KILL_GRACE_S)
