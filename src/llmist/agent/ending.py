"""How the model is told to end its task: by calling the gadgets that end the run
(:attr:`~llmist.gadgets.Gadget.ends_run`) when there are some, else by answering in plain text.
The system prompt and the loop's notes say it the same way."""

from __future__ import annotations

from collections.abc import Iterable

from llmist.gadgets import Gadget

__all__ = ["ending_names", "when_done"]


def ending_names(gadgets: Iterable[Gadget]) -> str:
    """The names of the gadgets that end the run, as the prompt says them ("finish", "finish or
    done"); "" when none does."""
    return " or ".join(g.name for g in gadgets if g.ends_run)


def when_done(gadgets: Iterable[Gadget], otherwise: str) -> str:
    """What the model does once the task is done: "end it by calling finish" when gadgets end
    the run, else ``otherwise`` ("answer in plain text")."""
    enders = ending_names(gadgets)
    return f"end it by calling {enders}" if enders else otherwise
