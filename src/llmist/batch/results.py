"""The results file: one JSON line per finished run, appended as each run ends.

Each line is written with one ``write`` call straight to the file (no buffer of ours), so a
process killed at any moment leaves every finished run on disk and at worst one partial last
line, which the next run with the file cuts off before appending. A run whose line has no
``error`` is done: a later batch with the same file skips its id. Failed and cancelled runs are
written too (so the file says what happened) and run again next time; an id's last line is its outcome.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from llmist._files import unwritable_reason
from llmist._text import clean
from llmist.batch.tasks import BatchInputError
from llmist.providers.base import Usage

__all__ = ["ResultsFile", "TaskResult"]

logger = logging.getLogger("llmist.batch")


@dataclass(frozen=True, slots=True)
class TaskResult:
    """How one task of a batch ended: one line of the results file."""

    id: str
    """The task's id."""
    output: Any
    """The run's output as JSON data: text, or a structured output dumped to JSON types; ``None`` on error."""
    stop_reason: str | None
    """The agent's stop reason (``"no_calls"``, ``"task_complete"``, ``"cancelled"``...); ``None`` on error."""
    usage: Usage
    """Tokens used by the run (zero when it failed before any model call finished)."""
    cost: float
    """USD the run spent (model and gadgets)."""
    error: str | None
    """``"ErrorType: message"`` when the run raised or was cancelled; ``None`` when it ran to its end."""
    duration_s: float
    """Wall-clock seconds from the run's start to its end."""

    @property
    def ok(self) -> bool:
        """The run ended without an error (it counts as done for resuming)."""
        return self.error is None

    def to_json(self) -> str:
        """The result as one JSON line (without the newline)."""
        data = {
            "id": self.id,
            "output": self.output,
            "stop_reason": self.stop_reason,
            "usage": asdict(self.usage),
            "cost": self.cost,
            "error": self.error,
            "duration_s": round(self.duration_s, 6),
        }
        return clean(json.dumps(data, ensure_ascii=False, default=str))  # lone surrogates: U+FFFD

    @classmethod
    def from_json(cls, line: str) -> TaskResult:
        """Parse a line written by :meth:`to_json`; a line without the fields it writes (a task line,
        another program's JSON) raises ``ValueError`` naming those missing."""
        data = json.loads(line)
        if not isinstance(data, dict):
            raise ValueError(f"a JSON {type(data).__name__}, not an object")
        missing = [key for key in _FIELDS if key not in data]
        if missing:
            raise ValueError(f"no {', '.join(repr(k) for k in missing)}")
        return cls(
            id=str(data["id"]),
            output=data.get("output"),
            stop_reason=data.get("stop_reason"),
            usage=Usage(**(data.get("usage") or {})),
            cost=float(data.get("cost") or 0.0),
            error=data.get("error"),
            duration_s=float(data.get("duration_s") or 0.0),
        )


_FIELDS = ("id", "output", "stop_reason", "usage", "cost", "error", "duration_s")
"""The fields every result line has: what tells a results file from a tasks file."""


class ResultsFile:
    """A results file opened for a batch: reads what is done, then appends one line per run."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        """Where the results go."""
        self.done: dict[str, TaskResult] = {}
        """Results of the ids already done (read when opened)."""
        problem = unwritable_reason(self.path)  # before reading: a folder that is missing, a read-only one...
        if problem is not None:
            raise BatchInputError(f"results file {self.path} {problem}")
        self._read_and_repair()
        try:
            self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        except OSError as exc:
            raise BatchInputError(
                f"results file {self.path} cannot be written ({exc.strerror or exc}); "
                "give a file in a folder you can write"
            ) from None

    def append(self, result: TaskResult) -> None:
        """Write ``result`` as one line, at once (a crash after this keeps it). A write that fails
        (``OSError``: a full disk) leaves no part of the line behind."""
        data = (result.to_json() + "\n").encode("utf-8")
        view = memoryview(data)
        end = os.lseek(self._fd, 0, os.SEEK_END)
        try:
            while view:
                written = os.write(self._fd, view)
                view = view[written:]
        except OSError:  # a full disk: take back the part written, so the next line starts clean
            with contextlib.suppress(OSError):
                os.ftruncate(self._fd, end)
            raise
        if result.ok:
            self.done[result.id] = result

    def close(self) -> None:
        """Close the file (idempotent)."""
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    def _read_and_repair(self) -> None:
        """Read the finished ids; cut a partial last line (a crash during its write) off the file."""
        if not self.path.exists():
            return
        raw = self.path.read_bytes()
        end = raw.rfind(b"\n") + 1
        if end < len(raw):
            logger.warning("%s: dropping a partial last line (a run was cut off while it was written)", self.path)
            os.truncate(self.path, end)
        try:
            text = raw[:end].decode("utf-8")
        except UnicodeDecodeError as exc:
            where = raw.count(b"\n", 0, exc.start) + 1
            raise BatchInputError(
                f"{self.path}:{where}: not UTF-8 text (byte {raw[exc.start]:#04x}), so not a results file a batch "
                "wrote; use another --out file"
            ) from None
        # Split on "\n" only: a JSON string may hold U+0085 or U+2028, which str.splitlines() breaks at.
        for number, line in enumerate(text.split("\n"), start=1):
            if not line.strip():
                continue
            try:
                result = TaskResult.from_json(line)
            except (ValueError, KeyError, TypeError) as exc:
                raise BatchInputError(
                    f"{self.path}:{number}: not a result line ({exc}); expected the JSON lines a batch writes, "
                    f"with {', '.join(_FIELDS)}. Use another --out file or remove the line."
                ) from None
            if result.ok:
                self.done[result.id] = result
            else:
                self.done.pop(result.id, None)
