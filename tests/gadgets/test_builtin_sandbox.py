"""The sandbox refuses every way out of its root, with a message that says why."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from llmist.gadgets.builtins import EditFile, ListDirectory, ReadFile, Sandbox, SandboxError, WriteFile
from llmist.testing import test_gadget


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "root").mkdir()
    (tmp_path / "secret.txt").write_text("outside", encoding="utf-8")
    return tmp_path / "root"


def test_path_traversal_is_refused(root: Path) -> None:
    out = test_gadget(ReadFile(root), {"path": "../secret.txt"})
    assert out.error == "SandboxError: '..' is not allowed in paths: '../secret.txt'. Stay inside the sandbox root"


def test_traversal_hidden_in_the_middle_is_refused(root: Path) -> None:
    (root / "sub").mkdir()
    out = test_gadget(WriteFile(root), {"path": "sub/../../secret.txt", "content": "x"})
    assert out.error is not None and "'..' is not allowed" in out.error
    assert (root.parent / "secret.txt").read_text(encoding="utf-8") == "outside"


@pytest.mark.parametrize("path", ["/etc/passwd", "~/secret.txt", "C:\\Windows\\win.ini"])
def test_absolute_paths_are_refused(root: Path, path: str) -> None:
    out = test_gadget(ReadFile(root), {"path": path})
    assert out.error is not None and "Absolute paths are not allowed" in out.error


def test_a_symlink_to_a_file_outside_is_refused(root: Path) -> None:
    (root / "link.txt").symlink_to(root.parent / "secret.txt")
    out = test_gadget(ReadFile(root), {"path": "link.txt"})
    assert out.error is not None
    assert "leads outside the sandbox root through a symlink" in out.error
    assert str((root.parent / "secret.txt").resolve()) in out.error


def test_writing_through_a_symlinked_directory_outside_is_refused(root: Path) -> None:
    outside = root.parent / "elsewhere"
    outside.mkdir()
    (root / "out").symlink_to(outside, target_is_directory=True)
    out = test_gadget(WriteFile(root), {"path": "out/new.txt", "content": "x"})
    assert out.error is not None and "through a symlink" in out.error
    assert not (outside / "new.txt").exists()


def test_a_symlink_inside_the_root_is_allowed(root: Path) -> None:
    (root / "real.txt").write_text("inside", encoding="utf-8")
    (root / "alias.txt").symlink_to(root / "real.txt")
    assert test_gadget(ReadFile(root), {"path": "alias.txt"}).result == "inside"


def test_listing_marks_symlinks_that_lead_out(root: Path) -> None:
    (root / "link").symlink_to(root.parent / "secret.txt")
    (root / "a.txt").write_text("abc", encoding="utf-8")
    out = test_gadget(ListDirectory(root), {})
    assert out.result == "a.txt (3 bytes)\nlink -> (outside the sandbox, not usable)"


def test_the_root_must_be_a_directory(tmp_path: Path) -> None:
    with pytest.raises(SandboxError, match="is not a directory"):
        Sandbox(tmp_path / "missing")


def test_write_creates_parent_folders_and_reports(root: Path) -> None:
    out = test_gadget(WriteFile(root), {"path": "src/pkg/mod.py", "content": "x = 1\n"})
    assert out.result == "Wrote 6 characters to src/pkg/mod.py (created)"
    assert (root / "src/pkg/mod.py").read_text(encoding="utf-8") == "x = 1\n"


def test_reading_a_missing_file_says_how_to_find_files(root: Path) -> None:
    out = test_gadget(ReadFile(root), {"path": "nope.txt"})
    assert out.error == (
        "GadgetError: No such file: 'nope.txt' (relative to the sandbox root); use ListDirectory to see what exists"
    )


def test_edit_replaces_exactly_one_occurrence(root: Path) -> None:
    (root / "a.py").write_text("x = 1\ny = 2\n", encoding="utf-8")
    out = test_gadget(EditFile(root), {"path": "a.py", "search": "y = 2", "replace": "y = 3"})
    assert out.result == "Edited a.py: replaced 5 characters at line 2"
    assert (root / "a.py").read_text(encoding="utf-8") == "x = 1\ny = 3\n"


def test_edit_with_missing_search_text_explains(root: Path) -> None:
    (root / "a.py").write_text("x = 1\n", encoding="utf-8")
    out = test_gadget(EditFile(root), {"path": "a.py", "search": "x = 2", "replace": ""})
    assert out.error is not None and "The search text was not found in a.py" in out.error


def test_edit_with_ambiguous_search_text_names_the_lines(root: Path) -> None:
    (root / "a.py").write_text("x = 1\nx = 1\ny\nx = 1\n", encoding="utf-8")
    out = test_gadget(EditFile(root), {"path": "a.py", "search": "x = 1", "replace": "x = 2"})
    assert out.error is not None
    assert "occurs 3 times in a.py (at lines 1, 2, 4)" in out.error
    assert (root / "a.py").read_text(encoding="utf-8") == "x = 1\nx = 1\ny\nx = 1\n"


def test_recursive_listing(root: Path) -> None:
    (root / "d").mkdir()
    (root / "d" / "f.txt").write_text("hi", encoding="utf-8")
    assert test_gadget(ListDirectory(root), {"recursive": True}).result == "d/\nd/f.txt (2 bytes)"


def test_writes_need_approval_reads_do_not() -> None:
    assert WriteFile.requires_approval and EditFile.requires_approval
    assert not ReadFile.requires_approval and not ListDirectory.requires_approval


def test_relative_root_is_resolved_once(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(root)
    reader = ReadFile(".")
    (root / "f.txt").write_text("here", encoding="utf-8")
    monkeypatch.chdir(os.sep)
    assert test_gadget(reader, {"path": "f.txt"}).result == "here"
