"""``GadgetOutputViewer``: the gadget a model uses to read outputs the store kept back."""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from llmist.gadgets.base import Gadget, GadgetExample
from llmist.gadgets.context import ExecutionContext
from llmist.gadgets.output_store import GadgetOutputStore

__all__ = ["GadgetOutputViewer", "OutputPattern"]

NL = "\n"
_LIMIT = re.compile(r"\s*(\d*)\s*-\s*(\d*)\s*")


class OutputPattern(BaseModel):
    """One grep-like filter step."""

    model_config = ConfigDict(defer_build=True)

    regex: Annotated[str, Field(description="Regular expression to match")]
    include: Annotated[bool, Field(description="true = keep matching lines, false = drop them")] = True
    before: Annotated[int, Field(ge=0, description="Context lines before each match (like grep -B)")] = 0
    after: Annotated[int, Field(ge=0, description="Context lines after each match (like grep -A)")] = 0


class ViewerParams(BaseModel):
    """Parameters of ``GadgetOutputViewer``."""

    model_config = ConfigDict(defer_build=True)

    id: Annotated[str, Field(description="ID from the truncation message")]
    patterns: Annotated[
        list[OutputPattern], Field(description="Filters applied in order, each to the result of the previous")
    ] = []
    limit: Annotated[
        str | None, Field(description='Line range of the filtered result: "100-" first 100, "-25" last 25, "50-100"')
    ] = None


class GadgetOutputViewer(Gadget):
    """Reads a stored output back: filter its lines by patterns, then take a line range."""

    name = "GadgetOutputViewer"
    description = (
        "Browse a gadget output that was too large to show. Filter lines with patterns (applied in order, "
        "like piping through grep), then limit to a line range."
    )
    Params = ViewerParams
    examples = (
        GadgetExample(
            params={
                "id": "Search_d34db33f",
                "patterns": [{"regex": "TODO.*HIGH", "before": 2, "after": 2}],
                "limit": "100-",
            },
            comment="first 100 lines around high-priority TODOs",
        ),
    )

    def __init__(self, store: GadgetOutputStore) -> None:
        self.store = store
        """Where the outputs are kept."""

    def execute(self, params: ViewerParams, ctx: ExecutionContext) -> str:
        """Filter and slice the stored output; an unknown id or a bad regex raises ``ValueError``."""
        text = self.store.get(params.id)
        if text is None:
            known = ", ".join(self.store.ids()) or "none"
            raise ValueError(f"No stored output with id {params.id!r}. Stored ids: {known}")
        lines = text.split("\n")
        for pattern in params.patterns:
            lines = _apply(pattern, lines)
        if params.limit is not None:
            lines = _slice(lines, params.limit)
        if not lines:
            return "(no lines matched)"
        output = "\n".join(lines)
        if len(output) > self.store.char_limit:
            cut = output[: self.store.char_limit]
            shown = cut.count("\n")
            kept = cut[: cut.rfind(NL)] if shown else cut
            note = f"[... truncated after {shown:,} of {len(lines):,} lines: narrow with patterns or limit]"
            output = kept + NL + note
        return output


def _apply(pattern: OutputPattern, lines: list[str]) -> list[str]:
    try:
        regex = re.compile(pattern.regex)
    except re.error as exc:
        raise ValueError(f"Invalid regex {pattern.regex!r}: {exc}") from None
    if not pattern.include:
        return [line for line in lines if not regex.search(line)]
    keep = [False] * len(lines)
    for index, line in enumerate(lines):
        if regex.search(line):
            for k in range(max(0, index - pattern.before), min(len(lines), index + pattern.after + 1)):
                keep[k] = True
    return [line for line, kept in zip(lines, keep, strict=True) if kept]


def _slice(lines: list[str], limit: str) -> list[str]:
    match = _LIMIT.fullmatch(limit)
    if match is None or not (match.group(1) or match.group(2)):
        raise ValueError(f'Invalid limit {limit!r}: use "100-" (first 100 lines), "-25" (last 25) or "50-100" (range)')
    start, end = match.group(1), match.group(2)
    if start and not end:
        return lines[: int(start)]
    if end and not start:
        return lines[-int(end) :] if int(end) else []
    first, last = int(start), int(end)
    if first > last:
        raise ValueError(f"Invalid limit {limit!r}: the range start is after its end")
    return lines[max(first - 1, 0) : last]
