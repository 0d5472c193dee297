"""Every Python block of ``README.md`` and ``docs/*.md`` runs, in order per page: a doc that drifts
from the code fails here.

How to write a Python block in the docs (the fence's info string says which kind it is):

- `` ```python `` -- a **whole** program: imports, helpers and data included, so that it runs as
  pasted into a file. It runs in a fresh namespace (``__name__ == "__main__"``) in an empty
  temporary directory, with no network and no API keys. Where a real model would answer, use
  ``MockModel`` (``model=MockModel([...])`` or ``model="mock"``) when that is honest for the point
  the block makes.
- `` ```python name=NAME `` -- a whole program that later blocks of the same page continue.
- `` ```python continues=NAME `` -- a **fragment**: it runs after the block named ``NAME`` (earlier on
  the same page), in a copy of the names that block left, so it may use them without importing
  again. A fragment may itself be named and continued. Use it where a guide builds one program
  step by step; each fragment still runs.
- `` ```python same-as=PATH `` -- the block is the whole file ``PATH`` under ``examples/``, which the
  tests run with something a snippet cannot hold: a file beside it (``chart.png``), a local
  server that speaks a provider's wire format (``tests/providers/test_examples.py``), a Ray
  cluster started once, OpenTelemetry's global tracer provider (which a process sets once).
  The docs test checks that the block and the file are identical, so the page cannot drift
  from what runs.
- `` ```python norun=REASON `` -- shown, not run; ``REASON`` (the rest of the line, required) says
  why, e.g. ``norun=needs a running Ollama server``. Keep these rare: prefer the mock model.

A whole block that defines pytest tests (a top-level ``def test_...`` or ``async def test_...``) is
run by pytest instead: written to ``test_snippet.py`` and collected in a subprocess, with
``asyncio_mode=auto`` (pytest-asyncio), as the testing guide tells users to configure; it must
not be named or continued.

``name=`` may be combined with ``continues=``; ``same-as=`` and ``norun=`` stand alone.
Blocks in other languages (``bash``, ``toml``, plain fences) are not run here
(``tests/docs/test_commands.py`` runs the command lines of every page's ``bash`` blocks).
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
_FENCE = re.compile(r"^```python(?P<info>[^\n`]*)\n(?P<code>.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)
_KEYS = ("name", "continues", "same-as", "norun")


@dataclass(frozen=True)
class Snippet:
    """One Python block of a page."""

    page: str
    """The page, relative to the repository (``docs/gadgets.md``)."""
    line: int
    """The line of the block's first code line."""
    code: str
    name: str | None = None
    continues: str | None = None
    same_as: str | None = None
    norun: str | None = None

    @property
    def id(self) -> str:
        """``page:line``, the test id and the name of the code in tracebacks."""
        return f"{self.page}:{self.line}"


def _options(info: str, where: str) -> dict[str, str]:
    """The ``key=value`` options of a fence's info string (``norun=`` takes the rest of the line)."""
    options: dict[str, str] = {}
    rest = info.strip()
    while rest:
        key, eq, value = rest.partition("=")
        if not eq or key not in _KEYS:
            raise ValueError(f"{where}: unknown option {rest!r} after ```python; expected one of {', '.join(_KEYS)}")
        if key == "norun":
            options[key], rest = value.strip(), ""
        else:
            options[key], _, rest = value.partition(" ")
            rest = rest.strip()
    return options


def snippets(page: Path) -> list[Snippet]:
    """The Python blocks of ``page``, in order."""
    text = page.read_text(encoding="utf-8")
    rel = page.relative_to(ROOT).as_posix()
    found = []
    for match in _FENCE.finditer(text):
        line = text.count("\n", 0, match.start("code")) + 1
        opts = _options(match["info"], f"{rel}:{line}")
        found.append(
            Snippet(
                rel,
                line,
                match["code"],
                name=opts.get("name"),
                continues=opts.get("continues"),
                same_as=opts.get("same-as"),
                norun=opts.get("norun"),
            )
        )
    return found


ALL = [s for page in PAGES for s in snippets(page)]
_RESULTS: dict[tuple[str, str], dict[str, Any]] = {}
"""The names each named block left, by (page, name), for the fragments that continue it."""


def _namespace_after(snippet: Snippet, tmp: Path) -> dict[str, Any]:
    """A copy of the names the block ``snippet.continues`` left (running its chain if not run yet)."""
    assert snippet.continues is not None
    key = (snippet.page, snippet.continues)
    if key not in _RESULTS:
        earlier = [s for s in ALL if s.page == snippet.page and s.name == snippet.continues and s.line < snippet.line]
        assert earlier, f"{snippet.id}: continues={snippet.continues}, but no earlier block on the page has that name"
        _run(earlier[-1], tmp)
    return dict(_RESULTS[key])


def _run(snippet: Snippet, tmp: Path) -> None:
    namespace = _namespace_after(snippet, tmp) if snippet.continues else {"__name__": "__main__"}
    # Compiled as lines of the page itself, so a traceback shows the page's file, line and text;
    # dont_inherit keeps this module's `from __future__` imports out of the docs' code.
    padded = "\n" * (snippet.line - 1) + snippet.code
    code = compile(padded, str(ROOT / snippet.page), "exec", dont_inherit=True)
    exec(code, namespace)
    if snippet.name:
        _RESULTS[(snippet.page, snippet.name)] = namespace


def _defines_tests(code: str) -> bool:
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return False  # _run reports it, at its line of the page
    return any(
        isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith("test_") for node in tree.body
    )


def _run_with_pytest(snippet: Snippet, tmp: Path) -> None:
    assert not (snippet.name or snippet.continues), f"{snippet.id}: a block of tests is run by pytest, whole"
    (tmp / "test_snippet.py").write_text(snippet.code, encoding="utf-8")
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "asyncio_mode=auto"]
    proc = subprocess.run([*command, "test_snippet.py"], cwd=tmp, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, f"{snippet.id}: its tests failed under pytest\n{proc.stdout}\n{proc.stderr}"


@pytest.fixture
def in_tmp_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty working directory, and the environment of a user with no keys and no config file."""
    monkeypatch.chdir(tmp_path)
    for key in list(os.environ):
        if key.endswith(("_API_KEY", "_TOKEN", "_BASE_URL")) or key.startswith("LLMIST_"):
            monkeypatch.delenv(key)
    monkeypatch.setenv("LLMIST_CONFIG", os.devnull)
    return tmp_path


@pytest.mark.parametrize("snippet", ALL, ids=[s.id for s in ALL])
def test_snippet_runs(snippet: Snippet, in_tmp_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    if snippet.norun is not None:
        assert snippet.norun, f"{snippet.id}: norun= needs a reason"
        assert not snippet.name, f"{snippet.id}: a block that is not run cannot be continued"
        return
    if snippet.same_as is not None:
        assert snippet.same_as.startswith("examples/"), f"{snippet.id}: same-as= names a file under examples/"
        source = (ROOT / snippet.same_as).read_text(encoding="utf-8")
        assert snippet.code == source, f"{snippet.id} differs from {snippet.same_as}"
        return
    if _defines_tests(snippet.code):
        _run_with_pytest(snippet, in_tmp_dir)
        return
    _run(snippet, in_tmp_dir)


def test_names_are_unique_per_page() -> None:
    names = [(s.page, s.name) for s in ALL if s.name]
    assert sorted(names) == sorted(set(names))


def test_every_page_with_python_has_runnable_blocks() -> None:
    """A page whose every block is ``norun`` would test nothing."""
    pages = {s.page for s in ALL}
    runnable = {s.page for s in ALL if s.norun is None}
    assert pages == runnable


def test_python_blocks_are_fenced_as_python() -> None:
    """A ```` ```py ```` or ```` ```python3 ```` fence would escape this test."""
    other = [
        f"{page.relative_to(ROOT)}:{n}"
        for page in PAGES
        for n, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1)
        if re.match(r"```(py|python3|pycon)\b", line)
    ]
    assert other == []
