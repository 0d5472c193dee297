"""User suites: a Python module (file or dotted name) defining ``SUITE``, or a YAML file of cases.

A YAML suite::

    name: my-tools
    gadgets: [tools.py]          # where its gadgets come from (resolved by ``gadget_loader``)
    cases:
      - name: add_numbers
        category: single
        prompt: Use add to compute 2 + 3.
        gadgets: [add]           # by name; all the suite's gadgets when left out
        answer: ["5"]            # strings the final answer must contain (one string works too)
        calls:
          - gadget: add
            params: {a: 2, b: 3}
        syntaxes: [block, emoji] # optional (default: all three); also same_response, stop_reason, max_iterations

YAML needs PyYAML (``pip install 'llmist[evals]'``).
"""

from __future__ import annotations

import importlib
import runpy
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from llmist._install import install_command
from llmist.evals.builtin import BUILTIN_SUITE
from llmist.evals.case import SYNTAXES, EvalCase, EvalSuite, ExpectedCall, SyntaxName
from llmist.gadgets import Gadget, as_gadget

__all__ = ["load_suite"]

_CASE_KEYS = {"name", "category", "prompt", "gadgets", "answer", "calls", "same_response", "stop_reason", "syntaxes",
              "max_iterations"}  # fmt: skip
_CALL_KEYS = {"gadget", "params", "with_dependency"}


def load_suite(
    source: str | None = None,
    *,
    gadgets: Sequence[object] = (),
    gadget_loader: Callable[[str], Sequence[object]] | None = None,
) -> EvalSuite:
    """The suite ``source`` names: ``None`` or ``"builtin"`` for the built-in one, a ``.yaml``/``.yml``
    file, a ``.py`` file or an importable module defining ``SUITE`` (an :class:`EvalSuite`).

    YAML cases name their gadgets; they are looked up in ``gadgets`` and in what ``gadget_loader``
    returns for each entry of the file's ``gadgets:`` list (paths relative to the file).
    """
    if source is None or source == "builtin":
        return BUILTIN_SUITE
    if source.endswith((".yaml", ".yml")):
        return _yaml_suite(Path(source), gadgets, gadget_loader)
    if source.endswith(".py"):
        if not Path(source).is_file():
            raise ValueError(f"no such suite file: {source}")
        namespace: Mapping[str, Any] = runpy.run_path(source)
    else:
        try:
            namespace = vars(importlib.import_module(source))
        except ModuleNotFoundError:
            raise ValueError(
                f"no suite {source!r}: give 'builtin', a .yaml file, a .py file or an importable module"
            ) from None
    suite = namespace.get("SUITE")
    if not isinstance(suite, EvalSuite):
        raise ValueError(f"{source} defines no SUITE; expected `SUITE = EvalSuite(name, cases)` at module level")
    return suite


def _yaml_suite(path: Path, gadgets: Sequence[object], loader: Callable[[str], Sequence[object]] | None) -> EvalSuite:
    try:
        yaml: Any = importlib.import_module("yaml")
    except ImportError:
        raise ImportError(f"YAML suites need PyYAML. Install it with:\n    {install_command('evals')}") from None
    if not path.is_file():
        raise ValueError(f"no such suite file: {path}")
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict) or not isinstance(data.get("cases"), list):
        raise ValueError(f"{path}: expected a mapping with a `cases:` list")
    pool = [as_gadget(g) for g in gadgets]
    for source in data.get("gadgets") or []:
        if loader is None:
            raise ValueError(f"{path} loads gadgets from {source!r}: pass gadget_loader= (llmist eval does)")
        where = path.parent / source
        pool += [as_gadget(g) for g in loader(str(where) if where.exists() else source)]
    by_name = {g.name: g for g in pool}
    cases = tuple(_yaml_case(path, n, c, by_name) for n, c in enumerate(data["cases"], 1))
    return EvalSuite(str(data.get("name") or path.stem), cases)


def _yaml_case(path: Path, n: int, raw: Any, by_name: Mapping[str, Gadget]) -> EvalCase:
    where = f"{path}: case {n}"
    if not isinstance(raw, dict) or "name" not in raw or "prompt" not in raw:
        raise ValueError(f"{where}: expected a mapping with at least `name` and `prompt`")
    unknown = sorted(set(raw) - _CASE_KEYS)
    if unknown:
        raise ValueError(f"{where}: unknown keys {unknown}; expected some of {sorted(_CASE_KEYS)}")
    names = raw.get("gadgets") or list(by_name)
    missing = [x for x in names if x not in by_name]
    if missing:
        raise ValueError(f"{where}: no gadget named {missing}; the suite has {sorted(by_name)}")
    answer = raw.get("answer") or ()
    return EvalCase(
        name=str(raw["name"]),
        category=str(raw.get("category", "custom")),
        prompt=str(raw["prompt"]),
        gadgets=[by_name[x] for x in names],
        answer=(str(answer),) if isinstance(answer, (str, int, float)) else tuple(str(a) for a in answer),
        calls=tuple(_yaml_call(where, c) for c in raw.get("calls") or ()),
        same_response=bool(raw.get("same_response", False)),
        stop_reason=raw.get("stop_reason"),
        syntaxes=_syntaxes(where, raw.get("syntaxes")),
        max_iterations=int(raw.get("max_iterations", 6)),
    )


def _yaml_call(where: str, raw: Any) -> ExpectedCall:
    if not isinstance(raw, dict) or "gadget" not in raw or set(raw) - _CALL_KEYS:
        raise ValueError(
            f"{where}: each of `calls` needs `gadget` and may have `params`, `with_dependency`; got {raw!r}"
        )
    return ExpectedCall(str(raw["gadget"]), dict(raw.get("params") or {}), None, bool(raw.get("with_dependency")))


def _syntaxes(where: str, raw: Any) -> tuple[SyntaxName, ...]:
    """A case's ``syntaxes`` (every syntax when absent)."""
    if raw is None:
        return SYNTAXES
    names = [raw] if isinstance(raw, str) else raw
    if not isinstance(names, list) or not names or any(n not in SYNTAXES for n in names):
        raise ValueError(f"{where}: `syntaxes` must be a list of {', '.join(SYNTAXES)}; got {raw!r}")
    return tuple(names)
