"""Shape rules of the package that ruff does not check: short functions, no private asyncio or
CPython names, ``__class__`` retagging only inside the syntax layer."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "llmist"
MAX_FUNCTION_LINES = 60
"""Longest function allowed, signature and docstring included."""


def _trees() -> list[tuple[Path, ast.Module]]:
    return [(p, ast.parse(p.read_text(encoding="utf-8"))) for p in sorted(PACKAGE.rglob("*.py"))]


def test_no_function_is_longer_than_the_limit() -> None:
    long = [
        f"{path.relative_to(PACKAGE)}:{node.lineno} {node.name} ({node.end_lineno - node.lineno + 1} lines)"
        for path, tree in _trees()
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and node.end_lineno is not None
        and node.end_lineno - node.lineno + 1 > MAX_FUNCTION_LINES
    ]
    assert long == []


def _root(node: ast.expr) -> str:
    """The name an attribute chain starts from (``asyncio`` for ``asyncio.tasks._enter_task``)."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return node.id if isinstance(node, ast.Name) else ""


def test_no_private_name_of_asyncio_or_the_interpreter_is_used() -> None:
    used = [
        f"{path.relative_to(PACKAGE)}:{node.lineno} {ast.unparse(node)}"
        for path, tree in _trees()
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and node.attr.startswith("_")
        and not node.attr.startswith("__")
        and _root(node) in {"asyncio", "sys", "threading", "concurrent"}
    ]
    assert used == []


def test_class_retagging_stays_inside_the_syntax_layer() -> None:
    retagged = [
        f"{path.relative_to(PACKAGE)}:{node.lineno}"
        for path, tree in _trees()
        if "syntax" not in path.relative_to(PACKAGE).parts
        for node in ast.walk(tree)
        if isinstance(node, ast.Assign)
        and any(isinstance(t, ast.Attribute) and t.attr == "__class__" for t in node.targets)
    ]
    assert retagged == []
