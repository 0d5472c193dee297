"""The package root offers what a user builds an agent from, including long runs."""

from __future__ import annotations

import subprocess
import sys

import llmist
import llmist.agent
from llmist._install import install_command


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


def test_sqlalchemy_session_comes_from_the_root_as_sqlite_session_does() -> None:
    from llmist import SQLAlchemySession

    assert "SQLAlchemySession" in llmist.__all__
    assert SQLAlchemySession is llmist.agent.SQLAlchemySession


def test_import_llmist_does_not_import_sqlalchemy() -> None:
    # A fresh interpreter: this one has imported everything the other tests needed.
    code = "import sys, llmist; print(sorted(m for m in sys.modules if m.split('.')[0] == 'sqlalchemy'))"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert proc.stdout.strip() == "[]"


def test_without_sqlalchemy_the_root_names_the_extra_to_install() -> None:
    # sys.modules[name] = None makes an import of it fail as if it were not installed.
    code = (
        "import sys\nsys.modules['sqlalchemy'] = None\nimport llmist\n"
        "try:\n    llmist.SQLAlchemySession\nexcept ImportError as exc:\n    print(exc)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert install_command("postgres") in proc.stdout  # the exact command, from a checkout too
