"""The CLI guides' samples run: each `bash` command line, each TOML file (tests/docs runs the Python)."""

from __future__ import annotations

import os
import re
import runpy
import shlex
import shutil
from pathlib import Path

import pytest

from llmist.cli._config import load_config
from tests.cli.helpers import ROOT, llmist

DOCS = ["docs/cli.md", "docs/builtins.md", "docs/configuration.md", "README.md"]


def _blocks(doc: str, lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", (ROOT / doc).read_text(encoding="utf-8"), re.DOTALL)


COMMANDS = [
    (doc, line)
    for doc in DOCS
    for block in _blocks(doc, "bash")
    for line in block.splitlines()
    if line.startswith("llmist ")
]


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The repository's examples with an empty work/ directory beside them."""
    root = tmp_path_factory.mktemp("ws")
    shutil.copytree(ROOT / "examples", root / "examples")
    (root / "work").mkdir()
    return root


@pytest.mark.parametrize(("doc", "line"), COMMANDS, ids=[line[:60] for _, line in COMMANDS])
def test_every_documented_command_runs(doc: str, line: str, workspace: Path) -> None:
    proc = llmist(*shlex.split(line)[1:], cwd=workspace, env={"COLUMNS": "140"})
    assert proc.returncode == 0, f"{doc}: {line}\n{proc.stdout}\n{proc.stderr}"


def test_the_guides_have_commands() -> None:
    assert {doc for doc, _ in COMMANDS} == {"docs/cli.md", "docs/builtins.md", "docs/configuration.md"}


@pytest.mark.parametrize("doc", DOCS)
def test_every_toml_sample_is_a_valid_config(doc: str, tmp_path: Path) -> None:
    for block in _blocks(doc, "toml"):
        (tmp_path / "llmist.toml").write_text(block, encoding="utf-8")
        for profile in [None, *re.findall(r"^\[profiles\.(\w+)\]", block, re.MULTILINE)]:
            load_config(cwd=tmp_path, env={"LLMIST_CONFIG": os.devnull}, profile=profile)


def test_readme_example_runs(capsys: pytest.CaptureFixture[str]) -> None:
    for path in (ROOT / "examples" / "readme").glob("*.py"):
        runpy.run_path(str(path), run_name="__main__")
    assert "2 + 3 = 5 5" in capsys.readouterr().out
