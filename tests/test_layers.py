"""The layer rule of the design (data flows down, imports point up), checked on the package itself.

A module of one layer may import from layers listed before it in :data:`LAYERS`, never from one
after it. Root modules (``llmist/_callables.py``, ``llmist/__init__.py``) belong to no layer.

No import cycle either, between any two modules of the package (inside ``agent/``,
``gadgets/`` and every other package alike): :func:`cycles` follows every import a module
makes, at its top, inside a function (a function-level import that closes a cycle is one
waiting for its first call) and under ``if TYPE_CHECKING:``: those never run, but a reader
follows them as they follow any other, and a circle of them is a circle in the design, so none
is allowed with them or without them (``type_checking=False``). A package's ``__init__`` counts
only where a module imports a name from it, not merely because it imports one of the package's
modules.

Inside ``agent/``, the run's records (:data:`FLOOR`) sit below the run machinery: they import
nothing of ``agent/`` but each other, lowest first.

The checkers live here, not in a shared tool, so a clean clone tests the rules with nothing else.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

LAYERS = (
    "syntax",
    "gadgets",
    "skills",
    "execution",
    "mcp",
    "models",
    "providers",
    "agent",
    "testing",
    "evals",
    "batch",
    "durable",
    "web",
    "a2a",
    "cli",
)
"""The layers in import order. ``skills`` makes gadgets of skill folders; ``mcp`` builds gadgets
and runs them through the executor; the agent connects MCP servers; ``evals``, ``batch`` and
``web`` use the agent and are used only by the CLI; ``durable`` runs the agent's runs as DBOS
workflows, through the agent's run-steps seam (``llmist.agent.steps``), which knows nothing of
it; ``a2a`` serves the agent over A2A with the web layer's guards."""

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "llmist"


def layer_of(module: str) -> str | None:
    """The layer of a dotted module name, or ``None`` for root and foreign modules."""
    parts = module.split(".")
    if len(parts) < 2 or parts[0] != "llmist" or parts[1] not in LAYERS:
        return None
    return parts[1]


def _imported(node: ast.AST, own_parts: tuple[str, ...]) -> list[str]:
    """The modules (or names) an import statement names, relative ones resolved."""
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


def _module_name(path: Path, package: Path) -> tuple[str, tuple[str, ...]]:
    """The dotted name of the module at ``path``, and the parts its relative imports start from."""
    parts = path.relative_to(package.parent).with_suffix("").parts
    if parts[-1] == "__init__":
        return ".".join(parts[:-1]), (*parts[:-1], "__init__")
    return ".".join(parts), parts


def _type_checking_only(tree: ast.Module) -> set[int]:
    """The ids of the nodes under ``if TYPE_CHECKING:`` (imports there never run)."""
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and ast.unparse(node.test) in ("TYPE_CHECKING", "typing.TYPE_CHECKING"):
            skipped.update(id(inner) for stmt in node.body for inner in ast.walk(stmt))
    return skipped


def import_graph(package: Path, *, type_checking: bool = True) -> dict[str, set[str]]:
    """Each module of ``package`` -> the modules of ``package`` it imports (see the module docstring);
    ``type_checking=False`` leaves out the imports under ``if TYPE_CHECKING:``."""
    paths = {_module_name(p, package)[0]: p for p in sorted(package.rglob("*.py"))}
    graph: dict[str, set[str]] = {}
    for name, path in paths.items():
        own_parts = _module_name(path, package)[1]
        tree = ast.parse(path.read_text(encoding="utf-8"))
        skipped = _type_checking_only(tree) if not type_checking else set()
        found: set[str] = set()
        for node in ast.walk(tree):
            if id(node) in skipped:
                continue
            if isinstance(node, ast.ImportFrom):
                base = _imported(node, own_parts)[0]
                found.update(f"{base}.{a.name}" if f"{base}.{a.name}" in paths else base for a in node.names)
            else:
                found.update(_imported(node, own_parts))
        graph[name] = {m for m in found if m in paths and m != name}
    return graph


def cycles(package: Path, *, type_checking: bool = True) -> list[list[str]]:
    """Every group of modules of ``package`` that import each other in a circle, each sorted
    (``type_checking=False``: by the imports that run)."""
    graph = import_graph(package, type_checking=type_checking)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(module: str) -> None:  # Tarjan's strongly connected components
        index[module] = low[module] = len(index)
        stack.append(module)
        for other in sorted(graph[module]):
            if other not in index:
                visit(other)
                low[module] = min(low[module], low[other])
            elif other in stack:
                low[module] = min(low[module], index[other])
        if low[module] == index[module]:
            group = []
            while True:
                member = stack.pop()
                group.append(member)
                if member == module:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return found


FLOOR = ("records", "events", "result", "errors", "messages")
"""The run's records, at the floor of ``agent/``, lowest first: each imports, of ``agent/``, only
the ones before it (type-only imports included), so everything else in ``agent/`` stands on them."""


def test_no_module_of_the_package_is_part_of_an_import_cycle_that_runs() -> None:
    assert cycles(PACKAGE, type_checking=False) == []


def test_no_module_is_part_of_a_cycle_of_imports_type_only_ones_included() -> None:
    assert cycles(PACKAGE) == []


def test_the_records_of_a_run_import_nothing_of_the_agent_above_them() -> None:
    graph = import_graph(PACKAGE)
    floor = [f"llmist.agent.{name}" for name in FLOOR]
    above = {
        module: sorted(other for other in graph[module] if other.startswith("llmist.agent") and other not in floor[:i])
        for i, module in enumerate(floor)
    }
    assert {module: others for module, others in above.items() if others} == {}


def _fake_package(tmp_path: Path, files: dict[str, str]) -> Path:
    fake = tmp_path / "llmist"
    for name, source in files.items():
        path = fake / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(source)
    return fake


def test_the_sessions_use_of_the_agent_only_the_records_of_a_run_and_the_approvals_checks() -> None:
    # What keeps the sessions a package of their own: they stand on the floor, not on the loop.
    graph = import_graph(PACKAGE)
    allowed = {f"llmist.agent.{name}" for name in (*FLOOR, "approvals")}
    sessions = [m for m in graph if m == "llmist.agent.sessions" or m.startswith("llmist.agent.sessions.")]
    used = {
        other
        for module in sessions
        for other in graph[module]
        if other.startswith("llmist.agent") and other not in sessions
    }
    assert sessions and sorted(used - allowed) == []


def test_the_cycle_checker_finds_a_cycle_closed_inside_a_function(tmp_path: Path) -> None:
    fake = _fake_package(
        tmp_path,
        {
            "agent/__init__.py": "",
            "agent/a.py": "from llmist.agent.b import B\n",
            "agent/b.py": "def f():\n    from . import a\n",
        },
    )
    assert cycles(fake) == [["llmist.agent.a", "llmist.agent.b"]]


def test_the_cycle_checker_finds_a_cycle_closed_under_type_checking(tmp_path: Path) -> None:
    fake = _fake_package(
        tmp_path,
        {
            "agent/__init__.py": "",
            "agent/a.py": "from llmist.agent.b import B\n",
            "agent/b.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from llmist.agent.a import A\n",
        },
    )
    assert cycles(fake) == [["llmist.agent.a", "llmist.agent.b"]]
    assert cycles(fake, type_checking=False) == []  # the imports that run close none


def test_a_name_taken_from_a_packages_init_by_its_own_module_is_a_cycle(tmp_path: Path) -> None:
    fake = _fake_package(
        tmp_path,
        {
            "gadgets/__init__.py": "from llmist.gadgets.base import Gadget\nfrom llmist.gadgets.f import g\n",
            "gadgets/base.py": "",
            "gadgets/f.py": "from llmist.gadgets import Gadget\nfrom llmist.gadgets import base\n",
        },
    )
    assert cycles(fake) == [["llmist.gadgets", "llmist.gadgets.f"]]
