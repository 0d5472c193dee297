"""The layer rule of the design (data flows down, imports point up), checked on the package itself.

A module of one layer may import from layers listed before it in :data:`LAYERS`, never from one
after it. Root modules (``llmist/_callables.py``, ``llmist/__init__.py``) belong to no layer.
The checker lives here, not in a shared tool, so a clean clone tests the rule with nothing else.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

LAYERS = (
    "syntax",
    "gadgets",
    "execution",
    "mcp",
    "models",
    "providers",
    "agent",
    "testing",
    "evals",
    "batch",
    "web",
    "cli",
)
"""The layers in import order. ``mcp`` builds gadgets and runs them through the executor; the
agent connects MCP servers; ``evals``, ``batch`` and ``web`` use the agent and are used only by the CLI."""

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "llmist"


def layer_of(module: str) -> str | None:
    """The layer of a dotted module name, or ``None`` for root and foreign modules."""
    parts = module.split(".")
    if len(parts) < 2 or parts[0] != "llmist" or parts[1] not in LAYERS:
        return None
    return parts[1]


def _imported(node: ast.AST, own_parts: tuple[str, ...]) -> list[str]:
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    if isinstance(node, ast.ImportFrom):
        if node.level == 0:
            return [node.module or ""]
        base = list(own_parts[: len(own_parts) - node.level])
        return [".".join(base + ([node.module] if node.module else []))]
    return []


def violations(package: Path) -> list[str]:
    """Every import in ``package`` (a directory named ``llmist``) that points down the layers."""
    found: list[str] = []
    for path in sorted(package.rglob("*.py")):
        parts = path.relative_to(package.parent).with_suffix("").parts
        own = layer_of(".".join(parts))
        if own is None:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            for name in _imported(node, parts):
                other = layer_of(name)
                if other is not None and LAYERS.index(other) > LAYERS.index(own):
                    found.append(f"{path.relative_to(package.parent)}:{node.lineno}: {own} imports {name}")
    return found


def test_no_layer_imports_from_a_layer_below_it() -> None:
    assert violations(PACKAGE) == []


def test_every_package_of_llmist_has_a_place_in_the_layers() -> None:
    packages = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").exists()}
    assert packages - set(LAYERS) == set()


@pytest.mark.parametrize(
    "source",
    ["from llmist.agent import Agent", "import llmist.cli.main", "from ..execution import executor"],
)
def test_the_checker_finds_an_import_that_points_down(tmp_path: Path, source: str) -> None:
    fake = tmp_path / "llmist"
    (fake / "gadgets").mkdir(parents=True)
    (fake / "gadgets" / "bad.py").write_text(source + "\n")
    assert len(violations(fake)) == 1


def test_the_checker_allows_imports_that_point_up(tmp_path: Path) -> None:
    fake = tmp_path / "llmist"
    (fake / "agent").mkdir(parents=True)
    (fake / "agent" / "good.py").write_text("from llmist.syntax import ParsedCall\nfrom . import other\n")
    assert violations(fake) == []
