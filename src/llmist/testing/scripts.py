"""Write scripted model answers: gadget calls in either syntax, as a model would write them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["block_call", "emoji_call"]


def _flatten(prefix: str, value: Any, out: list[tuple[str, str]]) -> None:
    if isinstance(value, Mapping):
        for k, v in value.items():
            _flatten(f"{prefix}/{k}" if prefix else str(k), v, out)
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            _flatten(f"{prefix}/{i}", v, out)
    elif isinstance(value, bool):
        out.append((prefix, "true" if value else "false"))
    else:
        out.append((prefix, str(value)))


def block_call(
    gadget_name: str,
    params: Mapping[str, Any] | None = None,
    /,
    *,
    invocation_id: str | None = None,
    deps: Sequence[str] = (),
    start_prefix: str = "!!!GADGET_START:",
    end_prefix: str = "!!!GADGET_END",
    arg_prefix: str = "!!!ARG:",
    **kwargs: Any,
) -> str:
    """One block-format call: ``block_call("add", a=2, b=3)``, ``block_call("add", {"a": 2, "b": 3})``.

    ``invocation_id`` and ``deps`` fill the header (``add:id:dep1,dep2``). Nested dicts and lists
    become pointer paths (``items/0/name``); booleans are written ``true``/``false``. Ends with a
    newline so calls can be concatenated.
    """
    header = gadget_name
    if invocation_id is not None or deps:
        header += f":{invocation_id or gadget_name.lower()}"
    if deps:
        header += ":" + ",".join(deps)
    pairs: list[tuple[str, str]] = []
    _flatten("", {**(params or {}), **kwargs}, pairs)
    lines = [start_prefix + header]
    for path, value in pairs:
        lines.append(arg_prefix + path)
        lines.append(value)
    lines.append(end_prefix)
    return "\n".join(lines) + "\n"


def emoji_call(gadget_name: str, /, *args: object, body: str | None = None) -> str:
    """One emoji-syntax call: ``emoji_call("write", "a.txt", body="hello")``.

    Arguments containing spaces are double-quoted.
    """
    parts = [gadget_name]
    for a in args:
        s = str(a)
        parts.append(f'"{s}"' if (" " in s or not s) else s)
    text = "🛠️[" + " ".join(parts) + "]\n"
    if body:
        text += body if body.endswith("\n") else body + "\n"
    return text + "🛠️[/end]\n"
