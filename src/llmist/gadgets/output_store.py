"""Output limiting: results too large for the context are stored and replaced by a notice."""

from __future__ import annotations

import secrets
import threading

__all__ = ["DEFAULT_OUTPUT_LIMIT_PERCENT", "GadgetOutputStore", "output_char_limit"]

DEFAULT_OUTPUT_LIMIT_PERCENT = 15.0
"""Share of the model's context window a single gadget result may take."""

_CHARS_PER_TOKEN = 4


def output_char_limit(context_window: int, percent: float = DEFAULT_OUTPUT_LIMIT_PERCENT) -> int:
    """``context_window × percent / 100 × 4`` characters (200K tokens at 15 % → 120,000)."""
    if context_window <= 0 or not 0 < percent <= 100:
        raise ValueError(f"need context_window > 0 and 0 < percent <= 100, got {context_window}, {percent}")
    return int(context_window * percent / 100 * _CHARS_PER_TOKEN)


class GadgetOutputStore:
    """Keeps outputs longer than ``char_limit`` in memory, under ids like ``Search_d34db33f``."""

    def __init__(self, char_limit: int) -> None:
        if char_limit <= 0:
            raise ValueError(f"char_limit must be positive, got {char_limit}")
        self.char_limit = char_limit
        """Outputs longer than this many characters are stored."""
        self._outputs: dict[str, str] = {}
        self._lock = threading.Lock()

    def limit(self, gadget_name: str, output: str) -> str:
        """``output`` itself if it fits, else store it and return the notice the model sees."""
        if len(output) <= self.char_limit:
            return output
        output_id = self.store(gadget_name, output)
        size = len(output.encode("utf-8"))
        lines = output.count("\n") + 1
        return (
            f'[Gadget "{gadget_name}" returned too much data: {size:,} bytes, {lines:,} lines. '
            f'Use GadgetOutputViewer with id "{output_id}" to read it]'
        )

    def store(self, gadget_name: str, output: str) -> str:
        """Store ``output`` and return its new id."""
        with self._lock:
            while True:
                output_id = f"{gadget_name}_{secrets.token_hex(4)}"
                if output_id not in self._outputs:
                    self._outputs[output_id] = output
                    return output_id

    def get(self, output_id: str) -> str | None:
        """The stored output, or ``None`` for an unknown id."""
        return self._outputs.get(output_id)

    def ids(self) -> list[str]:
        """Ids of every stored output, oldest first."""
        return list(self._outputs)

    def clear(self) -> None:
        """Forget every stored output."""
        with self._lock:
            self._outputs.clear()
