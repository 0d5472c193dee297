"""Made-up argument values for a gadget, for showing the call form in prompts.

A model copies the form it is shown. A placeholder line (``value``, ``param``) is copied too:
Qwen2.5-Coder-1.5B wrote ``!!!ARG:b``, ``750``, then ``value``. So every form shown is a real
call of one of the agent's own gadgets, with values of the right type: its first example's, or,
for a gadget without examples, values made up from its schema.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from llmist.gadgets.base import Gadget
from llmist.syntax.schema import JsonSchema, json_schema

__all__ = ["sample_params"]

_DATES = {"date": "2025-01-31", "date-time": "2025-01-31T09:00:00", "time": "09:00:00", "email": "ada@example.com"}


def sample_params(gadget: Gadget) -> dict[str, Any]:
    """Arguments for a call of ``gadget`` that bind: its first example's, else values made up
    from its schema (the required parameters only, each of the right type; an enum's first
    member, a field's default)."""
    if gadget.examples:
        return dict(gadget.examples[0].params)
    schema = json_schema(gadget.Params)
    counter = iter(range(2, 1_000_000))
    return dict(_object(schema, schema.root, counter, top=True) or {})


def _object(schema: JsonSchema, node: Any, counter: Any, *, top: bool = False) -> dict[str, Any] | None:
    resolved = schema.resolve(node)
    properties: Mapping[str, Any] = resolved.get("properties") or {}
    required = set(resolved.get("required") or ())
    chosen = [n for n in properties if n in required] if top and required else list(properties)
    return {n: _value(schema, properties[n], counter) for n in chosen}


def _value(schema: JsonSchema, node: Any, counter: Any) -> Any:
    field = schema.resolve(node)
    if "default" in field and field["default"] is not None:
        return field["default"]
    if isinstance(field.get("enum"), list) and field["enum"]:
        return field["enum"][0]
    if "const" in field:
        return field["const"]
    kind = schema.kind(field)
    if kind == "integer":
        return next(counter)
    if kind == "number":
        return next(counter) + 0.5
    if kind == "boolean":
        return True
    if kind == "array":
        return [_value(schema, field.get("items"), counter) for _ in range(2)]
    if kind == "object":
        return _object(schema, field, counter) or {}
    return _DATES.get(str(field.get("format")), "example")
