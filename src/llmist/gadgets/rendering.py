"""Gadget instructions for the model's system prompt, in the active call syntax.

Short on purpose (tokens cost money) but complete: name, description, every parameter
with its type, enum values, default, whether it is required and its description, nested
objects and arrays indented under their parent, then the examples written as real calls.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Iterator, Mapping
from typing import Any, Literal

from llmist.gadgets._schema import ModelSchema, model_schema
from llmist.gadgets.base import Gadget, GadgetExample

__all__ = ["CallSyntax", "render_call", "render_gadget", "render_parameters"]

CallSyntax = Literal["block", "emoji"]
"""The two call syntaxes a model can use."""

EMOJI_START = "🛠️["
EMOJI_END = "🛠️[/end]"


def render_gadget(
    gadget: Gadget,
    syntax: CallSyntax = "block",
    *,
    start_prefix: str = "!!!GADGET_START:",
    end_prefix: str = "!!!GADGET_END",
    arg_prefix: str = "!!!ARG:",
) -> str:
    """The instructions for one gadget: header, description, parameters, examples."""
    schema = model_schema(gadget.Params)
    lines = [f"## {gadget.name}", gadget.description.strip()]
    if syntax == "emoji":
        lines.append(f"Call: {_emoji_usage(gadget.name, schema)}")
    params = render_parameters(gadget)
    lines.append(f"Parameters:\n{params}" if params else "Parameters: none")
    for example in gadget.examples:
        title = f"Example ({example.comment}):" if example.comment else "Example:"
        call = render_call(
            gadget, example.params, syntax, start_prefix=start_prefix, end_prefix=end_prefix, arg_prefix=arg_prefix
        )
        lines.append(f"{title}\n{call}")
        if example.output is not None:
            lines.append(f"Output: {example.output}")
    return "\n".join(lines)


def render_parameters(gadget: Gadget) -> str:
    """The compact parameter summary (also shown in validation errors); ``""`` when none."""
    schema = model_schema(gadget.Params)
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
    """``params`` written as a call of ``gadget`` in ``syntax``, exactly as a model should write it."""
    if syntax == "emoji":
        return _emoji_call(gadget.name, model_schema(gadget.Params), params)
    lines = [f"{start_prefix}{gadget.name}"]
    for pointer, value in _flatten(params, ""):
        lines.append(f"{arg_prefix}{pointer}")
        lines.append(value)
    lines.append(end_prefix)
    return "\n".join(lines)


def example_calls(gadget: Gadget) -> tuple[GadgetExample, ...]:
    """The gadget's examples (a tuple, for callers that iterate twice)."""
    return tuple(gadget.examples)


# --- parameters ---------------------------------------------------------------------------


def _field_lines(schema: ModelSchema, node: Mapping[str, Any], depth: int) -> Iterator[str]:
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


def _nested_object(schema: ModelSchema, field: Mapping[str, Any]) -> Mapping[str, Any] | None:
    if "properties" in field:
        return field
    if field.get("type") == "array":
        items = schema.resolve(field.get("items"))
        if "properties" in items:
            return items
    return None


def _type_text(schema: ModelSchema, field: Mapping[str, Any]) -> str:
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


# --- examples -----------------------------------------------------------------------------


def _flatten(value: Any, prefix: str) -> Iterator[tuple[str, str]]:
    if isinstance(value, Mapping) and value:
        for key, child in value.items():
            yield from _flatten(child, f"{prefix}/{key}" if prefix else str(key))
    elif isinstance(value, (list, tuple)) and value:
        for index, child in enumerate(value):
            yield from _flatten(child, f"{prefix}/{index}" if prefix else str(index))
    else:
        yield prefix, _scalar_text(value)


def _scalar_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if hasattr(value, "model_dump"):
        return json.dumps(value.model_dump(mode="json"), ensure_ascii=False)
    return json.dumps(value, ensure_ascii=False, default=str)


def _emoji_usage(name: str, schema: ModelSchema) -> str:
    body = schema.body_field
    if body is None:
        strings = [f for f in schema.properties if _is_plain_string(schema, f)]
        body = strings[-1] if strings else None
    args = " ".join(f for f in schema.properties if f != schema.body_field)
    header = f"{EMOJI_START}{name}{' ' + args if args else ''}]"
    body_note = f"\n<{body}>\n" if body else "\n"
    rule = " (args in this order, shell-quoted; or name=value; lists as a,b,c" + (
        f"; the body fills {body} when it is not given in the header)" if body else ")"
    )
    return f"{header}{body_note}{EMOJI_END}{rule}"


def _emoji_call(name: str, schema: ModelSchema, params: Mapping[str, Any]) -> str:
    body_field = schema.body_field
    order = [f for f in schema.properties if f != body_field]
    if body_field is None:
        present = [f for f in order if f in params]
        last = present[-1] if present else None
        later_strings = last is not None and any(_is_plain_string(schema, f) for f in order[order.index(last) + 1 :])
        if last is not None and _is_plain_string(schema, last) and not later_strings:
            body_field = last
            order = [f for f in order if f != last]
    tokens: list[str] = []
    positional = True
    for field in order:
        if field not in params:
            positional = False
            continue
        text = shlex.quote(_emoji_value(params[field]))
        tokens.append(text if positional else f"{field}={text}")
    header = f"{EMOJI_START}{name}{' ' + ' '.join(tokens) if tokens else ''}]"
    body = _scalar_text(params[body_field]) if body_field is not None and body_field in params else ""
    if body and not body.endswith("\n"):
        body += "\n"
    return f"{header}\n{body}{EMOJI_END}"


def _emoji_value(value: Any) -> str:
    if isinstance(value, (list, tuple)) and all(isinstance(v, (str, int, float)) and "," not in str(v) for v in value):
        return ",".join(_scalar_text(v) for v in value)
    return _scalar_text(value)


def _is_plain_string(schema: ModelSchema, field: str) -> bool:
    node = schema.resolve(schema.properties.get(field))
    return node.get("type") == "string" and "enum" not in node and "const" not in node
