"""``WriteFile`` and ``EditFile`` never lose a file: the new content is encoded first (a lone
surrogate becomes U+FFFD, the rule for text leaving the process), written to a temporary file
beside the target and renamed over it, so a failed write leaves the old file whole. ``EditFile``
refuses a file larger than its limit instead of reading it all."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from hypothesis import given, settings
from tests.strategies import any_text, replaced

from llmist.gadgets.builtins import EditFile, WriteFile
from llmist.testing import test_gadget

OLD = "hello world, 32 bytes in here!!\n"


def _existing(tmp_path: Path) -> Path:
    target = tmp_path / "notes.txt"
    target.write_text(OLD, encoding="utf-8")
    return target


def test_writing_a_lone_surrogate_writes_a_replacement_character(tmp_path: Path) -> None:
    target = _existing(tmp_path)
    out = test_gadget(WriteFile(tmp_path), {"path": "notes.txt", "content": "a\ud800b"})
    assert out.error is None, out.error
    assert target.read_text(encoding="utf-8") == "a\ufffdb"
    assert "1 lone surrogate written as U+FFFD" in (out.result or "")


def test_editing_in_a_lone_surrogate_writes_a_replacement_character(tmp_path: Path) -> None:
    target = _existing(tmp_path)
    out = test_gadget(EditFile(tmp_path), {"path": "notes.txt", "search": "world", "replace": "w\udc80rld"})
    assert out.error is None, out.error
    assert target.read_text(encoding="utf-8") == OLD.replace("world", "w\ufffdrld")


_FULL_DISK = """
import json, resource, signal, sys
from llmist.gadgets.builtins import EditFile, WriteFile
from llmist.testing import test_gadget

signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # past the size limit a write fails (EFBIG)
resource.setrlimit(resource.RLIMIT_FSIZE, (200, 200))
root = sys.argv[1]
outcomes = [
    test_gadget(WriteFile(root), {"path": "notes.txt", "content": "x" * 1000}).error,
    test_gadget(EditFile(root), {"path": "notes.txt", "search": "world", "replace": "y" * 1000}).error,
]
print(json.dumps(outcomes))
"""


def test_a_write_that_fails_half_way_leaves_the_old_file_whole(tmp_path: Path) -> None:
    target = _existing(tmp_path)
    proc = subprocess.run([sys.executable, "-c", _FULL_DISK, str(tmp_path)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    write_error, edit_error = json.loads(proc.stdout)
    assert write_error is not None and "notes.txt" in write_error
    assert edit_error is not None and "notes.txt" in edit_error
    assert target.read_text(encoding="utf-8") == OLD
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]  # no temporary file left


def test_a_replaced_file_keeps_its_permissions(tmp_path: Path) -> None:
    target = _existing(tmp_path)
    target.chmod(0o640)
    assert test_gadget(WriteFile(tmp_path), {"path": "notes.txt", "content": "new"}).error is None
    assert target.stat().st_mode & 0o777 == 0o640


def test_edit_refuses_a_file_past_its_size_limit_without_reading_it(tmp_path: Path) -> None:
    big = tmp_path / "big.log"
    with big.open("wb") as f:
        f.truncate(1 << 30)  # 1 GB, sparse: reading it whole would take a gigabyte of memory
    out = test_gadget(EditFile(tmp_path), {"path": "big.log", "search": "a", "replace": "b"})
    assert out.error is not None
    assert "big.log is 1,073,741,824 bytes" in out.error and "EditFile.max_bytes" in out.error
    assert big.stat().st_size == 1 << 30


@settings(max_examples=50, deadline=None)  # file I/O with fsync: slow on a busy machine
@given(any_text)
def test_any_text_is_written_with_lone_surrogates_replaced(tmp_path_factory: object, content: str) -> None:
    root = tmp_path_factory.mktemp("w")  # type: ignore[attr-defined]
    out = test_gadget(WriteFile(root), {"path": "f.txt", "content": content})
    assert out.error is None, out.error
    given_content = out.validated_params["content"]  # validation may drop a lone "\r" (docs/syntax.md)
    assert (root / "f.txt").read_bytes().decode("utf-8") == replaced(given_content)
    os.unlink(root / "f.txt")
