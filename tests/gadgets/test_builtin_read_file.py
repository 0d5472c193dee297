"""``ReadFile`` reads a window of lines, never the whole of a large file, and says what it left out."""

from __future__ import annotations

from pathlib import Path

import pytest

from llmist import test_gadget
from llmist.gadgets.builtins import ReadFile


def _file(root: Path, lines: int, name: str = "big.txt") -> Path:
    path = root / name
    path.write_text("".join(f"line {i}\n" for i in range(1, lines + 1)), encoding="utf-8")
    return path


def test_a_small_file_is_returned_whole_with_no_notice(tmp_path: Path) -> None:
    _file(tmp_path, 3)
    assert test_gadget(ReadFile(tmp_path), {"path": "big.txt"}).result == "line 1\nline 2\nline 3\n"


def test_an_empty_file_reads_as_empty(tmp_path: Path) -> None:
    (tmp_path / "empty.txt").write_text("")
    assert test_gadget(ReadFile(tmp_path), {"path": "empty.txt"}).result == ""


def test_a_long_file_stops_at_the_default_limit_and_says_how_to_read_on(tmp_path: Path) -> None:
    _file(tmp_path, 5120)
    out = test_gadget(ReadFile(tmp_path), {"path": "big.txt"}, output_limit=None).result or ""
    assert out.startswith("line 1\n") and "line 2000\n" in out and "line 2001\n" not in out
    assert out.endswith("[lines 1-2000 of 5120 shown; call again with offset=2001 to read on]")


def test_offset_and_limit_choose_the_window(tmp_path: Path) -> None:
    _file(tmp_path, 100)
    out = test_gadget(ReadFile(tmp_path), {"path": "big.txt", "offset": 98, "limit": 5}).result
    assert out == "line 98\nline 99\nline 100\n[lines 98-100 of 100 shown]"


def test_an_offset_past_the_end_is_an_error_naming_the_length(tmp_path: Path) -> None:
    _file(tmp_path, 10)
    out = test_gadget(ReadFile(tmp_path), {"path": "big.txt", "offset": 11})
    assert out.error is not None and "has 10 lines; offset 11 is past its end" in out.error


@pytest.mark.parametrize("params", [{"offset": 0}, {"limit": 0}])
def test_offset_and_limit_start_at_one(tmp_path: Path, params: dict[str, int]) -> None:
    _file(tmp_path, 3)
    assert test_gadget(ReadFile(tmp_path), {"path": "big.txt", **params}).error is not None


def test_the_byte_budget_stops_the_window_and_says_so(tmp_path: Path) -> None:
    class SmallReader(ReadFile):
        max_bytes = 100

    _file(tmp_path, 50)
    out = test_gadget(SmallReader(tmp_path), {"path": "big.txt"}).result or ""
    assert "line 12\n" in out and "line 20\n" not in out
    assert "of 50 shown; the byte limit was reached; call again with offset=" in out


def test_a_very_long_line_is_cut_and_the_rest_still_counted(tmp_path: Path) -> None:
    (tmp_path / "min.js").write_text("x" * 1_000_000 + "\nsecond\n", encoding="utf-8")
    out = test_gadget(ReadFile(tmp_path), {"path": "min.js", "limit": 1}).result or ""
    assert out.startswith("x" * 2000 + "… [line cut: 998000 more characters]\n")
    assert len(out) < 3000
    assert out.endswith("[lines 1-1 of 2 shown; call again with offset=2 to read on]")


def test_a_file_that_is_not_utf8_is_refused(tmp_path: Path) -> None:
    (tmp_path / "bin.dat").write_bytes(b"\xff\xfe\x00")
    out = test_gadget(ReadFile(tmp_path), {"path": "bin.dat"})
    assert out.error is not None and "not UTF-8 text" in out.error
