"""Gadget instructions for the model's system prompt, in the active call syntax.

Short on purpose (tokens cost money) but complete: name, description, every parameter
with its type, enum values, default, whether it is required and its description, nested
objects and arrays indented under their parent, then the examples written as real calls.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator, Mapping
from typing import Any, Literal

from llmist.gadgets._schema import is_plain_string, marked_body_field
from llmist.gadgets.base import Gadget
from llmist.syntax.schema import JsonSchema, json_schema
from llmist.syntax.writing import EMOJI_END, EMOJI_START, scalar_text, write_block_call, write_emoji_call

__all__ = ["CallSyntax", "render_call", "render_gadget", "render_parameters"]

CallSyntax = Literal["block", "emoji"]
"""The two call syntaxes a model can use."""

_log = logging.getLogger("llmist.gadgets")


def render_gadget(
    gadget: Gadget,
    syntax: CallSyntax = "block",
    *,
    start_prefix: str = "!!!GADGET_START:",
    end_prefix: str = "!!!GADGET_END",
    arg_prefix: str = "!!!ARG:",
) -> str:
    """The instructions for one gadget: header, description, parameters, examples."""
    schema = json_schema(gadget.Params)
    lines = [f"## {gadget.name}", gadget.description.strip()]
    if syntax == "emoji":
        lines.append(f"Call: {_emoji_usage(gadget.name, schema)}")
    params = render_parameters(gadget)
    lines.append(f"Parameters:\n{params}" if params else "Parameters: none")
    for example in gadget.examples:
        # The call alone, without the example's output: a model continues the pattern it is
        # shown. An `Output: 5` line after each example call made Qwen2.5-Coder write a result of
        # its own after every call; the output in the title ("answered with the result 'Lima:
        # 21°C, mist'") made it answer a question in that form without calling (benchmarks/RESULTS.md).
        title = f"Example ({example.comment}):" if example.comment else "Example:"
        try:
            call = render_call(
                gadget, example.params, syntax, start_prefix=start_prefix, end_prefix=end_prefix, arg_prefix=arg_prefix
            )
        except ValueError as exc:
            # A value the emoji header cannot hold: a wrong example would teach the model worse than none.
            _log.info("%s: example %r left out of the prompt: %s", gadget.name, dict(example.params), exc)
            continue
        lines.append(f"{title}\n{call}")
    return "\n".join(lines)


def render_parameters(gadget: Gadget) -> str:
    """The compact parameter summary (also shown in validation errors); ``""`` when none."""
    schema = json_schema(gadget.Params)
    return "\n".join(_field_lines(schema, schema.root, 0))


def render_call(
    gadget: Gadget,
    params: Mapping[str, Any],
    syntax: CallSyntax = "block",
    *,
    start_prefix: str = "!!!GADGET_START:",
    end_prefix: str = "!!!GADGET_END",
    arg_prefix: str = "!!!ARG:",
) -> str:
    """``params`` written as a call of ``gadget`` in ``syntax``, exactly as a model should write it.

    In the block syntax a list of plain values (strings, numbers, booleans) whose field the
    schema types as such a list is one line of JSON (``!!!ARG:data`` then ``[12, 15, 11]``),
    which binding decodes; nested fields and lists of objects are pointer paths. One argument
    per item cost small models the list: Qwen2.5-Coder wrote twenty numbers under ``data/0``, or
    stopped after five items, where a question gave the list as ``[12, 15, ...]``
    (benchmarks/RESULTS.md).

    Raises ``ValueError`` when the emoji syntax cannot hold a value (see
    :func:`llmist.syntax.writing.write_emoji_call`).
    """
    if syntax == "emoji":
        return _emoji_call(gadget.name, json_schema(gadget.Params), params)
    markers = {"start_prefix": start_prefix, "end_prefix": end_prefix, "arg_prefix": arg_prefix}
    schema = json_schema(gadget.Params)
    return write_block_call(gadget.name, _lists_as_json(schema, schema.root, params), **markers)


_PLAIN_ITEMS = frozenset({"string", "integer", "number", "boolean"})


def _lists_as_json(schema: JsonSchema, node: Any, value: Any) -> Any:
    """``value`` with each non-empty list of plain values, where the schema at its place is an
    array of plain items, replaced by its JSON text: exactly where binding decodes a JSON line
    back into the list (a field of unknown type would keep the text as a string)."""
    if isinstance(value, Mapping):
        return {k: _lists_as_json(schema, schema.child(node, str(k)), v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        resolved = schema.resolve(node)
        items = schema.resolve(resolved.get("items"))
        plain = items.get("type") in _PLAIN_ITEMS or isinstance(items.get("enum"), list)
        if value and resolved.get("type") == "array" and plain and all(_is_plain(v) for v in value):
            return json.dumps(list(value), ensure_ascii=False)
        return [_lists_as_json(schema, schema.child(node, str(i)), v) for i, v in enumerate(value)]
    return value


def _is_plain(value: Any) -> bool:
    return isinstance(value, (str, int, float, bool))


# --- parameters ---------------------------------------------------------------------------


def _field_lines(schema: JsonSchema, node: Mapping[str, Any], depth: int) -> Iterator[str]:
    obj = schema.resolve(node)
    properties: Mapping[str, Any] = obj.get("properties") or {}
    required = set(obj.get("required") or ())
    indent = "  " * depth
    for name, raw in properties.items():
        field = schema.resolve(raw)
        facts = [_type_text(schema, field)]
        if name in required:
            facts.append("required")
        elif "default" in field and field["default"] is not None:
            facts.append(f"default {_value_text(field['default'])}")
        facts.extend(_constraints(field))
        description = field.get("description") or raw.get("description") if isinstance(raw, Mapping) else None
        line = f"{indent}- {name} ({', '.join(facts)})"
        yield f"{line}: {' '.join(str(description).split())}" if description else line
        child = _nested_object(schema, field)
        if child is not None:
            yield from _field_lines(schema, child, depth + 1)


def _nested_object(schema: JsonSchema, field: Mapping[str, Any]) -> Mapping[str, Any] | None:
    if "properties" in field:
        return field
    if field.get("type") == "array":
        items = schema.resolve(field.get("items"))
        if "properties" in items:
            return items
    return None


def _type_text(schema: JsonSchema, field: Mapping[str, Any]) -> str:
    if "enum" in field:
        return " | ".join(_value_text(v) for v in field["enum"])
    if "const" in field:
        return _value_text(field["const"])
    options = field.get("anyOf") or field.get("oneOf")
    if isinstance(options, list):
        return " | ".join(_type_text(schema, schema.resolve(o)) for o in options)
    kind = field.get("type")
    if isinstance(kind, list):
        return " | ".join(str(k) for k in kind)
    if kind == "array":
        items = schema.resolve(field.get("items"))
        return f"array of {_type_text(schema, items)}" if items else "array"
    if kind == "object" or "properties" in field:
        extra = field.get("additionalProperties")
        if isinstance(extra, Mapping) and "properties" not in field:
            return f"object of {_type_text(schema, schema.resolve(extra))}"
        return "object"
    if kind == "string" and "format" in field:
        return f"string ({field['format']})"
    return str(kind) if kind else "any"


def _constraints(field: Mapping[str, Any]) -> Iterator[str]:
    for key, label in (
        ("minimum", ">="),
        ("exclusiveMinimum", ">"),
        ("maximum", "<="),
        ("exclusiveMaximum", "<"),
        ("minLength", "min length"),
        ("maxLength", "max length"),
        ("minItems", "min items"),
        ("maxItems", "max items"),
        ("pattern", "pattern"),
    ):
        if key in field:
            value = field[key]
            yield f"{label} {value if isinstance(value, str) else _value_text(value)}"


def _value_text(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


# --- emoji calls --------------------------------------------------------------------------


def _emoji_usage(name: str, schema: JsonSchema) -> str:
    marked = marked_body_field(schema)
    body = marked
    if body is None:
        strings = [f for f in schema.properties if is_plain_string(schema, f)]
        body = strings[-1] if strings else None
    args = " ".join(f for f in schema.properties if f != marked)
    header = f"{EMOJI_START}{name}{' ' + args if args else ''}]"
    body_note = f"\n<{body}>\n" if body else "\n"
    rule = " (args in this order, shell-quoted; or name=value; lists as a,b,c" + (
        f"; the body fills {body} when it is not given in the header)" if body else ")"
    )
    return f"{header}{body_note}{EMOJI_END}{rule}"


def _emoji_call(name: str, schema: JsonSchema, params: Mapping[str, Any]) -> str:
    body_field = marked_body_field(schema)
    order = [f for f in schema.properties if f != body_field]
    if body_field is None:
        present = [f for f in order if f in params]
        last = present[-1] if present else None
        later_strings = last is not None and any(is_plain_string(schema, f) for f in order[order.index(last) + 1 :])
        if last is not None and is_plain_string(schema, last) and not later_strings:
            body_field = last
            order = [f for f in order if f != last]
    tokens: list[str] = []
    positional = True
    for field in order:
        if field not in params:
            positional = False
            continue
        text = _emoji_value(params[field])
        tokens.append(text if positional else f"{field}={text}")
    body = scalar_text(params[body_field]) if body_field is not None and body_field in params else None
    return write_emoji_call(name, tokens, body)


def _emoji_value(value: Any) -> str:
    if isinstance(value, (list, tuple)) and all(isinstance(v, (str, int, float)) and "," not in str(v) for v in value):
        return ",".join(scalar_text(v) for v in value)
    return scalar_text(value)
