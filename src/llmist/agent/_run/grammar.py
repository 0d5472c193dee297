"""Grammar-constrained calls in a run: the gadgets' call grammar, and whether a request carries it.

The plan compiles the grammar once (:func:`plan_grammar`), for a provider that takes one and a text
syntax; each request then decides by ``ModelSettings.constrained`` (:func:`request_grammar`), so a
run that overrides the option shares the agent's plan.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any, Literal

from llmist.agent import options
from llmist.agent.prompt import Markers, Syntax
from llmist.gadgets import Gadget
from llmist.gadgets._schema import is_plain_string, marked_body_field
from llmist.syntax.grammar import GrammarTool, call_grammar
from llmist.syntax.schema import json_schema

__all__ = ["plan_grammar", "request_grammar"]


def plan_grammar(provider: Any, syntax: Syntax, gadgets: Sequence[Gadget], markers: Markers) -> str | None:
    """The call grammar of ``gadgets`` when ``provider`` takes a grammar (its ``grammar_field``)
    and ``syntax`` is a text one; else ``None``."""
    if syntax == "native" or getattr(provider, "grammar_field", None) is None:
        return None
    return _grammar(tuple(gadgets), syntax, markers)


@functools.lru_cache(maxsize=32)
def _grammar(gadgets: tuple[Gadget, ...], syntax: Literal["block", "emoji"], markers: Markers) -> str:
    tools = [GrammarTool(g.name, json_schema(g.Params).root, _body_field(g)) for g in gadgets]
    return call_grammar(syntax, tools, start_prefix=markers.start, end_prefix=markers.end, arg_prefix=markers.arg)


def _body_field(gadget: Gadget) -> str | None:
    """The field an emoji call's body fills, as binding reads it when the header names none of
    them: the marked body field, else the last plain-string field."""
    schema = json_schema(gadget.Params)
    marked = marked_body_field(schema)
    if marked is not None:
        return marked
    return next((f for f in reversed(list(schema.properties)) if is_plain_string(schema, f)), None)


def request_grammar(
    option: bool | Literal["auto"], grammar: str | None, provider: Any, syntax: Syntax, provider_name: str
) -> str | None:
    """The grammar a request carries under ``constrained=option``. ``True`` with a provider that
    takes no grammar raises ``ValueError`` naming the servers that do."""
    if option is False or syntax == "native":
        return None
    if option == "auto":
        return grammar if provider_name in options.CONSTRAINED_BY_DEFAULT else None
    if grammar is None:
        raise ValueError(
            f"constrained=True needs a server that takes a grammar, and the provider {provider_name!r} "
            "takes none: use llama.cpp's server or llama-cpp-python's ('llamacpp:...') or vLLM ('vllm:...'), "
            "or constrained='auto' (on where it is known to work) or False"
        )
    return grammar
