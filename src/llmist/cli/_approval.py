"""Asking a person, in the terminal, before a gadget that writes or runs commands does so
(and answering the questions gadgets ask with ``HumanInputRequired``).

:class:`TerminalApprover` is a ``before_gadget`` controller of the agent layer: it returns
``None`` to let a call run, or ``SkipGadget`` with a message for the model when the person
declines (or when no one can be asked because standard input is not a terminal).
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
import threading
from collections.abc import Callable, Iterable
from typing import TextIO

from rich.console import Console
from rich.text import Text

from llmist._text import visible
from llmist.agent import GadgetContext, SkipGadget
from llmist.gadgets import Gadget, approval_reason

__all__ = ["TerminalApprover"]

_CHOICES = "[y]es, [n]o, [a]lways for this gadget, [A]ll from now on"


class TerminalApprover:
    """Asks before each call of ``gadgets`` that needs approval (:func:`~llmist.gadgets.approval_reason`).

    Args:
        console: Where the question is shown.
        gadgets: The gadgets whose calls may need approval.
        approve_all: Approve everything without asking (``--yes``).
        stdin: Where answers are read; when it is not a terminal nobody is asked and calls are declined.
        pause / resume: Called around the question (to stop and restart a live display).
    """

    def __init__(
        self,
        console: Console,
        gadgets: Iterable[Gadget],
        *,
        approve_all: bool = False,
        stdin: TextIO | None = None,
        pause: Callable[[], None] = lambda: None,
        resume: Callable[[], None] = lambda: None,
    ) -> None:
        self.console = console
        self.gadgets = {g.name: g for g in gadgets}
        self.approve_all = approve_all
        self.stdin = stdin if stdin is not None else sys.stdin
        self.pause = pause
        self.resume = resume
        self.always: set[str] = set()
        """Gadgets the person approved for the rest of the run."""
        self._lock = asyncio.Lock()

    async def __call__(self, ctx: GadgetContext) -> SkipGadget | None:
        """The controller: ``None`` runs the call, ``SkipGadget`` declines it."""
        name = ctx.gadget_name
        gadget = self.gadgets.get(name)
        if gadget is None or self.approve_all or name in self.always:
            return None
        reason = approval_reason(gadget, dict(ctx.parameters))
        if reason is None:
            return None
        if not self.stdin.isatty():
            self.console.print(
                Text.assemble(
                    ("  ✗ ", "red bold"),
                    (visible(name), "bold"),
                    " declined: it needs approval; run with --yes to allow it",
                )
            )
            return SkipGadget(
                f"Not run: {name} needs the user's approval, and nobody could be asked (the session is not "
                f"interactive). Tell the user to re-run with --yes if this call is wanted."
            )
        async with self._lock:
            if self.approve_all or name in self.always:
                return None
            self.pause()
            try:
                answer = await self._ask(ctx, reason)
            finally:
                self.resume()
        if answer == "A":
            self.approve_all = True
            return None
        answer = answer.lower()
        if answer in ("y", "yes"):
            return None
        if answer in ("a", "always"):
            self.always.add(name)
            return None
        return SkipGadget(f"Not run: the user declined this {name} call. Ask them or try another way.")

    async def answer(self, question: str) -> str:
        """Answer a gadget's ``HumanInputRequired`` question by asking the person at the terminal."""
        if not self.stdin.isatty():
            raise RuntimeError(f"a gadget asked {question!r}, but nobody can answer (the session is not interactive)")
        async with self._lock:
            self.pause()
            try:
                self.console.print(Text.assemble(("? ", "bold yellow"), visible(question)))
                self.console.print(Text("  answer: ", style="yellow"), end="")
                return (await self._read_answer()).strip()
            finally:
                self.resume()

    async def _ask(self, ctx: GadgetContext, reason: str) -> str:
        """Show the call (every model-chosen string with its control characters made visible, so
        that what the person approves is what runs) and why it needs approval, and read the answer."""
        name, call_id = visible(ctx.gadget_name), visible(ctx.invocation_id)
        self.console.print(
            Text.assemble(
                ("? ", "bold yellow"),
                "Allow ",
                (name, "bold"),
                (f" ({call_id})", "dim"),
                f"? ({visible(reason)})",
            )
        )
        for key, value in ctx.parameters.items():
            shown = visible(value if isinstance(value, str) else repr(value))
            lines = shown.split("\n")
            more = f" … (+{len(lines) - 8} lines)" if len(lines) > 8 else ""
            first, *rest = lines[:8]
            self.console.print(Text.assemble(("    " + visible(key) + ": ", "bold"), first))
            for line in rest:
                self.console.print("      " + line, markup=False, highlight=False)
            if more:
                self.console.print(Text(more, style="dim"))
        self.console.print(Text(f"  {_CHOICES}: ", style="yellow"), end="")
        line = await self._read_answer()
        return line.strip() or "n"

    async def _read_answer(self) -> str:
        """The person's answer, on the line of the question just printed."""
        try:
            return await _read_line(self.stdin)
        except asyncio.CancelledError:
            # The run was cancelled with the question open: what is printed next (the held lines,
            # the summary) starts on a line of its own, not after the unanswered question.
            self.console.print()
            raise


async def _read_line(stream: TextIO) -> str:
    """Read one line in a daemon thread, so a cancelled run never waits on the terminal."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[str] = loop.create_future()

    def deliver(text: str) -> None:
        if not future.done():
            future.set_result(text)

    def read() -> None:
        try:
            text = stream.readline()
        except (OSError, ValueError):
            text = ""
        with contextlib.suppress(RuntimeError):  # the loop is gone: the run ended meanwhile
            loop.call_soon_threadsafe(deliver, text)

    threading.Thread(target=read, name="llmist-approval", daemon=True).start()
    return await future
