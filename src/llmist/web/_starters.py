"""The example prompts an empty page offers, built from the agent's gadgets.

A new user facing an empty page does not know what the agent can do. The page offers up to
:data:`STARTERS` prompts, each naming one gadget and its required parameters: the values of the
gadget's first example where it has one (short, one-line values only), else a ``<field>``
placeholder the page selects so that typing replaces it. Gadgets that run without approval come
first (a first try should not stop to ask), then those with examples (their prompts are ready to
send); otherwise the agent's order is kept.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Sequence
from typing import Any

from llmist.gadgets import Gadget
from llmist.gadgets.binding import written_fields

__all__ = ["STARTERS", "starters"]

STARTERS = 2
"""How many example prompts the empty page offers at most."""
_FIELDS = 3
"""The most parameters one prompt names (a long list is a form, not a prompt)."""
_VALUE_CHARS = 60
"""The longest example value a prompt quotes; a longer one becomes a placeholder."""
_ABOUT_CHARS = 120
"""The most of a gadget's description shown under its prompt (its first line, cut with "…")."""


def starters(gadgets: Sequence[Gadget], guarded: Collection[str]) -> list[dict[str, str]]:
    """Up to :data:`STARTERS` example prompts: ``{"gadget", "description", "prompt"}`` each."""
    ranked = sorted(gadgets, key=lambda g: (g.name in guarded, not g.examples))
    return [{"gadget": g.name, "description": _about(g.description), "prompt": _prompt(g)} for g in ranked[:STARTERS]]


def _prompt(g: Gadget) -> str:
    """``Use <name> with <field> <value> and ...`` for the gadget's required fields (all of its
    fields when none is required)."""
    fields = written_fields(g.Params)
    names = [n for n, f in fields.items() if f.is_required()] or list(fields)
    if not names:
        return f"Use {g.name}"
    example = g.examples[0].params if g.examples else {}
    parts = [f"{n} {_value(example.get(n)) or f'<{n}>'}" for n in names[:_FIELDS]]
    return f"Use {g.name} with " + " and ".join(parts)


def _about(description: str) -> str:
    """The description's first non-empty line, cut to :data:`_ABOUT_CHARS` (a long one would
    make the button a page of its own)."""
    line = next((ln.strip() for ln in description.splitlines() if ln.strip()), "")
    return line if len(line) <= _ABOUT_CHARS else line[: _ABOUT_CHARS - 1].rstrip() + "…"


def _value(value: Any) -> str:
    """An example's value as a prompt quotes it, or "" when it does not fit on a short line."""
    if value is None:
        return ""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return text if text.strip() and "\n" not in text and len(text) <= _VALUE_CHARS else ""
