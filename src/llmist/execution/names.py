"""Gadget names as a model writes them: the one gadget a misspelt name means, the closest names,
and the answer to a call of a gadget that does not exist.

One text for every caller (the executor run on its own, and the agent loop's repairs), so a model
reads the same answer to the same mistake wherever it makes it.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Sequence

__all__ = ["UNKNOWN_GADGET", "closest_names", "gadget_names", "native_name", "same_name", "unknown_gadget_text"]

UNKNOWN_GADGET = "Unknown gadget"
"""How the error of a call of a gadget that does not exist starts (:func:`unknown_gadget_text`)."""


def _key(name: str) -> str:
    return re.sub(r"[\s_\-.]", "", name).lower()


def same_name(name: str, names: Iterable[str]) -> str | None:
    """The one gadget name ``name`` matches ignoring case, spaces, ``_``, ``-`` and ``.``
    (``us_economy_gdp_by_state_year`` for ``us_economy.gdp_by_state_year``, or the other way
    round); ``None`` when none or several do."""
    want = _key(name)
    found = [n for n in names if _key(n) == want]
    return found[0] if len(found) == 1 else None


def closest_names(name: str, names: Sequence[str], n: int = 3) -> list[str]:
    """Up to ``n`` gadget names closest to ``name``, best first."""
    by_key = {_key(x): x for x in names}
    close = difflib.get_close_matches(_key(name), list(by_key), n=n, cutoff=0.6)
    return [by_key[k] for k in close]


def unknown_gadget_text(name: str, names: Sequence[str]) -> str:
    """The error a call of an unknown gadget gets: that it did not run, the closest names, then
    every name the model may call.

    It says not to call the name again rather than "send the call again": told to change and
    resend, Qwen2.5-Coder-1.5B sent its made-up ``confirm`` call six times over, unchanged
    (benchmarks/RESULTS.md, issue 23).
    """
    listed = ", ".join(sorted(names)) or "none"
    if not any(ch.isalpha() for ch in name):  # "1234": a value where the name goes, nothing to match
        return (
            f"{UNKNOWN_GADGET} {name!r}: that is not a gadget name. A call starts with the name of the gadget "
            f"to run; its arguments follow. The gadgets you can call: {listed}."
        )
    close = closest_names(name, names)
    hint = f" The closest: {', '.join(close)}." if close else ""
    return (
        f"{UNKNOWN_GADGET} {name!r}.{hint} No gadget has this name, so the call did not run: do not call "
        f"{name} again. The gadgets you can call: {listed}."
    )


def native_name(name: str) -> str:
    """``name`` as a native tool API takes it: OpenAI's and Anthropic's tool names hold only
    letters, digits, ``_`` and ``-``, so each ``.`` is sent as ``_`` (``us_economy.gdp_by_state_year``
    as ``us_economy_gdp_by_state_year``). :func:`gadget_names` maps it back."""
    return name.replace(".", "_") if "." in name else name


def gadget_names(names: Iterable[str]) -> dict[str, str]:
    """Each gadget name :func:`native_name` changes, by its native name: what a native call's
    name means. A native name two gadgets share (``a.b`` and ``a_b``) is left out: the call
    names the one without a dot."""
    found: dict[str, list[str]] = {}
    for name in names:
        found.setdefault(native_name(name), []).append(name)
    return {native: names[0] for native, names in found.items() if len(names) == 1 and names[0] != native}
