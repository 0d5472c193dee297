"""GadgetOutputStore and GadgetOutputViewer."""

from __future__ import annotations

import re

import pytest

from llmist import GadgetOutputStore, GadgetOutputViewer, test_gadget
from llmist.gadgets import output_char_limit

TEXT = "\n".join(f"line {i}{' TODO HIGH' if i in (10, 50) else ''}" for i in range(1, 101))


@pytest.fixture
def viewer() -> tuple[GadgetOutputViewer, str]:
    store = GadgetOutputStore(char_limit=10_000)
    return GadgetOutputViewer(store), store.store("Search", TEXT)


def test_char_limit_is_share_of_context_window_in_chars() -> None:
    assert output_char_limit(200_000) == 120_000
    assert output_char_limit(100_000, 25) == 100_000


def test_notice_matches_spec_format() -> None:
    store = GadgetOutputStore(char_limit=10)
    notice = store.limit("Search", "x" * 31_337)
    assert re.fullmatch(
        r'\[Gadget "Search" returned too much data: 31,337 bytes, 1 lines\. '
        r'Use GadgetOutputViewer with id "Search_[0-9a-f]{8}" to read it\]',
        notice,
    )


def test_small_output_passes_through() -> None:
    assert GadgetOutputStore(char_limit=10).limit("Search", "short") == "short"


def test_include_pattern_with_context(viewer: tuple[GadgetOutputViewer, str]) -> None:
    g, output_id = viewer
    params = {"id": output_id, "patterns": [{"regex": "TODO.*HIGH", "before": 1, "after": 1}]}
    assert test_gadget(g, params).result == "line 9\nline 10 TODO HIGH\nline 11\nline 49\nline 50 TODO HIGH\nline 51"


def test_patterns_apply_in_order(viewer: tuple[GadgetOutputViewer, str]) -> None:
    g, output_id = viewer
    params = {"id": output_id, "patterns": [{"regex": "HIGH"}, {"regex": "50", "include": False}]}
    assert test_gadget(g, params).result == "line 10 TODO HIGH"


@pytest.mark.parametrize(
    ("limit", "expected"),
    [("3-", "line 1\nline 2\nline 3"), ("-2", "line 99\nline 100"), ("50-51", "line 50 TODO HIGH\nline 51")],
)
def test_limit_ranges(viewer: tuple[GadgetOutputViewer, str], limit: str, expected: str) -> None:
    g, output_id = viewer
    assert test_gadget(g, {"id": output_id, "limit": limit}).result == expected


def test_unknown_id_lists_stored_ids(viewer: tuple[GadgetOutputViewer, str]) -> None:
    g, output_id = viewer
    error = test_gadget(g, {"id": "nope"}).error
    assert error is not None and "No stored output with id 'nope'" in error and output_id in error


def test_bad_regex_is_a_clear_error(viewer: tuple[GadgetOutputViewer, str]) -> None:
    g, output_id = viewer
    error = test_gadget(g, {"id": output_id, "patterns": [{"regex": "("}]}).error
    assert error is not None and "Invalid regex '('" in error


def test_bad_limit_is_a_clear_error(viewer: tuple[GadgetOutputViewer, str]) -> None:
    g, output_id = viewer
    error = test_gadget(g, {"id": output_id, "limit": "abc"}).error
    assert error is not None and "Invalid limit 'abc'" in error
