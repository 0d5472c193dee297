"""From a parsed call to raw parameters a gadget's schema accepts, and their validation.

Block calls are re-assembled from their raw text with the gadget's schema (the single
source of schema-aware coercion: ``parse_block_params(..., schema=)``), unless the parser's
own result already agrees with the schema. Emoji calls bind positional header args,
``name=value`` tokens and the body to fields. Both then decode JSON strings where the schema
wants a list or an object, drop one trailing ``\\r`` from strings (CRLF answers), and go
through Pydantic, defaults applied. Runs for every call: the compiled build compiles it.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ValidationError

from llmist.gadgets._schema import ModelSchema, model_schema
from llmist.gadgets.base import Gadget
from llmist.gadgets.errors import InvalidParametersError
from llmist.gadgets.rendering import render_parameters
from llmist.syntax import BlockParseError, ParsedCall, parse_block_params
from llmist.syntax.pointers import coercion_agrees

__all__ = ["bind_call", "format_validation_error", "prepare_params", "validate_params"]

_FENCE = re.compile(r"\A```[A-Za-z0-9_+-]*[ \t]*\n(.*?)\n?```\s*\Z", re.DOTALL)
_NAMED = re.compile(r"([A-Za-z_][A-Za-z0-9_\-]*)=(.*)", re.DOTALL)


def bind_call(gadget: Gadget, call: ParsedCall, *, arg_prefix: str = "!!!ARG:") -> dict[str, Any]:
    """The raw parameters of ``call`` for ``gadget``, coerced by its schema, not yet validated.

    Raises :class:`InvalidParametersError` for a parse error or unbindable emoji arguments.
    """
    schema = model_schema(gadget.Params)
    if call.parse_error is not None:
        raise InvalidParametersError(_parse_error_text(gadget, call.parse_error, arg_prefix))
    if call.syntax == "emoji":
        raw = _bind_emoji(gadget, schema, call.raw_args or "", call.body)
    else:
        raw = _block_params(gadget, call, arg_prefix)
    return _prepare(schema, raw)


def validate_params(gadget: Gadget, raw: Mapping[str, Any]) -> BaseModel:
    """Validate ``raw`` against ``gadget.Params``; raises :class:`InvalidParametersError`."""
    try:
        return gadget.Params.model_validate(raw)
    except ValidationError as exc:
        raise InvalidParametersError(format_validation_error(gadget, exc)) from None


def format_validation_error(gadget: Gadget, error: ValidationError) -> str:
    """Name each wrong field, what it got and what was expected, then the parameter summary."""
    lines = [f"Invalid parameters for {gadget.name}:"]
    for item in error.errors(include_url=False):
        path = "/".join(str(p) for p in item["loc"]) or "(parameters)"
        message = item["msg"]
        if item["type"] == "missing":
            lines.append(f"- {path}: missing (required)")
        elif item["type"] == "extra_forbidden":
            lines.append(f"- {path}: unknown parameter (got {_short(item['input'])})")
        else:
            lines.append(f"- {path}: {message} (got {_short(item['input'])})")
    summary = render_parameters(gadget)
    lines.append(f"Expected parameters:\n{summary}" if summary else "The gadget takes no parameters.")
    return "\n".join(lines)


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 80 else text[:77] + "..."


def _parse_error_text(gadget: Gadget, parse_error: str, arg_prefix: str) -> str:
    summary = render_parameters(gadget) or "(no parameters)"
    return (
        f"Could not parse the parameters of {gadget.name}: {parse_error}\n"
        f"Write each parameter as a line `{arg_prefix}<name>` followed by its value; nested fields as "
        f"`{arg_prefix}parent/child`, list items as `{arg_prefix}list/0`, `{arg_prefix}list/1`.\n"
        f"Parameters:\n{summary}"
    )


def _block_params(gadget: Gadget, call: ParsedCall, arg_prefix: str) -> dict[str, Any]:
    raw = call.parameters_raw
    if arg_prefix in raw:
        parsed = call.parameters
        if (
            parsed is not None
            and len(parsed) == raw.count(arg_prefix)  # one top-level value per argument: parsed from raw
            and not raw.startswith("```")
            and not raw.endswith("```")
            and coercion_agrees(parsed, gadget.Params)
        ):
            return dict(parsed)  # what the schema-aware parse below would give
        fenced = _FENCE.match(raw.strip())
        content = fenced.group(1) if fenced else raw
        try:
            return parse_block_params(content, arg_prefix=arg_prefix, schema=gadget.Params)
        except BlockParseError as exc:
            raise InvalidParametersError(_parse_error_text(gadget, str(exc), arg_prefix)) from None
    return dict(call.parameters or {})


def _bind_emoji(gadget: Gadget, schema: ModelSchema, raw_args: str, body: str | None) -> dict[str, Any]:
    try:
        tokens = shlex.split(raw_args)
    except ValueError as exc:
        raise InvalidParametersError(
            f"Could not split the arguments of {gadget.name} ({raw_args!r}): {exc}. "
            "Quote arguments that contain spaces with '...' or \"...\" and close every quote."
        ) from None
    order = [f for f in schema.properties if f != schema.body_field]
    bound: dict[str, Any] = {}
    positional: list[str] = []
    for token in tokens:
        named = _NAMED.fullmatch(token)
        if named and named.group(1) in schema.properties:
            bound[named.group(1)] = named.group(2)
        else:
            positional.append(token)
    free = [f for f in order if f not in bound]
    if len(positional) > len(free):
        raise InvalidParametersError(
            f"{gadget.name} got {len(positional)} positional arguments but takes at most {len(free)} "
            f"({', '.join(free) or 'none'}).\nParameters:\n{render_parameters(gadget) or '(none)'}"
        )
    bound.update(zip(free, positional, strict=False))
    if body is not None:
        text = body[:-1] if body.endswith("\n") else body
        target = schema.body_field
        if target is None:
            target = next((f for f in reversed(order) if f not in bound and _is_plain_string(schema, f)), None)
        if target is not None and target not in bound:
            bound[target] = text
        elif text.strip():
            raise InvalidParametersError(
                f"{gadget.name} got a body but has no string parameter left for it "
                f"(all of {', '.join(order)} are filled in the header).\n"
                f"Parameters:\n{render_parameters(gadget) or '(none)'}"
            )
    for field, value in list(bound.items()):
        if isinstance(value, str) and schema.kind(schema.properties[field]) == "array":
            stripped = value.strip()
            if not stripped.startswith("["):
                bound[field] = [part.strip() for part in stripped.split(",")] if stripped else []
    return bound


def _is_plain_string(schema: ModelSchema, field: str) -> bool:
    node = schema.resolve(schema.properties.get(field))
    return node.get("type") == "string" and "enum" not in node and "const" not in node


def _prepare(schema: ModelSchema, raw: dict[str, Any]) -> dict[str, Any]:
    """Decode JSON strings where the schema wants a list/object/number; drop one trailing ``\\r``."""
    return {key: _fix(schema, schema.properties.get(key), value) for key, value in raw.items()}


def _fix(schema: ModelSchema, node: Any, value: Any) -> Any:
    if isinstance(value, str):
        if value.endswith("\r"):
            value = value[:-1]
        if node is None:
            return value
        resolved = schema.resolve(node)
        kind = resolved.get("type")
        if kind in ("array", "object", "number", "integer") or (kind is None and "properties" in resolved):
            decoded = _json(value)
            if (
                (kind == "array" and isinstance(decoded, list))
                or (kind in ("object", None) and isinstance(decoded, dict))
                or (
                    kind in ("number", "integer")
                    and isinstance(decoded, (int, float))
                    and not isinstance(decoded, bool)
                )
            ):
                return _fix(schema, node, decoded)
        return value
    if isinstance(value, dict):
        resolved = schema.resolve(node) if node is not None else {}
        props: Mapping[str, Any] = resolved.get("properties") or {}
        extra = resolved.get("additionalProperties")
        return {
            k: _fix(schema, props.get(k, extra if isinstance(extra, Mapping) else None), v) for k, v in value.items()
        }
    if isinstance(value, list):
        resolved = schema.resolve(node) if node is not None else {}
        items = resolved.get("items")
        return [_fix(schema, items if isinstance(items, Mapping) else None, v) for v in value]
    return value


def _json(text: str) -> Any:
    stripped = text.strip()
    if not stripped or stripped[0] not in "[{-0123456789":
        return None
    try:
        return json.loads(stripped)
    except ValueError:
        return None


def prepare_params(gadget: Gadget, params: Mapping[str, Any]) -> dict[str, Any]:
    """``params`` given as a dict (not parsed from a call) made ready for :func:`validate_params`."""
    return _prepare(model_schema(gadget.Params), dict(params))
