"""No swap of a directory for a symlink, at any moment, lets a file gadget reach outside its
root: paths are opened one component at a time, relative to a directory already opened, never
following a link out (``openat`` with ``O_NOFOLLOW``)."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from llmist.gadgets import ExecutionContext
from llmist.gadgets.builtins import EditFile, ListDirectory, ReadFile, WriteFile
from llmist.gadgets.builtins.files import EditFileParams, ListDirectoryParams, ReadFileParams, WriteFileParams

pytestmark = pytest.mark.slow

_ATTACK_S = 3.0


_SWAPPER = """
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
root, outside = sys.argv[1], sys.argv[2]
os.symlink(outside, root + "/link")
real, link = (root + "/real").encode(), (root + "/link").encode()
AT_FDCWD, RENAME_EXCHANGE = -100, 2
print("ready", flush=True)
while True:  # one atomic exchange per step: real is always a directory or a symlink out, half the time each
    libc.renameat2(AT_FDCWD, real, AT_FDCWD, link, RENAME_EXCHANGE)
"""
"""Swaps ``root/real`` (a directory) with a symlink to ``outside``, atomically and as fast as it
can (``renameat2(RENAME_EXCHANGE)``), in a process of its own."""


def test_swapping_a_directory_for_a_symlink_never_reaches_outside(tmp_path: Path) -> None:
    root, outside = tmp_path / "root", tmp_path / "outside"
    (root / "real").mkdir(parents=True)
    outside.mkdir()
    (root / "real" / "file.txt").write_text("inside\n", encoding="utf-8")
    (outside / "file.txt").write_text("SECRET\n", encoding="utf-8")
    ctx = ExecutionContext(gadget_name="test")
    leaks: list[str] = []
    stop = threading.Event()

    def attack_with_gadgets(n: int) -> None:
        writer, reader, editor, lister = WriteFile(root), ReadFile(root), EditFile(root), ListDirectory(root)
        while not stop.is_set():
            for call in (
                lambda: writer.execute(WriteFileParams(path=f"real/new{n}.txt", content="x"), ctx),
                lambda: reader.execute(ReadFileParams(path="real/file.txt"), ctx),
                lambda: editor.execute(EditFileParams(path="real/file.txt", search="SECRET", replace="s"), ctx),
                lambda: lister.execute(ListDirectoryParams(path="real"), ctx),
            ):
                try:
                    out = call()
                except Exception:  # refused or raced: fine, as long as nothing leaked
                    continue
                if "SECRET" in out:
                    leaks.append(out)

    swapper = subprocess.Popen([sys.executable, "-c", _SWAPPER, str(root), str(outside)], stdout=subprocess.PIPE)
    assert swapper.stdout is not None and swapper.stdout.readline() == b"ready\n"
    threads = [threading.Thread(target=attack_with_gadgets, args=(n,)) for n in range(2)]
    try:
        for thread in threads:
            thread.start()
        time.sleep(_ATTACK_S)
    finally:
        stop.set()
        swapper.kill()
        swapper.wait()
        for thread in threads:
            thread.join()
    os.unlink(root / "link") if (root / "link").is_symlink() else os.unlink(root / "real")  # the swapper's link
    written_outside = sorted(p.name for p in outside.iterdir())
    assert written_outside == ["file.txt"], f"written outside the root: {written_outside}"
    assert (outside / "file.txt").read_text(encoding="utf-8") == "SECRET\n"
    assert leaks == [], f"{len(leaks)} reads returned what is outside the root"
