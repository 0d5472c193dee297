"""Which build of llmist is imported: pure Python from src/, or the compiled wheel's modules."""

from __future__ import annotations

import ast
import asyncio
import importlib
import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest

import llmist
from llmist.execution import GadgetExecutionResult, GadgetExecutor, GadgetScheduler
from llmist.gadgets import gadget
from llmist.syntax import GadgetCallParser, ParsedCall, TextEvent

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src"


def _compiled_modules() -> tuple[str, ...]:
    """``COMPILED_MODULES`` of hatch_build.py, read from its source (hatchling is a build tool,
    not installed where the tests run)."""
    tree = ast.parse((ROOT / "hatch_build.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "COMPILED_MODULES" for t in node.targets
        ):
            return tuple(ast.literal_eval(node.value))
    raise AssertionError("hatch_build.py defines no COMPILED_MODULES")


COMPILED = _compiled_modules()
INTERPRETED = (
    "llmist.syntax",
    "llmist.syntax.frozen",
    "llmist.syntax.events",
    "llmist.execution.results",
    "llmist.agent._run.loop",
    "llmist.agent.agent",
)


def _file(module: str) -> str:
    return str(importlib.import_module(module).__file__)


def test_the_build_compiles_the_hot_paths() -> None:
    assert {"llmist.syntax.block", "llmist.execution.scheduler", "llmist.agent._run.response"} <= set(COMPILED)
    assert not set(COMPILED) & set(INTERPRETED)


@pytest.mark.skipif(not os.environ.get("LLMIST_EXPECT_COMPILED"), reason="runs against the compiled wheel only")
def test_the_compiled_wheel_loads_compiled_modules() -> None:
    for module in COMPILED:
        assert not _file(module).endswith(".py"), f"{module} is not compiled: {_file(module)}"
        assert not Path(_file(module)).is_relative_to(SRC), module
    for module in INTERPRETED:
        assert _file(module).endswith(".py"), module
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


def test_interpreted_code_can_subclass_the_executor_and_the_scheduler() -> None:
    @gadget
    def add(a: int, b: int) -> str:
        """Add two numbers."""
        return str(a + b)

    seen: list[str] = []

    class Counting(GadgetExecutor):
        def start(self, call: ParsedCall, done: Callable[[GadgetExecutionResult], None]) -> Any:
            seen.append(call.gadget_name)
            return super().start(call, done)

    class Listing(GadgetScheduler):
        async def run(self, calls: Iterable[ParsedCall]) -> list[GadgetExecutionResult]:
            return sorted(await super().run(calls), key=lambda r: r.invocation_id)

    call = ParsedCall("add", "c1", "", {"a": 2, "b": 3}, None, ())
    results = asyncio.run(Listing(Counting([add])).run([call]))
    assert [r.result for r in results] == ["5"]
    assert seen == ["add"]
