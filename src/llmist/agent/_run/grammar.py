"""Grammar-constrained calls in a run: the gadgets' call grammar, and whether a request carries it.

The plan says whether a grammar applies (:func:`plan_grammar`: a provider that takes one and a
text syntax); each request then decides by ``ModelSettings.constrained`` and the run's ``strict``
(:func:`request_grammar`), so a run that overrides either shares the agent's plan. A grammar is
compiled once per gadgets, syntax, markers and strictness.

Outside ``strict`` the grammar also accepts the forms the repairs read as one meaning
(``llmist.syntax.grammar``: a gadget's first word as its name, required parameters written again
or numbered for another call, a call closed by the next one's start or the answer's end): a model
that begins ``!!!GADGET_START:save`` meaning the id ``save`` would otherwise be made to write
``save_note`` and lose the id. Under ``strict`` those repairs are refused, so the grammar accepts
only calls as the format writes them.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from llmist.agent import options
from llmist.agent.prompt import Markers, Syntax
from llmist.agent.repairs import first_word_names
from llmist.gadgets import Gadget, GadgetOutputViewer
from llmist.gadgets._schema import is_plain_string, marked_body_field
from llmist.syntax.grammar import GrammarTool, call_grammar
from llmist.syntax.schema import json_schema

__all__ = ["CallGrammar", "plan_grammar", "request_grammar"]


@dataclass(frozen=True, slots=True)
class CallGrammar:
    """The call grammar of a plan's gadgets, compiled for a run's strictness when a request needs it."""

    gadgets: tuple[Gadget, ...]
    syntax: Literal["block", "emoji"]
    markers: Markers

    def text(self, *, strict: bool) -> str:
        """The GBNF text: with the forms the repairs read, unless ``strict``."""
        return _grammar(self.gadgets, self.syntax, self.markers, strict)


def plan_grammar(provider: Any, syntax: Syntax, gadgets: Sequence[Gadget], markers: Markers) -> CallGrammar | None:
    """The call grammar of ``gadgets`` when ``provider`` takes a grammar (its ``grammar_field``)
    and ``syntax`` is a text one; else ``None``. Compiled here once, so a schema no grammar can
    be made of fails when the agent is planned, not at its first request."""
    if syntax == "native" or getattr(provider, "grammar_field", None) is None:
        return None
    grammar = CallGrammar(tuple(gadgets), syntax, markers)
    grammar.text(strict=False)
    return grammar


@functools.lru_cache(maxsize=32)
def _grammar(gadgets: tuple[Gadget, ...], syntax: Literal["block", "emoji"], markers: Markers, strict: bool) -> str:
    # The first-word names and repeated parameters are readings of block calls only.
    aliases = {} if strict or syntax != "block" else first_word_names(g.name for g in gadgets)
    # The repairs do not read the output viewer's name until an output is stored (it is hidden
    # from them until then), so its first word is no name the grammar may offer; it still takes
    # its word from any other gadget.
    aliases.pop(GadgetOutputViewer.name, None)
    tools = [
        GrammarTool(
            g.name,
            json_schema(g.Params).root,
            _body_field(g),
            aliases=(aliases[g.name],) if g.name in aliases else (),
            # Numbered names are another parameter's to a gadget that takes names it does not declare.
            repeats=not strict and g.Params.model_config.get("extra") != "allow",
        )
        for g in gadgets
    ]
    return call_grammar(
        syntax,
        tools,
        start_prefix=markers.start,
        end_prefix=markers.end,
        arg_prefix=markers.arg,
        open_ends=not strict,  # a call the next call's start or the answer's end closes: `missing_end`
    )


def _body_field(gadget: Gadget) -> str | None:
    """The field an emoji call's body fills, as binding reads it when the header names none of
    them: the marked body field, else the last plain-string field."""
    schema = json_schema(gadget.Params)
    marked = marked_body_field(schema)
    if marked is not None:
        return marked
    return next((f for f in reversed(list(schema.properties)) if is_plain_string(schema, f)), None)


def request_grammar(
    option: bool | Literal["auto"],
    grammar: CallGrammar | None,
    provider: Any,
    syntax: Syntax,
    provider_name: str,
    *,
    strict: bool,
) -> str | None:
    """The grammar a request carries under ``constrained=option`` in a run that is ``strict`` or
    not. ``True`` with a provider that takes no grammar raises ``ValueError`` naming the servers
    that do."""
    if option is False or syntax == "native":
        return None
    if option == "auto" and (grammar is None or provider_name not in options.CONSTRAINED_BY_DEFAULT):
        return None
    if grammar is None:
        raise ValueError(
            f"constrained=True needs a server that takes a grammar, and the provider {provider_name!r} "
            "takes none: use llama.cpp's server or llama-cpp-python's ('llamacpp:...') or vLLM ('vllm:...'), "
            "or constrained='auto' (on where it is known to work) or False"
        )
    return grammar.text(strict=strict)
