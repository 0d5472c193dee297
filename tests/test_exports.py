"""The package root offers what a user builds an agent from, including long runs."""

from __future__ import annotations

import llmist
import llmist.agent


def test_every_root_name_is_importable() -> None:
    assert [name for name in llmist.__all__ if not hasattr(llmist, name)] == []


def test_sessions_compaction_and_strict_mode_come_from_the_root() -> None:
    for name in ("SQLiteSession", "Session", "Compaction", "SlidingWindow", "Summarize", "RepairRefused"):
        assert getattr(llmist, name) is getattr(llmist.agent, name)
