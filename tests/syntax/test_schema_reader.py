"""One JSON-schema reader serves the parser's coercion and gadget binding: ``$ref`` anywhere in
the schema (``$defs``, ``definitions``, the root itself), ``Optional[X]`` read as ``X``."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from llmist.syntax import parse_block_params
from llmist.syntax.schema import json_schema

TREE: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {"type": "string"},
        "children": {"type": "array", "items": {"$ref": "#"}},
    },
}


def test_a_ref_to_the_root_reads_a_recursive_schema() -> None:
    content = "!!!ARG:name\n001\n!!!ARG:children/0/name\n007\n!!!ARG:children/0/children/0/name\n42\n"
    assert parse_block_params(content, schema=TREE) == {
        "name": "001",
        "children": [{"name": "007", "children": [{"name": "42"}]}],
    }


def test_definitions_refs_of_older_drafts_are_followed() -> None:
    schema = {
        "type": "object",
        "properties": {"zip": {"$ref": "#/definitions/Zip"}, "port": {"$ref": "#/definitions/Port"}},
        "definitions": {"Zip": {"type": "string"}, "Port": {"anyOf": [{"type": "integer"}, {"type": "null"}]}},
    }
    assert parse_block_params("!!!ARG:zip\n007\n!!!ARG:port\n1e3\n", schema=schema) == {"zip": "007", "port": 1000}


def test_a_ref_keeps_the_keys_beside_it() -> None:
    schema = json_schema(
        {"$defs": {"S": {"type": "string"}}, "properties": {"a": {"$ref": "#/$defs/S", "default": "x"}}}
    )
    assert schema.resolve(schema.properties["a"]) == {"type": "string", "default": "x"}


def test_a_self_referencing_ref_reads_as_unknown_instead_of_looping() -> None:
    schema = json_schema({"$defs": {"Loop": {"$ref": "#/$defs/Loop"}}, "properties": {"a": {"$ref": "#/$defs/Loop"}}})
    assert schema.resolve(schema.properties["a"]) == {}
    assert parse_block_params("!!!ARG:a\n5\n", schema=schema.root) == {"a": 5}


def test_a_model_class_and_its_json_schema_read_alike() -> None:
    class Inner(BaseModel):
        code: str

    class Params(BaseModel):
        inner: Inner | None = None
        items: list[Inner] = []

    content = "!!!ARG:inner/code\n007\n!!!ARG:items/0/code\n1\n"
    assert parse_block_params(content, schema=Params) == parse_block_params(content, schema=Params.model_json_schema())
    assert parse_block_params(content, schema=Params) == {"inner": {"code": "007"}, "items": [{"code": "1"}]}
