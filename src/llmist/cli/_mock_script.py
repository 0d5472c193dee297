"""``-m mock:FILE.json``: a scripted model for offline runs and demos, built on ``MockModel``.

The file is a JSON object::

    {
      "chunk_size": 6,          // characters per streamed chunk (optional)
      "delay_s": 0.01,          // pause before each chunk (optional)
      "turns": [                // one entry per model call
        ["Let me write it.", {"gadget": "WriteFile", "params": {"path": "a.py", "content": "..."}}],
        "All done."
      ]
    }

A turn is a string, or a list of strings (prose) and calls. A call names its ``gadget`` and
``params``, and optionally an ``id`` and ``deps``; it is written in the syntax the agent uses,
so one script serves ``--syntax block`` and ``--syntax emoji``; with ``--syntax native`` the
calls come as native tool calls after the turn's text.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from llmist.cli._common import CliError
from llmist.gadgets import Gadget, render_call
from llmist.testing import MockModel, MockReply, block_call, tool_call

__all__ = ["MOCK_PREFIX", "load_mock_script", "mock_script_path"]

MOCK_PREFIX = "mock:"


def mock_script_path(model: str) -> Path | None:
    """The script file named by ``mock:FILE`` (whatever its name ends with), else ``None``.

    Anything after ``mock:`` is a file: a misspelt or missing one is an error naming it
    (:func:`load_mock_script`), never a silent fall back to the echoing ``mock`` model.
    """
    if not model.startswith(MOCK_PREFIX):
        return None
    rest = model[len(MOCK_PREFIX) :]
    return Path(rest) if rest else None


def load_mock_script(path: Path, gadgets: Sequence[Gadget], syntax: str) -> MockModel:
    """A :class:`MockModel` that streams the turns of the script at ``path``."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise CliError(
            f"mock script not found: {path} "
            "(-m mock:FILE replays the JSON script FILE; -m mock alone echoes the prompt)"
        ) from None
    except IsADirectoryError:
        raise CliError(f"mock script {path} is a directory; give the JSON script file") from None
    except UnicodeDecodeError:
        raise CliError(f"mock script {path} is not UTF-8 text; give the JSON script file") from None
    except json.JSONDecodeError as exc:
        raise CliError(f"mock script {path} is not valid JSON: {exc.msg} (line {exc.lineno})") from None
    if not isinstance(data, dict) or not isinstance(data.get("turns"), list):
        raise CliError(f'mock script {path} must be a JSON object with a "turns" list')
    by_name = {g.name: g for g in gadgets}
    turns = [_turn(path, i, turn, by_name, syntax) for i, turn in enumerate(data["turns"], 1)]
    chunk_size = data.get("chunk_size")
    delay = data.get("delay_s", 0.0)
    if chunk_size is not None and not (isinstance(chunk_size, int) and chunk_size > 0):
        raise CliError(f"mock script {path}: chunk_size must be a positive integer, got {chunk_size!r}")
    if not isinstance(delay, (int, float)) or delay < 0:
        raise CliError(f"mock script {path}: delay_s must be a number of seconds >= 0, got {delay!r}")
    return MockModel(turns, chunk_size=chunk_size, delay_s=float(delay), name="mock")


def _turn(path: Path, n: int, turn: Any, gadgets: Mapping[str, Gadget], syntax: str) -> str | MockReply:
    if isinstance(turn, str):
        return turn
    if not isinstance(turn, list):
        raise CliError(f"mock script {path}: turn {n} must be a string or a list, got {type(turn).__name__}")
    parts: list[str] = []
    native: list[Mapping[str, Any]] = []
    for part in turn:
        if isinstance(part, str):
            parts.append(part if part.endswith("\n") else part + "\n")
        elif isinstance(part, dict) and isinstance(part.get("gadget"), str) and syntax == "native":
            native.append(part)
        elif isinstance(part, dict) and isinstance(part.get("gadget"), str):
            parts.append(_call(path, n, part, gadgets, syntax))
        else:
            raise CliError(
                f'mock script {path}: turn {n} holds {part!r}; expected text or {{"gadget": NAME, "params": {{...}}}}'
            )
    if native:
        return MockReply("".join(parts), [tool_call(p["gadget"], _params(path, n, p), id=p.get("id")) for p in native])
    return "".join(parts)


def _params(path: Path, n: int, part: Mapping[str, Any]) -> dict[str, Any]:
    params = part.get("params", {})
    if not isinstance(params, dict):
        raise CliError(f"mock script {path}: turn {n}: params of {part['gadget']} must be an object")
    return params


def _call(path: Path, n: int, part: Mapping[str, Any], gadgets: Mapping[str, Gadget], syntax: str) -> str:
    name, params = part["gadget"], _params(path, n, part)
    if syntax == "emoji":
        gadget = gadgets.get(name)
        if gadget is None:
            raise CliError(f"mock script {path}: turn {n} calls {name!r}, which this run does not have")
        return render_call(gadget, params, "emoji") + "\n"
    deps = part.get("deps", [])
    return block_call(name, params, invocation_id=part.get("id"), deps=deps)
