"""A Pydantic model built from a JSON-schema dict, so such gadgets validate, bind and render like any other.

Every part of a gadget (binding, coercion, prompt rendering, validation) works from ``Params``,
a Pydantic model. A JSON schema (an MCP tool's ``inputSchema``, a hand-written dict) is turned
into one here rather than validated beside it, so there is one path for all gadgets. The common
shapes map exactly: ``string``/``integer``/``number``/``boolean``/``null``, ``enum`` and
``const`` (as ``Literal``), ``array`` with ``items``, ``object`` with ``properties`` (a nested
model) or without (a dict), ``anyOf``/``oneOf``/type lists (unions), ``$ref`` into ``$defs``,
descriptions and defaults. Keywords with no Python type (``minLength``, ``pattern``, ``format``...)
are not enforced: the schema's owner (an MCP server) validates its input again and its error
reaches the model as a result.
"""

from __future__ import annotations

import keyword
from collections.abc import Mapping
from typing import Any, Literal, Optional, Union

from pydantic import BaseModel, ConfigDict, Field, create_model

from llmist.gadgets.errors import GadgetError

__all__ = ["model_from_json_schema"]

_SCALARS: dict[str, Any] = {"string": str, "integer": int, "number": float, "boolean": bool, "null": type(None)}
_MAX_DEPTH = 16


def model_from_json_schema(name: str, schema: Mapping[str, Any]) -> type[BaseModel]:
    """A Pydantic model whose fields are the top-level ``properties`` of the object ``schema``.

    Property names that are not Python identifiers (or clash with ``BaseModel``'s own names) keep
    their JSON name as the field's alias, so validation and ``model_dump(by_alias=True)`` use it.
    """
    if not isinstance(schema, Mapping):
        raise GadgetError(f"{name}: a JSON schema must be a dict, got {type(schema).__name__}")
    kind = schema.get("type", "object")
    if kind != "object":
        raise GadgetError(f"{name}: a gadget's JSON schema must have type 'object', got {kind!r}")
    builder = _Builder(schema.get("$defs") or schema.get("definitions") or {})
    return builder.model(name, schema, 0)


class _Builder:
    """Builds types for one schema, resolving ``$ref`` against its ``$defs``."""

    def __init__(self, defs: Mapping[str, Any]) -> None:
        self.defs = defs

    def model(self, name: str, node: Mapping[str, Any], depth: int) -> type[BaseModel]:
        properties: Mapping[str, Any] = node.get("properties") or {}
        required = set(node.get("required") or ())
        fields: dict[str, Any] = {}
        for index, (prop, sub) in enumerate(properties.items()):
            annotation = self.type_of(f"{name}_{prop}", sub, depth + 1)
            info: dict[str, Any] = {}
            if isinstance(sub, Mapping) and isinstance(sub.get("description"), str):
                info["description"] = sub["description"]
            if prop not in required:
                annotation = Optional[annotation]  # noqa: UP045 - a runtime type, built dynamically
                info["default"] = sub.get("default") if isinstance(sub, Mapping) else None
            field_name = prop
            if not _usable_name(prop):
                field_name = f"field_{index}"
                info["alias"] = prop
            fields[field_name] = (annotation, Field(**info))
        extra = node.get("additionalProperties")
        config = ConfigDict(
            extra="forbid" if extra is False else "allow" if extra else "ignore", populate_by_name=False
        )
        return create_model(name, __config__=config, **fields)

    def type_of(self, name: str, node: Any, depth: int) -> Any:
        """The Python type for one schema node (``Any`` for what has no closer match)."""
        if not isinstance(node, Mapping) or depth > _MAX_DEPTH:
            return Any
        ref = node.get("$ref")
        if isinstance(ref, str):
            target = self.defs.get(ref.rsplit("/", 1)[-1])
            return self.type_of(name, target, depth + 1) if target is not None else Any
        for key in ("enum", "const"):
            if key in node:
                values = node[key] if key == "enum" else [node[key]]
                if isinstance(values, list) and values and all(isinstance(v, str | int | bool) for v in values):
                    return Literal[tuple(values)]
                return Any
        options = node.get("anyOf") or node.get("oneOf")
        if isinstance(options, list) and options:
            return _union([self.type_of(name, o, depth + 1) for o in options])
        kind = node.get("type")
        if isinstance(kind, list):
            return _union([self.type_of(name, {**node, "type": k}, depth + 1) for k in kind])
        return self._typed(name, node, kind, depth)

    def _typed(self, name: str, node: Mapping[str, Any], kind: Any, depth: int) -> Any:
        if kind in _SCALARS:
            return _SCALARS[kind]
        if kind == "array":
            return list[self.type_of(f"{name}_item", node.get("items"), depth + 1)]  # type: ignore[misc]
        if kind == "object" or (kind is None and "properties" in node):
            if node.get("properties"):
                return self.model(name, node, depth)
            extra = node.get("additionalProperties")
            value = self.type_of(f"{name}_value", extra, depth + 1) if isinstance(extra, Mapping) else Any
            return dict[str, value]  # type: ignore[valid-type]
        return Any


def _union(members: list[Any]) -> Any:
    unique = list(dict.fromkeys(members))
    if Any in unique:
        return Any
    return unique[0] if len(unique) == 1 else Union[tuple(unique)]  # noqa: UP007 - built at run time


def _usable_name(prop: str) -> bool:
    return (
        prop.isidentifier()
        and not keyword.iskeyword(prop)
        and not prop.startswith("_")
        and not hasattr(BaseModel, prop)
    )
