"""Write scripted model answers: gadget calls in every syntax, as a model would write them."""

from __future__ import annotations

import itertools
import json
from collections.abc import Mapping, Sequence
from typing import Any

from llmist.providers.base import ToolCall
from llmist.syntax.writing import scalar_text, write_block_call, write_emoji_call

__all__ = ["block_call", "emoji_call", "tool_call"]

_tool_call_ids = itertools.count(1)


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
    text = write_block_call(
        gadget_name,
        {**(params or {}), **kwargs},
        invocation_id=invocation_id,
        deps=deps,
        start_prefix=start_prefix,
        end_prefix=end_prefix,
        arg_prefix=arg_prefix,
    )
    return text + "\n"


def emoji_call(gadget_name: str, /, *args: object, body: str | None = None) -> str:
    """One emoji-syntax call: ``emoji_call("write", "a.txt", body="hello")``. Ends with a newline.

    Arguments with spaces or quotes are double-quoted (as ``shlex.split`` reads them back); an end
    marker inside ``body`` is escaped (``🛠️[\\/end]``), and binding gives the gadget the body as
    given. Raises ``ValueError`` for an argument with ``]`` or a line break, which only the body
    can hold.
    """
    return write_emoji_call(gadget_name, [scalar_text(a) for a in args], body) + "\n"


def tool_call(
    gadget_name: str, params: Mapping[str, Any] | None = None, /, *, id: str | None = None, **kwargs: Any
) -> ToolCall:
    """One native tool call, for a :class:`~llmist.providers.mock.MockReply`:
    ``tool_call("add", a=2, b=3)``. Its arguments are the JSON of the parameters; its id is
    ``id``, else a fresh ``call_<n>``."""
    arguments = json.dumps({**(params or {}), **kwargs}, ensure_ascii=False)
    return ToolCall(id or f"call_{next(_tool_call_ids)}", gadget_name, arguments)
