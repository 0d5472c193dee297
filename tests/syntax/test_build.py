"""Which build of the syntax modules is imported: pure Python from src/, or the compiled wheel's."""

from __future__ import annotations

import importlib
import os
from pathlib import Path

import pytest

import llmist
from llmist.syntax import GadgetCallParser, TextEvent

COMPILED = (
    "llmist.syntax._base",
    "llmist.syntax._rope",
    "llmist.syntax.block",
    "llmist.syntax.emoji",
    "llmist.syntax.pointers",
)
INTERPRETED = ("llmist.syntax", "llmist.syntax._fast", "llmist.syntax.events")
SRC = Path(__file__).resolve().parents[2] / "src"


def _file(module: str) -> str:
    return str(importlib.import_module(module).__file__)


@pytest.mark.skipif(not os.environ.get("LLMIST_EXPECT_COMPILED"), reason="runs against the compiled wheel only")
def test_the_compiled_wheel_loads_compiled_modules() -> None:
    for module in COMPILED:
        assert not _file(module).endswith(".py"), f"{module} is not compiled: {_file(module)}"
    for module in INTERPRETED:
        assert _file(module).endswith(".py"), module
    assert not Path(_file("llmist.syntax.block")).is_relative_to(SRC)
    assert llmist.syntax.COMPILED


def test_the_source_tree_is_pure_python() -> None:
    """An editable install imports src/, where a stale compiled module must never sit."""
    if not Path(str(llmist.__file__)).is_relative_to(SRC):
        pytest.skip("llmist is not imported from the source tree")
    for module in COMPILED + INTERPRETED:
        assert _file(module).endswith(".py"), f"stale compiled module in src/: {_file(module)}"
    assert not [p for p in (SRC / "llmist").rglob("*") if p.suffix in (".so", ".pyd")]
    assert not llmist.syntax.COMPILED


def test_interpreted_code_can_subclass_the_block_parser() -> None:
    class Shouting(GadgetCallParser):
        def feed(self, chunk: str) -> list[TextEvent]:  # type: ignore[override]
            return [TextEvent(e.content.upper()) for e in super().feed(chunk) if isinstance(e, TextEvent)]

    parser = Shouting()
    assert parser.feed("hello world") == [TextEvent("HELLO WORLD")]
    assert isinstance(parser, GadgetCallParser)
