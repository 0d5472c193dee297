"""Load gadgets from a Python file or an importable module, as ``-g FILE_OR_MODULE`` names them."""

from __future__ import annotations

import importlib
import importlib.util
import sys
import traceback
from pathlib import Path
from types import ModuleType

from llmist.agent.guardrails import Guardrail
from llmist.cli._common import CliError
from llmist.gadgets import Gadget, as_gadget

__all__ = ["load_gadgets", "load_guardrails", "pick_gadget", "split_target"]


def split_target(target: str) -> tuple[str, str | None]:
    """``"tools.py:Calc"`` -> ``("tools.py", "Calc")``; ``"tools.py"`` -> ``("tools.py", None)``."""
    source, sep, name = target.rpartition(":")
    if sep and name and source and not name.startswith(("/", "\\")):
        return source, name
    return target, None


def load_guardrails(source: str) -> list[Guardrail]:
    """Every guardrail ``source`` defines at module level (``@tool_call_guardrail`` functions...), in
    definition order; names starting with ``_`` are left out."""
    module = _import(source)
    return [v for attr, v in vars(module).items() if isinstance(v, Guardrail) and not attr.startswith("_")]


def load_gadgets(source: str, *, required: bool = True) -> list[Gadget]:
    """Every gadget ``source`` defines: ``Gadget`` subclasses defined there or named in its ``__all__``
    (made with no arguments), ``Gadget`` instances and ``@gadget`` functions, in definition order.
    Names starting with ``_`` are left out. None is an error when ``required`` (a file of
    guardrails only need not define a gadget).
    """
    module = _import(source)
    exported = set(getattr(module, "__all__", ()))
    found: list[tuple[str, Gadget]] = []
    instance_types = {type(v) for v in vars(module).values() if isinstance(v, Gadget)}
    for attr, value in vars(module).items():
        if attr.startswith("_"):
            continue
        if isinstance(value, Gadget) or (
            isinstance(value, type)
            and issubclass(value, Gadget)
            and (value.__module__ == module.__name__ or attr in exported)
            and value not in instance_types
            and "execute" in _own_members(value)
        ):
            found.append((attr, _checked(value, source, attr)))
    if not found and required:
        raise CliError(
            f"{source} defines no gadgets; expected Gadget subclasses, Gadget instances or @gadget functions "
            f"at module level"
        )
    _refuse_shared_names(found, source)
    return [g for _, g in found]


def _refuse_shared_names(found: list[tuple[str, Gadget]], source: str) -> None:
    """One name, one gadget: a model could not say which of two it calls (the agent refuses them too)."""
    by_name: dict[str, list[str]] = {}
    for attr, g in found:
        by_name.setdefault(g.name, []).append(attr)
    for name, origins in by_name.items():
        if len(origins) > 1:
            raise CliError(
                f"{source} defines {_count(len(origins))} gadgets named {name!r} ({', '.join(origins)}); "
                "give each a unique name"
            )


def _count(n: int) -> str:
    return {2: "two", 3: "three"}.get(n, str(n))


def pick_gadget(gadgets: list[Gadget], name: str, source: str) -> Gadget:
    """The gadget called ``name`` (by gadget name or, failing that, case-insensitively)."""
    for g in gadgets:
        if g.name == name:
            return g
    for g in gadgets:
        if g.name.lower() == name.lower():
            return g
    names = ", ".join(g.name for g in gadgets)
    raise CliError(f"{source} has no gadget named {name!r}; it defines: {names}")


def _own_members(cls: type) -> set[str]:
    members: set[str] = set()
    for klass in cls.__mro__:
        if klass is Gadget:
            break
        members.update(vars(klass))
    return members


def _checked(value: object, source: str, attr: str) -> Gadget:
    try:
        return as_gadget(value)
    except Exception as exc:
        raise CliError(f"{source}: {attr} is not a usable gadget: {exc}") from None


def _import(source: str) -> ModuleType:
    path = Path(source)
    if source.endswith(".py") or path.exists():
        if not path.is_file():
            raise CliError(f"no such gadget file: {source}")
        return _import_file(path.resolve())
    try:
        return importlib.import_module(source)
    except SystemExit as exc:
        raise CliError(f"could not import {source}: {_describe_exit(exc)}") from None
    except ModuleNotFoundError as exc:
        if exc.name and source.startswith(exc.name):
            raise CliError(
                f"no gadget file or module {source!r}: give a path to a .py file or an importable module name"
            ) from None
        raise CliError(f"could not import {source}: {exc}") from None
    except Exception as exc:
        raise CliError(f"could not import {source}: {_describe(exc)}") from None


def _import_file(path: Path) -> ModuleType:
    name = f"llmist_gadgets_{path.stem}_{abs(hash(str(path))):x}"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise CliError(f"cannot load {path} as Python")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    sys.path.insert(0, str(path.parent))
    try:
        spec.loader.exec_module(module)
    except SystemExit as exc:
        del sys.modules[name]
        raise CliError(f"could not load gadgets from {path}: {_describe_exit(exc)}") from None
    except Exception as exc:
        del sys.modules[name]
        raise CliError(f"could not load gadgets from {path}: {_describe(exc)}") from None
    finally:
        sys.path.remove(str(path.parent))
    return module


def _describe(exc: BaseException) -> str:
    if isinstance(exc, SyntaxError):
        return f"SyntaxError: {exc.msg} (line {exc.lineno})"
    return f"{type(exc).__name__}: {exc}{_where(exc)}"


def _describe_exit(exc: SystemExit) -> str:
    """A file that calls ``sys.exit`` at import would end the command with its code and no word."""
    return f"it called sys.exit({exc.code!r}){_where(exc)}; a gadget file must not exit when imported"


def _where(exc: BaseException) -> str:
    """Where in the user's code ``exc`` was raised: the deepest frame outside llmist (a line of
    llmist's own would send them reading the library), unless the message already says it."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if not _in_llmist(f.filename)]
    if not frames:
        return ""
    frame = frames[-1]
    if f"{frame.filename}, line {frame.lineno}" in str(exc):
        return ""
    return f" (line {frame.lineno} of {Path(frame.filename).name})"


_LLMIST_DIR = Path(__file__).resolve().parents[1]


def _in_llmist(filename: str) -> bool:
    """Whether ``filename`` is a module of the llmist package itself."""
    try:
        return Path(filename).resolve().is_relative_to(_LLMIST_DIR)
    except (OSError, ValueError):
        return False
