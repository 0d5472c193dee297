"""Ready-made guardrails: sizes, a deny-list of parameter patterns, a path allow-list, and an
answer that must validate.

::

    from llmist.agent.builtin_guardrails import allow_paths, deny_parameters, max_prompt_chars

    agent = Agent(
        model="sonnet",
        gadgets=builtin_gadgets("./work"),
        guardrails=[
            max_prompt_chars(20_000),
            deny_parameters(r"\\brm\\s+-(?=\\w*r)(?=\\w*f)\\w+", gadgets=["RunCommand"]),
            allow_paths("src/", "docs/*.md", gadgets=["WriteFile", "EditFile"]),
        ],
    )

A deny-list is a tripwire for the obvious, not a sandbox: a model can write the same command
in many ways (``find -delete``, a script it writes first). Confine what a gadget can reach
(the file gadgets' sandbox root, a container) and use the deny-list to stop a run early.
"""

from __future__ import annotations

import fnmatch
import json
import os
import posixpath
import re
import unicodedata
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from pydantic import BaseModel, TypeAdapter, ValidationError

from llmist.agent.guardrails import (
    GadgetNames,
    GuardedCall,
    GuardedInput,
    GuardedOutput,
    Guardrail,
    Refuse,
    Tripwire,
    gadget_names,
)

__all__ = [
    "FILE_GADGETS",
    "allow_paths",
    "deny_parameters",
    "max_answer_chars",
    "max_prompt_chars",
    "output_validates",
]

FILE_GADGETS = ("ReadFile", "WriteFile", "EditFile", "ListDirectory")
"""The built-in file gadgets (``llmist.gadgets.builtins``), whose ``path`` parameter
:func:`allow_paths` checks by default."""


def max_prompt_chars(limit: int, *, name: str = "max_prompt_chars") -> Guardrail:
    """An input guardrail: a prompt longer than ``limit`` characters trips."""
    _check_limit(limit)

    def check(guarded: GuardedInput) -> Tripwire | None:
        size = len(guarded.prompt)
        if size <= limit:
            return None
        return Tripwire(
            f"the prompt has {size:,} characters; at most {limit:,} are allowed", {"chars": size, "limit": limit}
        )

    return Guardrail("input", check, name)


def max_answer_chars(limit: int, *, name: str = "max_answer_chars") -> Guardrail:
    """An output guardrail: an answer longer than ``limit`` characters (a typed one as JSON) trips."""
    _check_limit(limit)

    def check(guarded: GuardedOutput) -> Tripwire | None:
        size = len(guarded.text)
        if size <= limit:
            return None
        return Tripwire(
            f"the answer has {size:,} characters; at most {limit:,} are allowed", {"chars": size, "limit": limit}
        )

    return Guardrail("output", check, name)


def deny_parameters(
    *patterns: str | re.Pattern[str],
    gadgets: GadgetNames = None,
    parameters: Iterable[str] | None = None,
    refuse: bool = True,
    name: str = "deny_parameters",
) -> Guardrail:
    """A tool-call guardrail: a call whose parameters match one of ``patterns`` (regular
    expressions, searched anywhere in each value) is refused, or trips the run with
    ``refuse=False``.

    It checks the calls of ``gadgets`` (default: all) and, in them, the top-level ``parameters``
    named (default: every value, nested ones too; numbers and booleans as JSON writes them).
    Values are compared in Unicode's NFKC form, so full-width or compatibility look-alikes
    (``ｒｍ -ｒｆ``, a no-break space) match what they look like.
    """
    if not patterns:
        raise ValueError("deny_parameters needs at least one pattern, e.g. deny_parameters(r'\\brm\\s+-rf')")
    compiled = tuple(re.compile(p) if isinstance(p, str) else p for p in patterns)
    keys = None if parameters is None else frozenset(parameters)

    def check(guarded: GuardedCall) -> Refuse | Tripwire | None:
        for where, value in _texts(guarded.parameters, keys):
            text = unicodedata.normalize("NFKC", value)
            for pattern in compiled:
                found = pattern.search(text)
                if found is None:
                    continue
                reason = (
                    f"its {where} matches the denied pattern {pattern.pattern!r} ({found.group(0)!r}); "
                    "do this another way, or not at all"
                )
                data = {"parameter": where, "pattern": pattern.pattern, "match": found.group(0)}
                return Refuse(reason, data) if refuse else Tripwire(reason, data)
        return None

    return Guardrail("tool_call", check, name, gadgets=gadget_names(gadgets))


def allow_paths(
    *patterns: str,
    gadgets: GadgetNames = FILE_GADGETS,
    parameter: str = "path",
    root: str | os.PathLike[str] | None = None,
    refuse: bool = True,
    name: str = "allow_paths",
) -> Guardrail:
    """A tool-call guardrail: the ``parameter`` (``path``) of the calls of ``gadgets`` (the file
    gadgets) must be one of ``patterns``, or the call is refused (trips with ``refuse=False``).

    Paths are compared relative to the gadgets' root, with ``/`` separators, ``.`` and ``..``
    resolved (``src/../secret`` is ``secret``); a path that leaves the root, is absolute or is
    empty never matches. A pattern ending in ``/`` allows that directory and everything under it;
    any other is an ``fnmatch`` pattern (``*`` also matches ``/``: ``docs/*.md`` allows
    ``docs/a/b.md``); ``.`` is the root itself. With ``root`` (the gadgets' sandbox root) the
    path is also resolved on disk, symlinks followed, and where it leads must match too.
    A call without the parameter is checked as ``.`` (``ListDirectory`` lists the root).
    """
    if not patterns:
        raise ValueError("allow_paths needs at least one pattern, e.g. allow_paths('src/', 'README.md')")
    allowed = tuple(_pattern(p) for p in patterns)
    base = Path(root).expanduser().resolve() if root is not None else None

    def check(guarded: GuardedCall) -> Refuse | Tripwire | None:
        raw = guarded.parameters.get(parameter, ".")
        path = _relative(raw) if isinstance(raw, str) else None
        landed = _on_disk(base, path) if base is not None and path is not None else path
        if path is not None and landed is not None and _allowed(path, allowed) and _allowed(landed, allowed):
            return None
        shown = ", ".join(repr(p) for p in patterns)
        where = f" (it leads to {landed!r})" if landed not in (None, path) else ""
        reason = f"the path {raw!r}{where} is not among the allowed paths ({shown})"
        data = {"path": raw, "allowed": list(patterns)}
        return Refuse(reason, data) if refuse else Tripwire(reason, data)

    return Guardrail("tool_call", check, name, gadgets=gadget_names(gadgets))


def output_validates(expected: Any, *, name: str = "output_validates") -> Guardrail:
    """An output guardrail: the answer must validate as ``expected`` (a Pydantic model, or any
    type Pydantic validates), or the run trips with the validation errors as its data.

    A text answer is read as JSON (a fenced ``json`` block is unwrapped); a typed one (the
    agent's ``output_type``) is validated as its fields, so a stricter model than the output
    type can check it.
    """
    adapter: TypeAdapter[Any] = TypeAdapter(expected)
    label = getattr(expected, "__name__", repr(expected))

    def check(guarded: GuardedOutput) -> Tripwire | None:
        value = guarded.output
        try:
            if isinstance(value, str) and expected is not str:
                adapter.validate_json(_unfenced(value))
            else:
                adapter.validate_python(value.model_dump() if isinstance(value, BaseModel) else value)
        except ValidationError as error:
            errors = error.errors(include_url=False, include_context=False)
            first = errors[0]
            where = ".".join(str(p) for p in first["loc"]) or "the answer"
            return Tripwire(f"the answer is not a valid {label}: {where}: {first['msg']}", errors)
        return None

    return Guardrail("output", check, name)


def _check_limit(limit: int) -> None:
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 0:
        raise ValueError(f"a size limit is a whole number of characters, 0 or more; got {limit!r}")


def _texts(value: Any, keys: frozenset[str] | None, where: str = "") -> Iterator[tuple[str, str]]:
    """Every value in ``value`` (nested dicts and lists) as text (numbers and booleans as JSON
    writes them), with where it sits (``command``, ``files/0/path``); at the top, only ``keys``
    when given."""
    if isinstance(value, str):
        yield where or "value", value
    elif isinstance(value, bool | int | float) or value is None:
        yield where or "value", json.dumps(value)
    elif isinstance(value, dict):
        for key, item in value.items():
            if where or keys is None or key in keys:
                yield from _texts(item, None, f"{where}/{key}" if where else str(key))
    elif isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            yield from _texts(item, None, f"{where}/{i}" if where else str(i))


def _pattern(pattern: str) -> str:
    """A pattern in the form paths are compared in (a trailing ``/`` kept: it means a directory)."""
    directory = pattern.endswith(("/", "\\"))
    found = _relative(pattern)
    if found is None:
        raise ValueError(f"allow_paths: {pattern!r} is not a path relative to the gadgets' root")
    return found + "/" if directory and found != "." else found


def _relative(path: str) -> str | None:
    """``path`` relative to the root, normalized (``None``: absolute, empty, or leaving the root)."""
    text = unicodedata.normalize("NFC", path).strip().replace("\\", "/")
    if not text or "\x00" in text or text.startswith(("/", "~")) or re.match(r"[A-Za-z]:", text):
        return None
    norm = posixpath.normpath(text)
    if norm == ".." or norm.startswith("../"):
        return None
    return norm


def _on_disk(base: Path, path: str) -> str | None:
    """Where ``path`` leads under ``base`` once symlinks are followed (``None``: out of it)."""
    resolved = (base / path).resolve()
    if not resolved.is_relative_to(base):
        return None
    return resolved.relative_to(base).as_posix() or "."


def _allowed(path: str, allowed: tuple[str, ...]) -> bool:
    for pattern in allowed:
        if pattern.endswith("/"):
            if path == pattern[:-1] or path.startswith(pattern):
                return True
        elif fnmatch.fnmatchcase(path, pattern):
            return True
    return False


def _unfenced(text: str) -> str:
    """The JSON inside a fenced code block, or the text as it is."""
    stripped = text.strip()
    found = re.fullmatch(r"```[a-zA-Z]*\s*\n(.*?)\n?```", stripped, re.DOTALL)
    return found.group(1) if found else stripped
