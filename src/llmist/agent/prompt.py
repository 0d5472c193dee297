"""The system prompt: teaches the active call syntax and lists the gadgets.

Kept tight (every token is paid on every call). Users replace the preamble with ``system=``
or add to it with ``system_extra=``; the syntax section and the gadget list are always there
when the agent has gadgets.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, TypeAlias

from llmist.gadgets import Gadget, render_gadget

__all__ = ["DEFAULT_PREAMBLE", "Markers", "Syntax", "estimate_prompt_tokens", "render_system_prompt"]

Syntax: TypeAlias = Literal["block", "emoji"]
"""The call syntax a model writes: ``"block"`` (``!!!GADGET_START:``) or ``"emoji"`` (``🛠️[``)."""

DEFAULT_PREAMBLE = "You are a helpful assistant that completes tasks by calling gadgets (tools)."


@dataclass(frozen=True, slots=True)
class Markers:
    """The three block-format markers (configurable, as the spec allows)."""

    start: str = "!!!GADGET_START:"
    end: str = "!!!GADGET_END"
    arg: str = "!!!ARG:"


def _block_syntax(m: Markers) -> str:
    s, e, a = m.start, m.end, m.arg
    return f"""\
# How to call a gadget
Write one block per call:
{s}GadgetName
{a}param
value
{e}

- A value is everything up to the next `{a}` or `{e}`, written as is: no quotes, no escaping, \
several lines allowed.
- Nested fields and lists use paths: `{a}config/timeout`, `{a}items/0`, `{a}items/1/name`.
- Several blocks in one answer run in parallel. To use a result in another call, give the first \
call an id and list it after the second call's id; the second waits for it:
{s}Fetch:page
{a}url
https://example.com
{e}
{s}Summarize:sum:page
{a}style
short
{e}
(`Fetch` and `Summarize` only show the form; call only the gadgets listed below.)
- After your blocks, stop: the results come back in the next message.
- When the task is done, answer in plain text without any block."""


def _emoji_syntax() -> str:
    return """\
# How to call a gadget
Write one block per call:
🛠️[GadgetName arg1 "arg two"]
body
🛠️[/end]

- Arguments after the name fill the gadget's parameters in the order listed; quote one that \
has spaces. The body (may be empty) fills its body parameter, written as is, several lines allowed.
- A body that must contain the end marker itself writes it `🛠️[\\/end]`: the gadget gets `🛠️[/end]`.
- Several blocks in one answer run in parallel.
- After your blocks, stop: the results come back in the next message.
- When the task is done, answer in plain text without any block."""


def render_system_prompt(
    gadgets: Sequence[Gadget],
    *,
    syntax: Syntax = "block",
    markers: Markers = Markers(),
    system: str | None = None,
    system_extra: str | None = None,
) -> str:
    """Build the system prompt: preamble (``system`` replaces the default), ``system_extra``,
    then, when there are gadgets, the syntax rules with a worked example and each gadget's
    rendered instructions (schema and examples in the active syntax)."""
    parts = [DEFAULT_PREAMBLE if system is None else system]
    if system_extra:
        parts.append(system_extra)
    if gadgets:
        parts.append(_block_syntax(markers) if syntax == "block" else _emoji_syntax())
        rendered = "\n\n".join(
            render_gadget(g, syntax, start_prefix=markers.start, end_prefix=markers.end, arg_prefix=markers.arg)
            for g in gadgets
        )
        parts.append("# Gadgets\n" + rendered)
    return "\n\n".join(p for p in parts if p)


def estimate_prompt_tokens(text: str) -> int:
    """Tokens of ``text``: exact with tiktoken (``cl100k_base``) when installed, else chars / 4."""
    try:
        tiktoken = importlib.import_module("tiktoken")
    except ImportError:
        return (len(text) + 3) // 4
    try:
        return len(tiktoken.get_encoding("cl100k_base").encode(text))
    except Exception:  # encoding files not available offline
        return (len(text) + 3) // 4
