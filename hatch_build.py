"""Hatch build hook: compile llmist's hot modules with mypyc into the wheel.

A regular (non-editable) wheel build compiles the modules of :data:`COMPILED_MODULES` (the block
parser; the scheduler and executor of calls; the agent loop's per-chunk and per-call paths) with
mypyc and ships the extension modules next to their ``.py`` sources (the import system prefers
the extension). Compilation never touches ``src/``: the package is copied into a scratch
directory, built there, and only the resulting ``.so`` files are added to the wheel. If mypyc
or the C compiler is unavailable the build goes on as a pure-Python wheel, with a warning.
``LLMIST_NO_COMPILE=1`` opts out (and then the build does not even install mypy); editable
installs are always pure Python.
``LLMIST_REQUIRE_COMPILE=1`` turns the fallback into an error (``make test-compiled`` sets it).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

COMPILED_MODULES = (
    "llmist.syntax._base",
    "llmist.syntax._rope",
    "llmist.syntax._tolerance",
    "llmist.syntax.block",
    "llmist.syntax.emoji",
    "llmist.syntax.pointers",
    "llmist.gadgets.binding",
    "llmist.execution._deadline",
    "llmist.execution._eager",
    "llmist.execution._runners",
    "llmist.execution.executor",
    "llmist.execution.scheduler",
    "llmist.agent._run.degeneration",
    "llmist.agent._run.response",
    "llmist.agent._run.calls",
    "llmist.agent._run.state",
    "llmist.agent.repairs",
    "llmist.agent.conversation",
)
"""The compiled modules; the rest of the package stays interpreted (async generators, which
mypyc cannot compile, and the frozen dataclasses ``fast_constructor`` builds live there)."""

_BUILD_REQUIREMENTS = ["mypy>=1.10", "setuptools>=64"]

# Run in the scratch directory by a fresh interpreter, so mypyc's files (the generated C,
# setuptools' build/ folder) land there and a crash cannot take the wheel build with it.
_SETUP = """\
import sys
from setuptools import setup
from mypyc.build import mypycify

modules = sys.argv[1:]
sys.argv[1:] = ["build_ext", "--inplace"]
setup(
    name="llmist-compiled",
    ext_modules=mypycify(
        ["--no-site-packages", "--ignore-missing-imports", "--follow-imports=silent", *modules],
        opt_level="3",
        debug_level="0",
    ),
)
"""


def _env_flag(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() not in ("", "0", "false", "no")


def _opted_out() -> bool:
    return _env_flag("LLMIST_NO_COMPILE")


class MypycBuildHook(BuildHookInterface):  # type: ignore[type-arg]
    """Adds the mypyc-compiled modules to a standard wheel (see the module docstring)."""

    PLUGIN_NAME = "custom"

    def dependencies(self) -> list[str]:
        """mypy (which ships mypyc) and setuptools, unless compilation is opted out."""
        return [] if _opted_out() else list(_BUILD_REQUIREMENTS)

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        """Compile and register the extension modules, or leave the wheel pure."""
        if version != "standard" or self.target_name != "wheel":
            return
        if _opted_out():
            self.app.display_info("llmist: LLMIST_NO_COMPILE is set, building a pure-Python wheel")
            return
        scratch = Path(tempfile.mkdtemp(prefix="llmist-mypyc-"))
        try:
            built = self._compile(scratch)
        except Exception as exc:  # any failure means: ship the pure wheel
            if _env_flag("LLMIST_REQUIRE_COMPILE"):
                raise
            message = f"llmist: mypyc compilation failed, building a pure-Python wheel instead ({exc})"
            self.app.display_warning(message)
            warnings.warn(message, stacklevel=1)
            shutil.rmtree(scratch, ignore_errors=True)
            return
        self._scratch = scratch
        for path in built:
            build_data["force_include"][str(path)] = str(path.relative_to(scratch / "out"))
        build_data["pure_python"] = False
        build_data["infer_tag"] = True
        self.app.display_info(f"llmist: compiled {', '.join(COMPILED_MODULES)} with mypyc")

    def finalize(self, version: str, build_data: dict[str, Any], artifact_path: str) -> None:
        """Remove the scratch directory once the wheel holds the extension modules."""
        scratch = getattr(self, "_scratch", None)
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)

    def _compile(self, scratch: Path) -> list[Path]:
        """Build the extensions in ``scratch``; return them, laid out as in the wheel under ``scratch/out``."""
        work = scratch / "work"
        # The whole package, so mypy sees the compiled modules' imports of ours; third-party
        # ones (pydantic, httpx, ...), absent from the isolated build environment, are ignored
        # missing imports (typed Any), and --no-site-packages keeps them so even when the
        # installing environment has them: the same build everywhere.
        shutil.copytree(
            Path(self.root) / "src" / "llmist",
            work / "llmist",
            ignore=shutil.ignore_patterns("*.so", "*.pyd", "__pycache__"),
        )
        (work / "setup_mypyc.py").write_text(_SETUP)
        sources = [module.replace(".", "/") + ".py" for module in COMPILED_MODULES]
        proc = subprocess.run(
            [sys.executable, "setup_mypyc.py", *sources],
            cwd=work,
            capture_output=True,
            text=True,
            env={**os.environ, "MYPY_CACHE_DIR": str(scratch / "mypy-cache")},
        )
        if proc.returncode != 0:
            tail = (proc.stderr or proc.stdout).strip().splitlines()[-15:]
            raise RuntimeError("\n".join(tail))
        out = scratch / "out"
        built: list[Path] = []
        for ext in sorted(work.rglob("*.so")) + sorted(work.rglob("*.pyd")):
            if "build" in ext.relative_to(work).parts:
                continue
            target = out / ext.relative_to(work)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.move(str(ext), target)
            built.append(target)
        expected = {module.replace(".", "/") for module in COMPILED_MODULES}
        found = {p.relative_to(out).as_posix().split(".", 1)[0] for p in built}
        if not expected <= found:
            raise RuntimeError(f"mypyc did not produce {sorted(expected - found)}")
        return built
