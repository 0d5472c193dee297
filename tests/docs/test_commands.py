"""Every command line of ``README.md`` and ``docs/*.md`` runs, as the Python blocks do
(``test_snippets.py``): a guide whose command drifts from the CLI fails here.

How to write a command block in the docs:

- `` ```bash `` (or ``sh``) -- each line is a command a reader can paste; every one starts with
  ``llmist``. The test runs them in order, offline (no API keys, no config file; where a model
  would answer, ``-m mock`` or ``-m mock:SCRIPT.json``), each page in a workspace of its own: a
  copy of ``examples/`` with an empty ``work/`` beside it, as a clone of the repository has. A
  ``\\`` at a line's end continues it; ``#`` starts a comment. A line must exit with 0.
- `` ```bash norun=REASON `` -- shown, not run; ``REASON`` (required) says why: an API key, a
  server that runs until Ctrl-C (say which test runs it), a network install. Keep these rare.

A line that starts with ``llmist`` in any other block (``text``, plain) fails
:func:`test_llmist_command_lines_are_in_bash_blocks`: shown as text, it would escape this test.
Each run of this module reports, at the end, how many command lines ran and which were not run,
and why (``tests/docs/conftest.py``).
"""

from __future__ import annotations

import os
import re
import runpy
import shlex
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest

from llmist.cli._config import load_config
from tests.cli.helpers import llmist
from tests.docs.report import REPORT

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
_SHELLS = ("bash", "sh")
_FENCE = re.compile(r"^```(?P<lang>[\w-]*)(?P<info>[^\n`]*)\n(?P<code>.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)


@dataclass(frozen=True)
class Command:
    """One command line of a page's ``bash`` block."""

    page: str
    """The page, relative to the repository (``docs/cli.md``)."""
    line: int
    """The page's line the command starts on."""
    text: str
    """The command as written (continued lines joined)."""
    norun: str | None
    """Why the command is not run (its block's ``norun=``), or ``None``."""

    @property
    def id(self) -> str:
        return f"{self.page}:{self.line}"


def _norun(info: str, where: str) -> str | None:
    info = info.strip()
    if not info:
        return None
    key, eq, reason = info.partition("=")
    if key != "norun" or not eq:
        raise ValueError(f"{where}: unknown option {info!r} after ```bash; expected norun=REASON")
    return reason.strip()


def commands(page: Path) -> list[Command]:
    """The command lines of ``page``'s shell blocks, in order."""
    text = page.read_text(encoding="utf-8")
    rel = page.relative_to(ROOT).as_posix()
    found: list[Command] = []
    for match in _FENCE.finditer(text):
        if match["lang"] not in _SHELLS:
            continue
        first = text.count("\n", 0, match.start("code")) + 1
        norun = _norun(match["info"], f"{rel}:{first - 1}")
        pending, start = "", first
        for n, line in enumerate(match["code"].splitlines(), first):
            if not pending:
                start = n
            if line.endswith("\\"):
                pending += line[:-1]
                continue
            whole, pending = (pending + line).strip(), ""
            if whole and not whole.startswith("#"):
                found.append(Command(rel, start, whole, norun))
    return found


ALL = [c for page in PAGES for c in commands(page)]


@dataclass
class _Workspace:
    """A page's workspace and the ids of its commands that ran there."""

    root: Path
    ran: set[str]


@pytest.fixture(scope="module")
def workspaces() -> dict[str, _Workspace]:
    """Each page's workspace, made on first use (a page's commands share it, in order)."""
    return {}


def _workspace(page: str, made: dict[str, _Workspace], factory: pytest.TempPathFactory) -> _Workspace:
    if page not in made:
        root = factory.mktemp(Path(page).stem)
        shutil.copytree(ROOT / "examples", root / "examples", ignore=shutil.ignore_patterns("__pycache__"))
        (root / "work").mkdir()
        made[page] = _Workspace(root, set())
    return made[page]


def _run(command: Command, workspace: _Workspace) -> None:
    args = shlex.split(command.text, comments=True)
    assert args[0] == "llmist", (
        f"{command.id}: {command.text!r} is not an llmist command line; run it in a test of its own "
        "and mark the block norun=REASON"
    )
    shell = [a for a in args if a in ("|", "||", "&&", ";", "<", ">", ">>", "&")]
    assert not shell, f"{command.id}: {shell[0]!r}: a command line here is one command, without shell operators"
    proc = llmist(*args[1:], cwd=workspace.root, env={"COLUMNS": "140"})
    assert proc.returncode == 0, f"{command.id}: {command.text}\n{proc.stdout}\n{proc.stderr}"
    workspace.ran.add(command.id)


@pytest.mark.slow
@pytest.mark.parametrize("command", ALL, ids=[c.id for c in ALL])
def test_every_command_line_of_the_guides_runs(
    command: Command, workspaces: dict[str, _Workspace], tmp_path_factory: pytest.TempPathFactory
) -> None:
    if command.norun is not None:
        assert command.norun, f"{command.id}: norun= needs a reason"
        REPORT.skipped.append((command.id, command.norun))
        pytest.skip(f"{command.id}: not run: {command.norun}")
    workspace = _workspace(command.page, workspaces, tmp_path_factory)
    # A line may use what an earlier line of its page wrote (--out, then --compare): those run
    # first when this one is run alone (-k).
    earlier = [c for c in ALL if c.page == command.page and c.line < command.line and c.norun is None]
    for before in earlier:
        if before.id not in workspace.ran:
            _run(before, workspace)
    _run(command, workspace)
    REPORT.ran.append(command.id)


def test_llmist_command_lines_are_in_bash_blocks() -> None:
    """An ``llmist`` line fenced as ``text`` (or not at all) would never run."""
    hidden = [
        f"{page.relative_to(ROOT)}:{text.count(chr(10), 0, match.start('code')) + n}: {line}"
        for page in PAGES
        for text in [page.read_text(encoding="utf-8")]
        for match in _FENCE.finditer(text)
        if match["lang"] not in (*_SHELLS, "python")
        for n, line in enumerate(match["code"].splitlines(), 1)
        if line.startswith("llmist ")
    ]
    assert hidden == [], "fence these as ```bash (norun=REASON when they cannot run offline)"


def test_every_guide_with_llmist_commands_runs_some() -> None:
    """A page whose every command is ``norun`` would test nothing. Three are on purpose: web.md's
    ``llmist web`` lines are served by ``tests/web/test_examples.py``, the README's one line
    shows a real model (its offline path is ``make demo``), and durable.md's decide a durable run
    that waits, which ``tests/durable/test_approvals.py`` starts in a process of its own and
    decides with the same commands."""
    ran = {c.page for c in ALL if c.norun is None}
    with_llmist = {c.page for c in ALL if c.text.startswith("llmist ")}
    assert with_llmist - ran == {"docs/web.md", "README.md", "docs/durable.md"}


TOML_PAGES = ["docs/cli.md", "docs/builtins.md", "docs/configuration.md", "README.md"]


@pytest.mark.parametrize("page", TOML_PAGES)
def test_every_toml_sample_is_a_valid_config(page: str, tmp_path: Path) -> None:
    text = (ROOT / page).read_text(encoding="utf-8")
    for block in re.findall(r"```toml\n(.*?)```", text, re.DOTALL):
        (tmp_path / "llmist.toml").write_text(block, encoding="utf-8")
        for profile in [None, *re.findall(r"^\[profiles\.(\w+)\]", block, re.MULTILINE)]:
            load_config(cwd=tmp_path, env={"LLMIST_CONFIG": os.devnull}, profile=profile)


def test_readme_example_runs(capsys: pytest.CaptureFixture[str]) -> None:
    for path in (ROOT / "examples" / "readme").glob("*.py"):
        runpy.run_path(str(path), run_name="__main__")
    assert "2 + 3 = 5 5" in capsys.readouterr().out
