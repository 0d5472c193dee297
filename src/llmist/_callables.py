"""How many positional arguments a user's callable takes.

Several hooks come in a short and a long form: a gadget's ``execute(params)`` or
``execute(params, ctx)``, a parameter interceptor ``(name, raw)`` or ``(name, raw, call)``.
One rule decides which form a callable has, for every layer.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

__all__ = ["accepts_positional"]

_POSITIONAL = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)


def accepts_positional(fn: Callable[..., Any], count: int) -> bool:
    """Whether ``fn`` can take ``count`` positional arguments: it has that many positional
    parameters (defaults or not), or ``*args``, which takes any number.

    A callable whose signature cannot be read (some built-in or compiled ones) is given the
    long form: wrappers that hide their signature pass every argument on, and llmist's own
    compiled hooks take the long form.
    """
    try:
        parameters = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return True
    positional = 0
    for p in parameters:
        if p.kind is inspect.Parameter.VAR_POSITIONAL:
            return True
        if p.kind in _POSITIONAL:
            positional += 1
    return positional >= count
