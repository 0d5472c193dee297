"""The package root offers what a user builds an agent from, including long runs."""

from __future__ import annotations

import llmist
import llmist.agent


def test_every_root_name_is_importable() -> None:
    assert [name for name in llmist.__all__ if not hasattr(llmist, name)] == []


def test_sessions_compaction_and_strict_mode_come_from_the_root() -> None:
    for name in ("SQLiteSession", "Session", "Compaction", "SlidingWindow", "Summarize", "RepairRefused"):
        assert getattr(llmist, name) is getattr(llmist.agent, name)


def test_the_repair_event_imports_from_where_it_lived_and_where_it_lives() -> None:
    # It moved beside the other hook arguments (llmist.agent.hooks); the old path still works.
    import llmist.agent.hooks
    import llmist.agent.repairs

    assert llmist.agent.RepairEvent is llmist.agent.hooks.RepairEvent is llmist.agent.repairs.RepairEvent
    assert llmist.agent.RepairEvent("gadget_name", 1, "detail").type == "repair"
