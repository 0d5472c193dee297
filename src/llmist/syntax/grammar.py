"""Gadgets' schemas as a GBNF grammar of their calls, for grammar-constrained decoding.

A server that takes a grammar (llama.cpp's and llama-cpp-python's ``grammar``, vLLM's structured
outputs) then samples only text the grammar accepts. The grammar constrains the calls alone:
published work finds a "format tax" on small models when a whole answer is forced into a form,
so prose stays free, and an answer with no call at all (the right one when no gadget fits) is
always accepted.

What is forced, in both syntaxes:

- a call names one of the gadgets;
- the parameters are the gadget's, each required one present, in declaration order (optional
  ones may be left out);
- an enum's value is one of its values, an integer is ``-?[0-9]+``, a number a JSON number, a
  boolean ``true`` or ``false``;
- a call is complete: the end marker closes it before the answer may end.

What is not forced: the text of string values (free, less the markers); a union of several
types, ``Any`` or an unknown type (free text); a dict with no declared properties (one line of
JSON); string lengths, patterns, ranges. Block headers keep their optional ``:id`` and
``:dep1,dep2`` (identifiers only). Nested objects are written as pointer arguments
(``!!!ARG:config/timeout``); arrays as pointer arguments (``items/0``, ``items/1``... up to
:data:`MAX_ARRAY_ITEMS`) or as one line of JSON.

What is also accepted, where a tool asks for it, in the block syntax: forms the agent reads as one
meaning (its counted repairs), so that a model constrained mid-thought does not lose what it meant.
A tool's ``aliases`` as its name, alone on the header line (``!!!GADGET_START:save`` for
``save_note``: told "give that call the id save", small models write the id where the name goes,
and a grammar that completes ``save`` to ``save_note`` drops the id); and, with ``repeats``, its
required parameters written again after its arguments, once per further call (``!!!ARG:city``
``Tokyo`` then ``!!!ARG:city`` ``Oslo``: two cities' weather asked for in one block) or numbered
by call (``!!!ARG:city1``, ``!!!ARG:city2``), where every parameter is a scalar, so that each
repetition reads as exactly one call. And, with ``open_ends``, a call its end marker does not
close when the next call's start marker or the answer's end does (the ``missing_end`` reading,
which drops the blank lines before the next call): a model made to write the end marker where it
meant to start the next call has already written a blank line, which the format keeps as the
last value's newline (``New York\n``).

GBNF has no lookahead, so "prose that cannot swallow a call" is built as an automaton: prose
is any text that never contains the start marker (the parser finds it mid-line too), and, in
the block syntax, whose lines never begin with the marker character (``!``), since the parser
reads ``!GADGET_START:`` at a line start as a misspelled marker. A value line likewise never
contains any of the three markers nor begins with ``!`` (write ``\\!`` as the writer does).
In the emoji syntax prose never contains the tool marker, and a body never the end marker.

Pure: takes names, JSON schemas and markers; imports nothing of llmist's beyond the syntax layer.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal

from llmist.syntax.block import DEFAULT_ARG_PREFIX, DEFAULT_END_PREFIX, DEFAULT_START_PREFIX
from llmist.syntax.schema import JsonSchema, Schema, json_schema
from llmist.syntax.writing import EMOJI_END, EMOJI_START, quote_argument

__all__ = ["MAX_ARRAY_ITEMS", "MAX_REPEATED_CALLS", "GrammarTool", "block_grammar", "call_grammar", "emoji_grammar"]

MAX_ARRAY_ITEMS: Final = 16
"""Most items an array takes as pointer arguments (``items/0`` ... ``items/15``); a longer one is
written as one line of JSON, which the grammar also accepts."""

MAX_REPEATED_CALLS: Final = 8
"""Most calls one block writes with its required parameters repeated or numbered (``city1`` ...
``city8``): a model that loops on a call's lines reaches the end marker, not its token cap."""

_MAX_DEPTH: Final = 6
"""Nesting past this (or a schema that refers to itself) is one line of JSON, not pointers."""


@dataclass(frozen=True, slots=True)
class GrammarTool:
    """One gadget as the grammar sees it."""

    name: str
    """The gadget's name, written in the call's header."""
    schema: Schema
    """Its parameters: a JSON-schema dict or a Pydantic model class."""
    body: str | None = None
    """Emoji syntax: the parameter the body fills (``None``: the body stays empty)."""
    aliases: tuple[str, ...] = ()
    """Block syntax: other names its header may give, alone on the header line (no id)."""
    repeats: bool = False
    """Block syntax: its required parameters may be written again, each once per further call,
    when every parameter is a scalar (see the module's docstring)."""


def call_grammar(
    syntax: Literal["block", "emoji"],
    tools: Sequence[GrammarTool],
    *,
    start_prefix: str = DEFAULT_START_PREFIX,
    end_prefix: str = DEFAULT_END_PREFIX,
    arg_prefix: str = DEFAULT_ARG_PREFIX,
    open_ends: bool = False,
) -> str:
    """The GBNF grammar of an answer in ``syntax``: free prose and calls of ``tools``
    (``open_ends``: see :func:`block_grammar`)."""
    if syntax == "emoji":
        return emoji_grammar(tools)
    if syntax == "block":
        return block_grammar(
            tools, start_prefix=start_prefix, end_prefix=end_prefix, arg_prefix=arg_prefix, open_ends=open_ends
        )
    raise ValueError(f"No call grammar for the syntax {syntax!r}: expected 'block' or 'emoji' (native needs none)")


def block_grammar(
    tools: Sequence[GrammarTool],
    *,
    start_prefix: str = DEFAULT_START_PREFIX,
    end_prefix: str = DEFAULT_END_PREFIX,
    arg_prefix: str = DEFAULT_ARG_PREFIX,
    open_ends: bool = False,
) -> str:
    """The GBNF grammar of a block-syntax answer (see the module's docstring for what it forces).
    ``open_ends``: a call may also be closed by the next call's start marker (after at most one
    blank line) or by the answer's end, where the parser reads it as the ``missing_end`` repair."""
    markers = (start_prefix, end_prefix, arg_prefix)
    for marker in markers:
        if not marker or "\n" in marker or "\r" in marker:
            raise ValueError(f"A block marker must be one line of text, got {marker!r}")
    g = _Grammar()
    # The parser reads a marker with a wrong count of its first character at a line start, when
    # all three markers begin with the same punctuation run: no prose or value line starts with it.
    lead = _tolerant_char(markers)
    calls = [_block_call(g, t, markers, lead) for t in _unique(tools)]
    call = g.rule("call", " | ".join(calls) if calls else '"' + "\\x00" + '"')  # no gadget: no call
    after = g.rule("after-call", '( "\\n" prose-ls )?')
    closed = f"{call} {_lit(end_prefix)} {after}"
    if open_ends:
        # Only the next call or the answer's end may close a call without its end marker: prose
        # after it would be read as the call's last value.
        closed = g.rule("calls", f'{call} ( {_lit(end_prefix)} {after} | "\\n" calls? | calls )?')
    _text(g, "prose", [start_prefix], lead, end_anywhere=True, line_start_exit=closed)
    g.rule("root", "prose-ls")
    return g.text()


def emoji_grammar(tools: Sequence[GrammarTool]) -> str:
    """The GBNF grammar of an emoji-syntax answer: free prose and ``🛠️[name args]`` calls, each
    argument ``key=value`` (required ones in declaration order) and the body, if the gadget has
    one, up to ``🛠️[/end]``."""
    g = _Grammar()
    calls = [_emoji_call(g, t) for t in _unique(tools)]
    call = g.rule("call", " | ".join(calls) if calls else '"' + "\\x00" + '"')
    bare = EMOJI_START.replace("\ufe0f", "")
    # Prose never holds the tool marker (with or without U+FE0F): a call begins exactly there.
    _text(g, "prose", [EMOJI_START, bare], None, end_anywhere=True, any_exit=f"{call} prose-0")
    body_end = [EMOJI_END, EMOJI_END.replace("\ufe0f", "")]
    _text(g, "body", body_end, None, end_anywhere=True)
    g.rule("root", "prose-0")
    return g.text()


# --- grammar text ----------------------------------------------------------------------------


class _Grammar:
    """Rules in the order they are made; ``root`` is written first."""

    def __init__(self) -> None:
        self.rules: dict[str, str] = {}
        self._count = 0

    def rule(self, name: str, body: str) -> str:
        self.rules[name] = body
        return name

    def fresh(self, stem: str, body: str) -> str:
        self._count += 1
        return self.rule(f"{stem}-{self._count}", body)

    def text(self) -> str:
        order = ["root", *(n for n in self.rules if n != "root")]
        return "".join(f"{n} ::= {self.rules[n]}\n" for n in order)


def _lit(text: str) -> str:
    """``text`` as a GBNF string literal."""
    return '"' + "".join(_char(c) for c in text) + '"'


def _char(c: str, *, in_class: bool = False) -> str:
    if c == "\\":
        return "\\\\"
    if c == '"' and not in_class:
        return '\\"'
    if in_class and c in "]^-[":
        return "\\" + c
    code = ord(c)
    if code < 0x20 or code == 0x7F:
        return {"\n": "\\n", "\r": "\\r", "\t": "\\t"}.get(c, f"\\x{code:02X}")
    return c


def _not_in(chars: Iterable[str]) -> str:
    """A character class of every character but ``chars``."""
    return "[^" + "".join(_char(c, in_class=True) for c in sorted(set(chars))) + "]"


def _unique(tools: Sequence[GrammarTool]) -> list[GrammarTool]:
    seen: set[str] = set()
    out = []
    for tool in tools:
        if not tool.name:
            raise ValueError("A gadget in a call grammar needs a name, got an empty one")
        if tool.name not in seen:
            seen.add(tool.name)
            out.append(tool)
    return out


def _tolerant_char(markers: Sequence[str]) -> str | None:
    """The punctuation character all three markers begin with (the parser's spelling tolerance)."""
    first = markers[0][:1]
    if first.isalnum() or first.isspace() or any(not m.startswith(first) for m in markers):
        return None
    return first


# --- text that avoids markers: an Aho-Corasick automaton written as rules ---------------------


def _text(
    g: _Grammar,
    stem: str,
    patterns: Sequence[str],
    lead: str | None,
    *,
    end_anywhere: bool,
    line_start_exit: str | None = None,
    any_exit: str | None = None,
) -> None:
    """Rules ``<stem>-<n>`` of text that never contains a pattern and (with ``lead``) has no line
    beginning with ``lead``. State ``<stem>-0`` is mid-line with nothing matched, ``<stem>-ls`` a
    line start, ``<stem>-<n>`` has matched the n-th prefix of a pattern. The text may end at a
    line start, or anywhere with ``end_anywhere``; ``line_start_exit`` (at a line start) and
    ``any_exit`` (anywhere) are what may follow instead of more text (a call, in prose)."""
    prefixes = sorted({p[:i] for p in patterns for i in range(len(p))}, key=lambda s: (len(s), s))
    index = {p: i for i, p in enumerate(prefixes)}
    chars = sorted({c for p in patterns for c in p} - {"\n"})

    def step(state: str, c: str) -> str | None:
        s = state + c
        if any(s.endswith(p) for p in patterns):
            return None  # a marker would be complete: not text
        while s not in index:
            s = s[1:]
        return s

    def name(state: str) -> str:
        return f"{stem}-{index[state]}"

    def moves(state: str, first_of_line: bool) -> list[str]:
        alts = []
        for c in chars:
            nxt = step(state, c)
            if nxt is not None and nxt != "" and not (first_of_line and c == lead):
                alts.append(f"{_lit(c)} {name(nxt)}")
        alts.append(f'"\\n" {stem}-ls')
        return alts

    def other(state: str, first_of_line: bool) -> str:
        """The class of characters that match nothing from ``state`` (back to state 0)."""
        back = [c for c in chars if step(state, c) != "" or (first_of_line and c == lead)]
        return _not_in([*back, "\n"])

    exits = [e for e in (any_exit,) if e] + ([""] if end_anywhere else [])
    for state in prefixes:
        if state == "":
            # State 0 reads a run of ordinary characters as one repetition, followed by what
            # cannot be part of it: one reading of any text (an ambiguous grammar costs the
            # sampler a stack per reading).
            g.rule(name(state), f"{other(state, False)}* {_group([*moves(state, False), *exits])}")
        else:
            g.rule(name(state), _alts([f"{other(state, False)} {name('')}", *moves(state, False), *exits]))
    ls = [f"{other('', True)} {name('')}", *moves("", True)]
    ls.extend(e for e in (line_start_exit, any_exit) if e)
    ls.append("")
    g.rule(f"{stem}-ls", _alts(ls))


def _group(alts: Sequence[str]) -> str:
    """Alternatives as one parenthesised element."""
    text = _alts(alts)
    return text if text.endswith(")?") else f"( {text} )"


def _alts(alts: Sequence[str]) -> str:
    """Alternatives, an empty one last as ``( ... )?``."""
    full = [a for a in alts if a]
    body = " | ".join(full)
    return f"( {body} )?" if len(full) < len(alts) else body


# --- the block syntax -------------------------------------------------------------------------


def _block_call(g: _Grammar, tool: GrammarTool, markers: tuple[str, str, str], lead: str | None) -> str:
    start, _, arg = markers
    if "value-ls" not in g.rules:
        _text(g, "value", markers, lead, end_anywhere=False)
        g.rule("ident", "[A-Za-z_] [A-Za-z0-9_-]*")
        g.rule("header-rest", '( ":" ident ( ":" ident ( [,:] ident )* )? )?')
        _scalar_rules(g)
    schema = json_schema(tool.schema)
    args = _block_object(g, schema, schema.root, "", arg, 0)
    required = _scalar_required(schema) if tool.repeats else []
    again = _repeated_required(g, schema, required, arg)
    numbered = _numbered_required(g, schema, required, arg)
    aliases = [alias for alias in tool.aliases if alias != tool.name]
    if aliases and args:
        args = g.fresh("args", args)  # written once, taken by each form of the call
    several = f"{args} {again}" if again else args
    if numbered:
        several = f"( {several} | {numbered} )"
    named = [_lit(start + tool.name), "header-rest", _lit("\n"), several]
    # Under an alias the call is read as written, with no repetition: the reading that takes the
    # alias as the gadget's name does not split a call into several.
    forms = [named, *([_lit(start + alias), _lit("\n"), args] for alias in aliases)]
    return g.fresh("call", " | ".join(" ".join(p for p in form if p) for form in forms))


def _repeated_required(g: _Grammar, schema: JsonSchema, required: list[tuple[str, Any]], arg: str) -> str:
    """The ``required`` parameters' argument lines again, once per further call, up to
    :data:`MAX_REPEATED_CALLS` calls in all; ``""`` when there are none (:func:`_scalar_required`)."""
    if not required:
        return ""
    once = g.fresh("again", " ".join(_block_value(g, schema, node, key, arg, 1) for key, node in required))
    return f"( {_chain(g, 'again', [once] * (MAX_REPEATED_CALLS - 1))} )?"


def _numbered_required(g: _Grammar, schema: JsonSchema, required: list[tuple[str, Any]], arg: str) -> str:
    """The ``required`` parameters' argument lines numbered by call, ``city1`` then ``city2``... up
    to :data:`MAX_REPEATED_CALLS`, in order from 1; ``""`` when there are none, or a name with a
    number after it would read as another parameter or as another name and a number (``x2`` and
    ``1``: ``x`` and ``21``)."""
    names = set(schema.resolve(schema.root).get("properties") or {})
    numbered = {f"{key}{n}" for key, _ in required for n in range(1, MAX_REPEATED_CALLS + 1)}
    if not required or numbered & names or any(key[-1:].isdigit() or key.endswith("_") for key, _ in required):
        return ""
    calls = [
        " ".join(_block_value(g, schema, node, f"{key}{n}", arg, 1) for key, node in required)
        for n in range(1, MAX_REPEATED_CALLS + 1)
    ]
    return _chain(g, "numbered", calls)


def _chain(g: _Grammar, stem: str, pieces: Sequence[str]) -> str:
    """``pieces[0]``, then optionally ``pieces[1]``, and so on in order: each piece only after the
    one before it (a rule ``<stem>-<n>`` for each but the first)."""
    tail = ""
    for k in range(len(pieces) - 1, -1, -1):
        tail = f"{pieces[k]} ( {tail} )?" if tail else pieces[k]
        if k > 0:
            tail = g.fresh(stem, tail)
    return tail


def _scalar_required(schema: JsonSchema) -> list[tuple[str, Any]]:
    """The required parameters, in order, when every parameter is a scalar; else none."""
    obj = schema.resolve(schema.root)
    properties: Mapping[str, Any] = obj.get("properties") or {}
    required = set(obj.get("required") or ())
    if any(_kind(schema.resolve(p)) in ("object", "array") for p in properties.values()):
        return []
    return [(key, node) for key, node in properties.items() if key in required]


def _block_object(
    g: _Grammar, schema: JsonSchema, node: Any, path: str, arg: str, depth: int, in_array: bool = False
) -> str:
    """The argument lines of the object ``node`` at ``path``: its properties in order, required ones forced."""
    obj = schema.resolve(node)
    properties: Mapping[str, Any] = obj.get("properties") or {}
    required = set(obj.get("required") or ())
    parts = []
    for key, child in properties.items():
        one = _block_value(g, schema, child, f"{path}/{key}" if path else str(key), arg, depth + 1, in_array)
        parts.append(one if key in required else f"( {one} )?")
    return " ".join(parts)


def _block_value(
    g: _Grammar, schema: JsonSchema, node: Any, path: str, arg: str, depth: int, in_array: bool = False
) -> str:
    """The argument lines that set the value at ``path`` (``in_array``: an array item's)."""
    field = schema.resolve(node)
    line = f"{_lit(arg + path + chr(10))}"
    if depth > _MAX_DEPTH:
        return f'{line} json-line "\\n"'
    kind = _kind(field)
    if kind == "object" and field.get("properties"):
        if not set(field.get("required") or ()):
            # Every property optional: an empty object has no pointer lines, so the JSON form too.
            inner = _block_object(g, schema, field, path, arg, depth, in_array)
            return f'( {line} json-line "\\n" | {inner} )'
        return _block_object(g, schema, field, path, arg, depth, in_array)
    if kind == "array" and not in_array:
        indexed = _array_pointers(g, schema, field.get("items"), path, arg, depth)
        return f'( {line} json-line "\\n" | {indexed} )'
    return f"{line} {_scalar(g, field)}"


def _array_pointers(g: _Grammar, schema: JsonSchema, items: Any, path: str, arg: str, depth: int) -> str:
    """``path/0`` then optionally ``path/1``, ... in order (the parser refuses gaps)."""
    # An array inside an item is one line of JSON: pointers for every index of both would
    # multiply the grammar's size.
    values = [
        _block_value(g, schema, items, f"{path}/{i}", arg, depth + 1, in_array=True) for i in range(MAX_ARRAY_ITEMS)
    ]
    return _chain(g, "item", values)


def _kind(field: Mapping[str, Any]) -> str | None:
    kind = field.get("type")
    if isinstance(kind, list):
        others = [k for k in kind if k != "null"]
        kind = others[0] if len(others) == 1 else None
    if kind is None and "properties" in field:
        return "object"
    return kind if isinstance(kind, str) else None


def _scalar_rules(g: _Grammar) -> None:
    g.rule("integer", '"-"? [0-9]+')
    g.rule("number", '"-"? [0-9]+ ( "." [0-9]+ )? ( [eE] [-+]? [0-9]+ )?')
    g.rule("boolean", '"true" | "false"')
    g.rule("json-line", "json-value")
    g.rule("json-value", 'json-object | json-array | json-string | number | boolean | "null"')
    g.rule("json-member", 'json-string ws ":" ws json-value ws')
    g.rule("json-object", '"{" ws ( json-member ( "," ws json-member )* )? "}"')
    g.rule("json-array", '"[" ws ( json-value ws ( "," ws json-value ws )* )? "]"')
    g.rule("json-string", '"\\"" ( [^"\\\\\\x00-\\x1F] | "\\\\" ["\\\\/bfnrt] | "\\\\u" [0-9a-fA-F]{4} )* "\\""')
    g.rule("ws", '" "*')


def _scalar(g: _Grammar, field: Mapping[str, Any]) -> str:
    """One argument's value lines (the block syntax), up to the next marker."""
    enum = field.get("enum")
    if "const" in field:
        enum = [field["const"]]
    if isinstance(enum, list) and enum:
        return "( " + " | ".join(_lit(_enum_text(v) + "\n") for v in enum) + " )"
    kind = _kind(field)
    if kind in ("integer", "number", "boolean"):
        return f'{kind} "\\n"'
    if kind in ("object", "array"):
        return 'json-line "\\n"'
    return "value-ls"  # a string, or a type the grammar does not force: free lines


def _enum_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    return json.dumps(value)


# --- the emoji syntax -------------------------------------------------------------------------


def _emoji_call(g: _Grammar, tool: GrammarTool) -> str:
    if "emoji-token" not in g.rules:
        _scalar_rules(g)
        g.rule("emoji-token", "[^ \\t\\n\\r\"'\\\\\\]]+")
        g.rule("emoji-quoted", '"\\"" ( [^"\\\\\\]\\n\\r] | "\\\\" [^\\]\\n\\r] )* "\\""')
        g.rule("emoji-text", "emoji-token | emoji-quoted")
    schema = json_schema(tool.schema)
    obj = schema.resolve(schema.root)
    properties: Mapping[str, Any] = obj.get("properties") or {}
    required = set(obj.get("required") or ())
    parts = []
    for key, child in properties.items():
        if key == tool.body:
            continue
        one = f"{_lit(' ' + key + '=')} {_emoji_value(schema.resolve(child))}"
        parts.append(one if key in required else f"( {one} )?")
    body = "body-0" if tool.body in properties else ""
    pieces = [_lit(EMOJI_START + tool.name), *parts, _lit("]\n"), body, _lit(EMOJI_END)]
    return g.fresh("call", " ".join(p for p in pieces if p))


def _emoji_value(field: Mapping[str, Any]) -> str:
    """One header argument's value: typed where the schema says, else a bare or quoted token."""
    enum = field.get("enum")
    if "const" in field:
        enum = [field["const"]]
    if isinstance(enum, list) and enum:
        return "( " + " | ".join(_lit(quote_argument(_enum_text(v))) for v in enum) + " )"
    kind = _kind(field)
    if kind in ("integer", "number", "boolean"):
        return kind
    return "emoji-text"  # strings, lists (comma-separated) and anything else: not forced
