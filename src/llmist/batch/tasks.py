"""What a batch runs: :class:`Task` records, made from prompts, dicts or a JSONL file."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from llmist.gadgets import LlmistError

__all__ = ["BatchInputError", "Task", "as_tasks", "load_tasks"]


class BatchInputError(LlmistError, ValueError):
    """A task list or a results file cannot be read: the message names the line and what was expected."""


@dataclass(frozen=True, slots=True)
class Task:
    """One agent run of a batch."""

    id: str
    """Names the run in the results file; a re-run with the same file skips ids already done."""
    prompt: str
    """What the agent is asked."""
    inputs: Mapping[str, Any] = field(default_factory=dict)
    """Per-task values for an agent factory that takes the task (``lambda task: Agent(...)``)."""


def as_tasks(tasks: Iterable[str | Task | Mapping[str, Any]]) -> list[Task]:
    """``tasks`` as :class:`Task` records with unique ids.

    A plain prompt gets its position in ``tasks`` as id (``"0"``, ``"1"``, ...), so the same list
    resumes the same way; a mapping needs ``prompt`` and may have ``id`` (else its position) and ``inputs``.
    """
    out = [_one(item, str(index)) for index, item in enumerate(tasks)]
    dupes = sorted(i for i, n in Counter(t.id for t in out).items() if n > 1)
    if dupes:
        shown = ", ".join(repr(d) for d in dupes[:5])
        raise BatchInputError(f"task ids must be unique (the results file is keyed by them); repeated: {shown}")
    return out


def load_tasks(path: str | Path) -> list[Task]:
    """The tasks of a JSONL file: one JSON object per line (``{"id": ..., "prompt": ..., "inputs": {...}}``)
    or one JSON string (a prompt, id = its line number). Blank lines are skipped."""
    items: list[Task] = []
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, start=1):
            if not line.strip():
                continue
            try:
                value = json.loads(line)
            except json.JSONDecodeError as exc:
                raise BatchInputError(
                    f"{path}:{number}: not JSON ({exc.msg}); expected an object or a string"
                ) from None
            try:
                items.append(_one(value, str(number)))
            except BatchInputError as exc:
                raise BatchInputError(f"{path}:{number}: {exc}") from None
    return as_tasks(items)


def _one(item: object, default_id: str) -> Task:
    if isinstance(item, Task):
        return item
    if isinstance(item, str):
        return Task(default_id, item)
    if not isinstance(item, Mapping):
        raise BatchInputError(f"a task is a prompt string or a mapping with 'prompt', got {type(item).__name__}")
    prompt = item.get("prompt")
    if not isinstance(prompt, str):
        raise BatchInputError(f"a task needs a string 'prompt', got {type(prompt).__name__}: {dict(item)!r:.80}")
    raw_id = item.get("id", default_id)
    if not isinstance(raw_id, str | int) or isinstance(raw_id, bool):
        raise BatchInputError(f"a task 'id' is a string or an integer, got {raw_id!r}")
    inputs = item.get("inputs") or {}
    if not isinstance(inputs, Mapping):
        raise BatchInputError(f"a task's 'inputs' is an object, got {type(inputs).__name__}")
    return Task(str(raw_id), prompt, dict(inputs))
