"""How the emoji syntax reads a gadget's schema: which fields a body can fill.

The schema itself is read by :mod:`llmist.syntax.schema` (one reader for the parser and the
gadgets layer); these are the gadget-side rules built on it, shared by binding and rendering.
"""

from __future__ import annotations

from llmist.syntax.schema import JsonSchema

__all__ = ["is_plain_string", "marked_body_field"]


def marked_body_field(schema: JsonSchema) -> str | None:
    """The field marked ``Field(json_schema_extra={"body": True})``, if any."""
    for name, node in schema.properties.items():
        if node.get("body") is True:
            return name
    return None


def is_plain_string(schema: JsonSchema, field: str) -> bool:
    """Whether ``field`` takes any string (not an enum or a constant): a body can fill it."""
    node = schema.resolve(schema.properties.get(field))
    return node.get("type") == "string" and "enum" not in node and "const" not in node
