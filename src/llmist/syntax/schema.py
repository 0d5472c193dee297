"""A JSON schema read the way llmist needs it: ``$ref`` followed, ``Optional[X]`` read as ``X``.

One reader serves the parser's schema-aware coercion (:mod:`llmist.syntax.pointers`) and the
gadgets layer (binding a call to a gadget, rendering a gadget for the prompt). It takes a
Pydantic model class (read through ``model_json_schema()``, once per class) or a JSON-schema
dict, whose ``$ref``s may point into ``$defs``, ``definitions`` or anywhere else in it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final, TypeAlias

from pydantic import BaseModel

__all__ = ["JsonSchema", "Schema", "json_schema"]

Schema: TypeAlias = type[BaseModel] | Mapping[str, Any]
"""A Pydantic model class or a JSON-schema dict."""

_EMPTY: Final[Mapping[str, Any]] = {}
_MAX_HOPS: Final = 32
"""A ``$ref`` chain longer than this (a schema referring to itself) reads as unknown."""


class JsonSchema:
    """One JSON schema, with its ``$ref``s resolved on demand."""

    __slots__ = ("properties", "root")

    def __init__(self, root: Mapping[str, Any]) -> None:
        self.root = root
        """The schema as given."""
        properties = self.resolve(root).get("properties")
        self.properties: Mapping[str, Any] = properties if isinstance(properties, Mapping) else _EMPTY
        """The top-level properties (a model's fields), in declaration order."""

    def resolve(self, node: Any) -> Mapping[str, Any]:
        """``node`` with ``$ref`` followed, a one-member ``allOf`` unwrapped and ``Optional[X]``
        (an ``anyOf``/``oneOf`` with one member besides ``null``) read as ``X``. Keys beside a
        ``$ref`` or an ``allOf`` (a field's description, its default) are kept. ``{}`` when
        nothing is known; a union of several types stays as it is."""
        for _ in range(_MAX_HOPS):
            if not isinstance(node, Mapping):
                return _EMPTY
            ref = node.get("$ref")
            inner: Any = None
            if isinstance(ref, str):
                inner, key = self._target(ref), "$ref"
            elif isinstance(node.get("allOf"), list) and len(node["allOf"]) == 1:
                inner, key = node["allOf"][0], "allOf"
            else:
                key = "anyOf" if "anyOf" in node else "oneOf"
                inner = _only_non_null(node.get(key)) if key in node else None
                if inner is None:
                    return node
            if not isinstance(inner, Mapping):
                return _EMPTY
            extra = {k: v for k, v in node.items() if k != key}
            node = {**inner, **extra} if extra else inner
        return _EMPTY

    def kind(self, node: Any) -> str:
        """The JSON type of ``node`` resolved: string, integer, number, boolean, array, object,
        or ``""`` when not one of them (unknown, or a union of types)."""
        resolved = self.resolve(node)
        kind = resolved.get("type")
        if isinstance(kind, list):
            real = [k for k in kind if k != "null"]
            kind = real[0] if len(real) == 1 else None
        if isinstance(kind, str):
            return kind
        return "object" if "properties" in resolved else ""

    def nullable(self, node: Any) -> bool:
        """Whether ``node`` (a ``$ref`` followed) accepts JSON ``null``: ``Optional[X]``, a union
        with ``None``, or ``"type": [..., "null"]``."""
        for _ in range(_MAX_HOPS):
            if not isinstance(node, Mapping):
                return False
            ref = node.get("$ref")
            if not isinstance(ref, str):
                break
            node = self._target(ref)
        if not isinstance(node, Mapping):
            return False
        kind = node.get("type")
        if kind == "null" or (isinstance(kind, list) and "null" in kind):
            return True
        options = node.get("anyOf", node.get("oneOf"))
        return isinstance(options, list) and any(_is_null(o) for o in options)

    def child(self, node: Any, segment: str) -> Mapping[str, Any] | None:
        """The schema one step below ``node``: a property, an array item (``segment`` an index),
        or an ``additionalProperties`` value; ``None`` when the schema does not say."""
        resolved = self.resolve(node)
        properties = resolved.get("properties")
        if isinstance(properties, Mapping) and segment in properties:
            return self.resolve(properties[segment])
        if segment.isdigit() and segment.isascii():
            prefix = resolved.get("prefixItems")
            if isinstance(prefix, list) and len(segment) < 10 and int(segment) < len(prefix):
                return self.resolve(prefix[int(segment)])
            items = resolved.get("items")
            if isinstance(items, Mapping):
                return self.resolve(items)
        extra = resolved.get("additionalProperties")
        return self.resolve(extra) if isinstance(extra, Mapping) else None

    def _target(self, ref: str) -> Any:
        """What a local ``$ref`` (``#``, ``#/$defs/Name``, ``#/definitions/Name``, any ``#/...``) names."""
        if not ref.startswith("#"):
            return None  # a remote schema: not fetched, so unknown
        node: Any = self.root
        for part in ref[1:].split("/")[1:]:
            if not isinstance(node, Mapping):
                return None
            node = node.get(part.replace("~1", "/").replace("~0", "~"))
        return node


def _is_null(option: Any) -> bool:
    """Whether a union member is ``{"type": "null"}``."""
    return isinstance(option, Mapping) and option.get("type") == "null"


def _only_non_null(options: Any) -> Any:
    """The single member of a union besides ``{"type": "null"}``, else ``None``."""
    if not isinstance(options, list):
        return None
    real = [o for o in options if not _is_null(o)]
    return real[0] if len(real) == 1 else None


_MODEL_SCHEMAS: dict[type[BaseModel], JsonSchema] = {}
"""One reader per model class. A plain dict, not ``lru_cache``: the compiled build type-checks
its callers without pydantic installed, where ``type[BaseModel]`` is not known to be hashable."""


def json_schema(schema: Schema | JsonSchema) -> JsonSchema:
    """The :class:`JsonSchema` of a Pydantic model class (made once per class) or of a JSON-schema dict."""
    if isinstance(schema, JsonSchema):
        return schema
    if isinstance(schema, type):
        # A class seen before is found before ``issubclass``, whose check through pydantic's
        # metaclass is a Python-level call (this runs for every call a model makes).
        found = _MODEL_SCHEMAS.get(schema)
        if found is not None:
            return found
        if issubclass(schema, BaseModel):
            if len(_MODEL_SCHEMAS) >= 512:
                _MODEL_SCHEMAS.clear()
            found = _MODEL_SCHEMAS[schema] = JsonSchema(schema.model_json_schema())
            return found
    if isinstance(schema, Mapping):
        return JsonSchema(schema)
    raise TypeError(f"schema must be a Pydantic model class or a JSON-schema dict, got {type(schema).__name__}")
