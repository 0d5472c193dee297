"""One narrow function around griffe: a docstring's summary text and its parameter descriptions."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

__all__ = ["ParsedDocstring", "parse_docstring"]

_SPHINX = re.compile(r"^\s*:(?:param|parameter|arg|argument|key|keyword)\b", re.MULTILINE)
_NUMPY = re.compile(r"^\s*(?:Parameters|Other Parameters)\s*\n\s*-{3,}\s*$", re.MULTILINE)


@dataclass(frozen=True, slots=True)
class ParsedDocstring:
    """The parts of a function's docstring a gadget uses."""

    description: str
    """The text sections (everything except Args/Returns/Raises...), joined."""
    params: dict[str, str] = field(default_factory=dict)
    """Parameter name to its description, from a Google, NumPy or Sphinx parameter section."""


def _style(text: str) -> str:
    if _SPHINX.search(text):
        return "sphinx"
    if _NUMPY.search(text):
        return "numpy"
    return "google"


def parse_docstring(text: str) -> ParsedDocstring:
    """Split ``text`` (an already dedented docstring) into description and parameter descriptions."""
    import griffe  # lazy: keeps `import llmist` fast

    style: Any = _style(text)
    sections = griffe.Docstring(text, lineno=1, parser=style, parser_options={"warnings": False}).parsed
    texts: list[str] = []
    params: dict[str, str] = {}
    for section in sections:
        if section.kind is griffe.DocstringSectionKind.text:
            texts.append(str(section.value).strip())
        elif section.kind in (griffe.DocstringSectionKind.parameters, griffe.DocstringSectionKind.other_parameters):
            for param in section.value:
                if param.description:
                    params[param.name] = " ".join(param.description.split())
    return ParsedDocstring(description="\n\n".join(t for t in texts if t), params=params)
