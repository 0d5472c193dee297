"""Small helpers over a Pydantic model's JSON schema: resolve ``$ref``/``Optional`` and cache per model."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from pydantic import BaseModel

__all__ = ["ModelSchema", "model_schema"]


@dataclass(frozen=True, slots=True)
class ModelSchema:
    """A model's JSON schema plus its top-level fields in declaration order."""

    root: Mapping[str, Any]
    defs: Mapping[str, Any]
    properties: Mapping[str, Mapping[str, Any]]
    required: frozenset[str]
    body_field: str | None
    """The field marked ``Field(json_schema_extra={"body": True})``, if any."""

    def resolve(self, node: Any) -> Mapping[str, Any]:
        """Follow ``$ref``, unwrap single-member ``allOf`` and ``Optional[X]``; ``{}`` when unknown."""
        for _ in range(32):
            if not isinstance(node, Mapping):
                return {}
            ref = node.get("$ref")
            if isinstance(ref, str):
                target = self.defs.get(ref.rsplit("/", 1)[-1], {})
                extra = {k: v for k, v in node.items() if k != "$ref"}
                node = {**target, **extra} if extra else target
                continue
            all_of = node.get("allOf")
            if isinstance(all_of, list) and len(all_of) == 1:
                extra = {k: v for k, v in node.items() if k != "allOf"}
                node = {**all_of[0], **extra}
                continue
            options = node.get("anyOf")
            if isinstance(options, list):
                real = [o for o in options if not (isinstance(o, Mapping) and o.get("type") == "null")]
                if len(real) == 1 and len(real) != len(options):
                    extra = {k: v for k, v in node.items() if k != "anyOf"}
                    node = {**real[0], **extra}
                    continue
            return node
        return {}

    def kind(self, node: Any) -> str:
        """The JSON type of a resolved node: string, integer, number, boolean, array, object, or ''."""
        resolved = self.resolve(node)
        kind = resolved.get("type")
        if isinstance(kind, str):
            return kind
        if "properties" in resolved:
            return "object"
        return ""


def model_schema(model: type[BaseModel]) -> ModelSchema:
    """The (cached) :class:`ModelSchema` of ``model``."""
    # A plain function in front of the cache: the compiled build type-checks its callers
    # without pydantic installed, where an lru_cache wrapper rejects type[Any] as unhashable.
    return _cached_schema(model)


@lru_cache(maxsize=512)
def _cached_schema(model: type[BaseModel]) -> ModelSchema:
    root = model.model_json_schema()
    properties: dict[str, Mapping[str, Any]] = dict(root.get("properties") or {})
    body = next((name for name, node in properties.items() if isinstance(node, Mapping) and node.get("body")), None)
    return ModelSchema(
        root=root,
        defs=root.get("$defs") or {},
        properties=properties,
        required=frozenset(root.get("required") or ()),
        body_field=body,
    )
