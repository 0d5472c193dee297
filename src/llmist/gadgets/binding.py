"""From a parsed call to raw parameters a gadget's schema accepts, and their validation.

Block calls are re-assembled from their raw text with the gadget's schema (the single
source of schema-aware coercion: ``parse_block_params(..., schema=)``), unless the parser's
own result already agrees with the schema. Emoji calls bind positional header args,
``name=value`` tokens and the body to fields. Both then decode JSON strings where the schema
wants a list or an object, drop one trailing ``\\r`` from strings (CRLF answers), and go
through Pydantic, defaults applied. Runs for every call: the compiled build compiles it.

Two limits keep a runaway or hostile answer from costing more than an error: a call's
parameters may be at most ``gadget.max_parameter_chars`` characters long (the same measure in
both syntaxes: the block's body, or the emoji header's arguments plus the body), and nest at
most :data:`~llmist.syntax.MAX_PARAMETER_DEPTH` levels deep, JSON decoded into a field included.
"""

from __future__ import annotations

import ast
import dataclasses
import difflib
import json
import re
import shlex
from collections.abc import Mapping, Sequence
from typing import Any, Final

from pydantic import BaseModel, ValidationError
from pydantic.fields import FieldInfo

from llmist.gadgets._schema import is_plain_string, marked_body_field
from llmist.gadgets.base import Gadget
from llmist.gadgets.errors import InvalidParametersError
from llmist.gadgets.rendering import render_parameters
from llmist.syntax import DEFAULT_ARG_PREFIX, MAX_PARAMETER_DEPTH, BlockParseError, ParsedCall
from llmist.syntax.pointers import coercion_agrees, nesting_error, parse_block_body
from llmist.syntax.schema import JsonSchema, json_schema
from llmist.syntax.writing import EMOJI_START, quote_argument, read_emoji_body, write_block_call

__all__ = [
    "bind_call",
    "corrected_params",
    "dump_params",
    "format_validation_error",
    "is_null_word",
    "joined_words",
    "prepare_params",
    "shown_block_call",
    "validate_params",
]

_NAMED = re.compile(r"([A-Za-z_][A-Za-z0-9_\-]*)=(.*)", re.DOTALL)


def bind_call(gadget: Gadget, call: ParsedCall, *, arg_prefix: str = "!!!ARG:") -> dict[str, Any]:
    """The raw parameters of ``call`` for ``gadget``, coerced by its schema, not yet validated.

    Raises :class:`InvalidParametersError` for a parse error, unbindable emoji arguments, or
    parameters past a limit (longer than ``gadget.max_parameter_chars``, nested deeper than
    :data:`~llmist.syntax.MAX_PARAMETER_DEPTH`).
    """
    _check_size(gadget, call)
    schema = json_schema(gadget.Params)
    if call.parse_error is not None:
        raise InvalidParametersError(_parse_error_text(gadget, call.parse_error, arg_prefix, call.syntax == "native"))
    if call.syntax == "emoji":
        raw = _bind_emoji(gadget, schema, call.raw_args or "", call.body)
    elif call.syntax == "native":
        raw = dict(call.parameters or {})  # decoded JSON: typed already, the schema validates it
    else:
        raw = _block_params(gadget, call, arg_prefix)
    return _prepare(schema, raw)


def _check_size(gadget: Gadget, call: ParsedCall) -> None:
    emoji = call.syntax == "emoji"
    size = len(call.raw_args or "") + len(call.body or "") if emoji else len(call.parameters_raw)
    limit = gadget.max_parameter_chars
    if size > limit:
        raise InvalidParametersError(
            f"The parameters of {gadget.name} are {size:,} characters long; the limit is {limit:,} characters "
            f"(max_parameter_chars of {gadget.name}). Send the data in several smaller calls."
        )


def validate_params(gadget: Gadget, raw: Mapping[str, Any]) -> BaseModel:
    """Validate ``raw`` against ``gadget.Params``; raises :class:`InvalidParametersError`.

    A top-level name the schema does not have is an error (a misspelt optional parameter would
    otherwise run with its default), unless ``Params`` sets ``model_config["extra"]`` itself
    (``"allow"`` or ``"ignore"``: the gadget opts into extra fields)."""
    params = gadget.Params
    known = _known_names(params)
    unknown = [key for key in raw if key not in known] if known is not None else []
    try:
        # What ``model_validate`` calls, without its handling of keywords we never pass.
        model: BaseModel = params.__pydantic_validator__.validate_python(raw)
    except ValidationError as exc:
        raise InvalidParametersError(format_validation_error(gadget, exc, unknown)) from None
    if unknown:
        raise InvalidParametersError(format_validation_error(gadget, None, unknown))
    return model


def dump_params(model: BaseModel) -> dict[str, Any]:
    """``model.model_dump()``: validated parameters as a plain dict (nested models as dicts)."""
    # What ``model_dump`` calls, without its handling of keywords we never pass.
    dumped: dict[str, Any] = model.__pydantic_serializer__.to_python(model)
    return dumped


_KNOWN_NAMES: dict[type[BaseModel], frozenset[str] | None] = {}
"""Per parameters class: :func:`_known_names`. A plain dict cleared when full, as ``json_schema``'s."""


def _known_names(params: type[BaseModel]) -> frozenset[str] | None:
    """The top-level names ``params`` takes (its fields and their validation aliases), or
    ``None`` when it sets ``model_config["extra"]`` itself and so decides about other names."""
    if params in _KNOWN_NAMES:
        return _KNOWN_NAMES[params]
    if len(_KNOWN_NAMES) >= 512:
        _KNOWN_NAMES.clear()
    names = None if params.model_config.get("extra") is not None else frozenset(params.model_fields) | _aliases(params)
    _KNOWN_NAMES[params] = names
    return names


_WRITTEN_FIELDS: dict[type[BaseModel], dict[str, FieldInfo]] = {}
"""Per parameters class: :func:`written_fields`. A plain dict cleared when full, as ``json_schema``'s."""


def written_fields(params: type[BaseModel]) -> Mapping[str, FieldInfo]:
    """``params``'s fields, in declared order, by the names a model writes them with: a field's
    alias where it has one, else its Python name. A JSON schema's ``_from``, ``class`` or
    ``user-id`` can be no Python name, so its field is ``field_0`` with that alias; the prompt
    shows the alias, the model writes it, and validation takes it. Every reading of a call by
    its names (the repairs, an error's rewritten call) goes by these."""
    found = _WRITTEN_FIELDS.get(params)
    if found is None:
        if len(_WRITTEN_FIELDS) >= 512:
            _WRITTEN_FIELDS.clear()
        found = _WRITTEN_FIELDS[params] = {_written_name(name, f): f for name, f in params.model_fields.items()}
    return found


def _written_name(name: str, field: FieldInfo) -> str:
    """The name a model writes the field ``name`` with (see :func:`written_fields`)."""
    for alias in (field.validation_alias, field.alias):
        if isinstance(alias, str):
            return alias
    return name


def corrected_params(gadget: Gadget, raw: Mapping[str, Any]) -> dict[str, Any] | None:
    """The parameters of a call that failed validation, corrected from what could be read, or
    ``None`` when that gives no valid call different from ``raw``.

    Two corrections, the mistakes small models make most: a name the gadget does not have is left
    out (Qwen2.5-Coder called a gadget that takes no parameters with ``file/path/to/log.txt``), and
    a field that got several lines where one value is wanted keeps the first line (it copied a
    placeholder line under its value: ``750`` then ``value``). No value is ever made up: a
    required field that is missing stays missing, and then there is no corrected call.
    """
    known = _known_names(gadget.Params)
    fixed = {k: v for k, v in raw.items() if known is None or k in known}
    try:
        gadget.Params.model_validate(fixed)
    except ValidationError as exc:
        wrong = {str(item["loc"][0]) for item in exc.errors() if len(item["loc"]) == 1}
        for key in wrong:
            value = fixed.get(key)
            if isinstance(value, str) and "\n" in value.strip():
                fixed[key] = value.strip().splitlines()[0]
        try:
            gadget.Params.model_validate(fixed)
        except ValidationError:
            return None
    return None if fixed == dict(raw) else fixed


def _aliases(params: type[BaseModel]) -> set[str]:
    """The names a model also takes its fields by (their validation aliases)."""
    return {a for f in params.model_fields.values() for a in (f.alias, f.validation_alias) if isinstance(a, str)}


def format_validation_error(gadget: Gadget, error: ValidationError | None, unknown: Sequence[str] = ()) -> str:
    """Name each unknown parameter (with the closest known name), each wrong field, what it got
    and what was expected, then the parameter summary."""
    lines = [f"Invalid parameters for {gadget.name}:"]
    lines += [_unknown_line(gadget, str(name)) for name in unknown]
    for item in error.errors(include_url=False) if error is not None else ():
        path = "/".join(str(p) for p in item["loc"]) or "(parameters)"
        message = item["msg"]
        if item["type"] == "missing":
            lines.append(f"- {path}: missing (required)")
        elif item["type"] == "extra_forbidden":
            lines.append(_unknown_line(gadget, path))
        else:
            lines.append(f"- {path}: {message} (got {_short(item['input'])})")
    summary = render_parameters(gadget)
    lines.append(f"Expected parameters:\n{summary}" if summary else "The gadget takes no parameters.")
    return "\n".join(lines)


def _unknown_line(gadget: Gadget, name: str) -> str:
    close = difflib.get_close_matches(name, list(written_fields(gadget.Params)), n=1, cutoff=0.6)
    return f"- {name}: unknown parameter; did you mean {close[0]!r}?" if close else f"- {name}: unknown parameter"


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 80 else text[:77] + "..."


def _parse_error_text(gadget: Gadget, parse_error: str, arg_prefix: str, native: bool = False) -> str:
    summary = render_parameters(gadget) or "(no parameters)"
    if native:
        return (
            f"Could not read the arguments of {gadget.name}: {parse_error}\n"
            f"Call the tool again with its arguments as one JSON object.\nParameters:\n{summary}"
        )
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
        try:
            return parse_block_body(raw, arg_prefix=arg_prefix, schema=gadget.Params)
        except BlockParseError as exc:
            raise InvalidParametersError(_parse_error_text(gadget, str(exc), arg_prefix)) from None
    params = dict(call.parameters or {})
    if not params and raw.strip():  # text without argument lines: unread, unless the gadget needs none
        fields = written_fields(gadget.Params)
        if any(info.is_required() for info in fields.values()):
            raise InvalidParametersError(_without_arguments_text(gadget, raw, arg_prefix))
    return params


def _without_arguments_text(gadget: Gadget, raw: str, arg_prefix: str) -> str:
    """The error of a block call whose body holds text but no argument line: the call rewritten
    with each of the model's lines as the value of a parameter in declared order (``<name>`` for
    a required one it left out), so the model sees its own values in the form that runs (an
    empty block taught Qwen2.5-Coder nothing: it sent the same call six times)."""
    lines = [line.strip() for line in raw.splitlines() if line.strip()]
    fields = written_fields(gadget.Params)
    values: dict[str, str] = {}
    for field, line in zip(fields, lines, strict=False):
        values[field] = line
    if len(lines) > len(fields) and values:  # more lines than parameters: the last takes the rest
        last = list(values)[-1]
        values[last] = "\n".join(lines[len(fields) - 1 :])
    for field, info in fields.items():
        if field not in values and info.is_required():
            values[field] = f"<{field}>"
    try:
        written = shown_block_call(gadget.name, values, arg_prefix)
    except ValueError:
        written = ""
    return (
        f"The call to {gadget.name} has no `{arg_prefix}` lines, so none of its text was read as a parameter. "
        f"Write each parameter as a line `{arg_prefix}<name>` followed by its value. Your call written that way "
        f"(check that each value is under the right name):\n{written}\n"
        f"Parameters:\n{render_parameters(gadget) or '(none)'}"
    )


def shown_block_call(
    name: str,
    params: Mapping[str, Any],
    arg_prefix: str,
    *,
    invocation_id: str | None = None,
    deps: Sequence[str] = (),
) -> str:
    """A block call written back to a model in an error, with the default start and end markers;
    only its argument lines when ``arg_prefix`` is not the default's, since the start and end
    markers in use are not known where only the argument marker is. Raises ``ValueError`` as
    :func:`~llmist.syntax.writing.write_block_call` does (a value holding a marker)."""
    written = write_block_call(name, params, invocation_id=invocation_id, deps=deps, arg_prefix=arg_prefix)
    if arg_prefix != DEFAULT_ARG_PREFIX:
        return "\n".join(written.splitlines()[1:-1])
    return written


def _bind_emoji(gadget: Gadget, schema: JsonSchema, raw_args: str, body: str | None) -> dict[str, Any]:
    try:
        tokens = shlex.split(raw_args)
    except ValueError as exc:
        raise InvalidParametersError(
            f"Could not split the arguments of {gadget.name} ({raw_args!r}): {exc}. "
            "Quote arguments that contain spaces with '...' or \"...\" and close every quote."
        ) from None
    marked = marked_body_field(schema)
    order = [f for f in schema.properties if f != marked]
    bound: dict[str, Any] = {}
    positional: list[str] = []
    for token in tokens:
        named = _NAMED.fullmatch(token)
        if named and named.group(1) in schema.properties:
            bound[named.group(1)] = named.group(2)
        else:
            positional.append(token)
    free = [f for f in order if f not in bound]
    if positional:
        _check_positional(gadget, schema, raw_args, free, positional, bool(body and body.strip()) and marked is None)
    bound.update(zip(free, positional, strict=False))
    if body is not None:
        text = read_emoji_body(body)
        target = marked
        if target is None:
            target = next((f for f in reversed(order) if f not in bound and is_plain_string(schema, f)), None)
        if target is not None and target not in bound:
            bound[target] = text
        elif text.strip():
            raise InvalidParametersError(
                f"{gadget.name} got a body but has no string parameter left for it "
                f"(all of {', '.join(order)} are filled in the header).\n"
                f"Parameters:\n{render_parameters(gadget) or '(none)'}"
            )
    for field, value in list(bound.items()):
        node = schema.properties[field]
        if isinstance(value, str) and schema.kind(node) == "array":
            stripped = value.strip()
            if not stripped.startswith("[") and not _no_value(schema, node, stripped):
                bound[field] = [part.strip() for part in stripped.split(",")] if stripped else []
    return bound


# One emoji header token as written: bare characters and quoted stretches, side by side.
_HEADER_TOKEN = re.compile(r"""(?:[^\s"'\\]|\\.|"(?:[^"\\]|\\.)*"|'[^']*')+""")
_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?").fullmatch


def _unquoted_words(raw_args: str, count: int) -> list[bool] | None:
    """For each of the ``count`` tokens ``shlex.split`` gave of ``raw_args``: whether it is a word
    written bare (no quote in it) that is not a number; ``None`` when the tokens do not line up."""
    tokens = _HEADER_TOKEN.findall(raw_args)
    if len(tokens) != count:
        return None
    return [not any(q in t for q in "\"'\\") and _NUMBER(t) is None and "=" not in t for t in tokens]


def _check_positional(
    gadget: Gadget, schema: JsonSchema, raw_args: str, free: list[str], positional: list[str], body_taken: bool
) -> None:
    """Refuse more positional arguments than parameters left for them, and bare words that may be
    one value split in several (:func:`_refuse_split_words`)."""
    if len(positional) > len(free):
        raise InvalidParametersError(
            f"{gadget.name} got {len(positional)} positional arguments but takes at most {len(free)} "
            f"({', '.join(free) or 'none'}).{_quoted_form_hint(gadget, schema, free, positional)}\n"
            f"Parameters:\n{render_parameters(gadget) or '(none)'}"
        )
    if len(positional) > 1:
        _refuse_split_words(gadget, schema, raw_args, free, positional, body_taken)


def _refuse_split_words(
    gadget: Gadget, schema: JsonSchema, raw_args: str, free: list[str], positional: list[str], body_taken: bool
) -> None:
    """Refuse positional words that may be one value split in several (the emoji syntax's one
    reading two ways): two or more text parameters get bare words, and the words do not fill
    every parameter one to one (``🛠️[supermarket_find_in_city Los Angeles]``: city "Los" and
    state "Angeles", or city "Los Angeles" and no state?). A number is not a word; a quoted
    value, a ``name=value`` and an enum's value say where they go."""
    if not raw_args or (len(positional) >= len(free) - body_taken):
        return  # every parameter got one token: each token is one value
    words = _unquoted_words(raw_args, len(shlex.split(raw_args)))
    if words is None:
        return
    flags = [w for token, w in zip(shlex.split(raw_args), words, strict=True) if _NAMED.fullmatch(token) is None]
    texts = [f for f, word in zip(free, flags, strict=False) if word and is_plain_string(schema, f)]
    if len(texts) < 2:
        return
    raise InvalidParametersError(
        f"{gadget.name}: the words {' '.join(positional)} are not quoted and fall on the text parameters "
        f"{', '.join(texts)}, one word each: a value of several words may have been split, so the call did "
        f"not run.{_quoted_form_hint(gadget, schema, free, positional)}\n"
        f"Parameters:\n{render_parameters(gadget) or '(none)'}"
    )


def _quoted_form_hint(gadget: Gadget, schema: JsonSchema, free: list[str], positional: list[str]) -> str:
    """The call written with each text value quoted and named: the model's words as the first
    text parameter's value, ``...`` where it gave no value."""
    texts = [f for f in free if is_plain_string(schema, f)]
    if not texts:
        return ""
    fields = written_fields(gadget.Params)
    required = {f for f in free if f in fields and fields[f].is_required()}
    words = " ".join(t for t in positional if _NUMBER(t) is None)
    rest = [f'{f}="..."' if is_plain_string(schema, f) else f"{f}=..." for f in free if f in required and f != texts[0]]
    parts = [f'{texts[0]}="{words}"', *rest]
    return f" Quote each text value and name it: {EMOJI_START}{gadget.name} {' '.join(parts)}]"


def joined_words(gadget: Gadget, call: ParsedCall) -> list[ParsedCall]:
    """An emoji call whose bare header words overflow the parameters they go to, read with the
    overflowing words joined into the one text parameter among those parameters
    (``🛠️[search Los Angeles]``: query "Los Angeles", not query "Los" and limit "Angeles";
    ``🛠️[find New York 5]``: city "New York", limit 5: the parameters before the text one take
    the words at the front, those after it the words at the end, optional ones last to go). The
    readings, most parameters filled first; none when no such parameter or several (which words
    go where is unclear). The ``joined_words`` repair's readings, not yet validated."""
    raw_args = call.raw_args or ""
    try:
        tokens = shlex.split(raw_args)
    except ValueError:
        return []
    schema = json_schema(gadget.Params)
    marked = marked_body_field(schema)
    order = [f for f in schema.properties if f != marked]
    named = [t for t in tokens if (m := _NAMED.fullmatch(t)) is not None and m.group(1) in schema.properties]
    positional = [t for t in tokens if t not in named]
    taken = {t.split("=", 1)[0] for t in named}
    free = [f for f in order if f not in taken]
    texts = [i for i, f in enumerate(free) if is_plain_string(schema, f)]
    if len(texts) != 1:
        return []
    at = texts[0]
    kept = [f"{n.split('=', 1)[0]}={quote_argument(n.split('=', 1)[1])}" for n in named]
    readings: list[ParsedCall] = []
    for after in range(len(free) - at - 1, -1, -1):  # the parameters after the text one, fewer each time
        middle = positional[at : len(positional) - after]
        if len(middle) < 2 or at > len(positional):
            continue
        values = [*positional[:at], " ".join(middle), *positional[len(positional) - after :]]
        readings.append(dataclasses.replace(call, raw_args=" ".join([*map(quote_argument, values), *kept])))
    return readings


def _prepare(schema: JsonSchema, raw: dict[str, Any]) -> dict[str, Any]:
    """Decode JSON strings where the schema wants a list/object/number; drop one trailing ``\\r``."""
    properties = schema.properties
    path: list[str] = []
    out: dict[str, Any] = {}
    for key, value in raw.items():
        path.append(key)
        out[key] = _fix(schema, properties.get(key), value, path)
        path.pop()
    return out


def _fix(schema: JsonSchema, node: Any, value: Any, path: list[str]) -> Any:
    """``value`` (at ``path``, whose schema is ``node``) made ready for validation, recursively."""
    if isinstance(value, str):
        return _fix_text(schema, node, value, path)
    if isinstance(value, (dict, list)) and len(path) >= MAX_PARAMETER_DEPTH:
        path.append("...")
        raise InvalidParametersError(nesting_error(path))
    if isinstance(value, dict):
        resolved = schema.resolve(node) if node is not None else {}
        props: Mapping[str, Any] = resolved.get("properties") or {}
        extra = resolved.get("additionalProperties")
        fixed: dict[Any, Any] = {}
        for k, v in value.items():
            path.append(str(k))
            fixed[k] = _fix(schema, props.get(k, extra if isinstance(extra, Mapping) else None), v, path)
            path.pop()
        return fixed
    if isinstance(value, list):
        items = (schema.resolve(node) if node is not None else {}).get("items")
        fixed_items: list[Any] = []
        for i, v in enumerate(value):
            path.append(str(i))
            fixed_items.append(_fix(schema, items if isinstance(items, Mapping) else None, v, path))
            path.pop()
        return fixed_items
    return value


def _fix_text(schema: JsonSchema, node: Any, value: str, path: list[str]) -> Any:
    """A string without its trailing ``\\r``; ``None`` for ``null`` where the schema wants an
    optional list, object, number or boolean; the JSON it holds where it wants a list, an
    object or a number; or a choice of an ``enum`` without the whitespace around it."""
    if value.endswith("\r"):
        value = value[:-1]
    if node is None:
        return value
    resolved = schema.resolve(node)
    choices = resolved.get("enum")
    if choices is not None and value not in choices and value.strip() in choices:
        # A blank line before the end marker makes `sine` "sine\n" (one newline less is the
        # format's rule, and a string may mean the rest). Space around a choice makes no other
        # choice, so it is that one, as space around a number is that number.
        return value.strip()
    kind = resolved.get("type")
    structured = kind in ("array", "object", "number", "integer") or (kind is None and "properties" in resolved)
    # A value can only be written as text, so `null` is how a model leaves out an optional
    # list, number, flag or object (`tags: list[str] | None`). Where a string is allowed, the
    # word stays a word.
    if (structured or kind == "boolean") and _no_value(schema, node, value):
        return None
    if structured:
        decoded = _json(value, path)
        if (
            (kind == "array" and isinstance(decoded, list))
            or (kind in ("object", None) and isinstance(decoded, dict))
            or (kind in ("number", "integer") and isinstance(decoded, (int, float)) and not isinstance(decoded, bool))
        ):
            return _fix(schema, node, decoded, path)
    return value


_NULL_WORDS: Final = frozenset({"null", "None"})
"""How models write "no value": JSON's ``null``, and Python's ``None`` from models trained on Python."""


def is_null_word(value: object) -> bool:
    """Whether ``value`` is text that says "no value" as models write it: ``null`` or ``None``,
    spaces around it aside."""
    if not isinstance(value, str):
        return False
    # Its ends first: a value may be a whole file, and only one that starts and ends as the word
    # does (or with a space) is worth stripping.
    first, last = value[:1], value[-1:]
    return (first in "nN" or first.isspace()) and (last in "le" or last.isspace()) and value.strip() in _NULL_WORDS


def _no_value(schema: JsonSchema, node: Any, text: str) -> bool:
    """Whether ``text`` is a null word and the field at ``node`` may be null."""
    return is_null_word(text) and schema.nullable(node)


def _json(text: str, path: list[str]) -> Any:
    stripped = text.strip()
    if not stripped or stripped[0] not in "[{-0123456789":
        return None
    try:
        return json.loads(stripped)
    except ValueError:
        return _python_literal(stripped)
    except RecursionError:  # nested past the interpreter's limit, far past MAX_PARAMETER_DEPTH
        raise InvalidParametersError(nesting_error([*path, *["..."] * MAX_PARAMETER_DEPTH])) from None


_PYTHON_LITERAL_MAX = 100_000
"""Longer texts are not read as Python literals: ``ast.literal_eval`` builds a whole syntax tree."""


def _python_literal(text: str) -> Any:
    """A list or dict written as a Python literal (``['a', 'b']``, ``{'k': True}``), or ``None``.
    Models trained on Python write lists so where the schema wants a list (Qwen2.5-Coder on the
    Berkeley Function Calling Leaderboard: ``['bottles of water', 'apples']``); ``literal_eval``
    reads literals only, never runs code."""
    if len(text) > _PYTHON_LITERAL_MAX or text[0] not in "[{":
        return None
    try:
        value = ast.literal_eval(text)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return _quoted_items(text)
    return value if isinstance(value, list | dict) else None


_QUOTED_LIST = re.compile(r"\[\s*'(.*)'\s*\]", re.DOTALL)
_ITEM_BREAK = re.compile(r"'\s*,\s*'")
_STRAY_QUOTE = re.compile(r"'\s*,|,\s*'")


def _quoted_items(text: str) -> list[str] | None:
    """A list of strings in single quotes whose items hold an apostrophe, which no Python
    literal can (``['I'm interested in a savings account', 'Are banks open?']``: Qwen2.5-Coder-1.5B
    on BFCL's live cases), or ``None``. The items are split where a quote, a comma and a quote
    meet; a text with a quote beside a comma anywhere else is no such list."""
    match = _QUOTED_LIST.fullmatch(text)
    if match is None:
        return None
    items = _ITEM_BREAK.split(match[1])
    return None if any(_STRAY_QUOTE.search(item) for item in items) else items


def prepare_params(gadget: Gadget, params: Mapping[str, Any]) -> dict[str, Any]:
    """``params`` given as a dict (not parsed from a call) made ready for :func:`validate_params`."""
    return _prepare(json_schema(gadget.Params), dict(params))
