"""What the sandbox refuses, and the messages the model reads."""

import tempfile
from pathlib import Path

from llmist.gadgets.builtins import EditFile, ReadFile, RunCommand
from llmist.testing import test_gadget

root = Path(tempfile.mkdtemp())
(root / "notes.txt").write_text("a\nb\na\n", encoding="utf-8")
(root / "escape").symlink_to("/etc")

reader = ReadFile(root=root)
assert "'..' is not allowed" in str(test_gadget(reader, {"path": "../secret"}).error)
assert "Absolute paths are not allowed" in str(test_gadget(reader, {"path": "/etc/passwd"}).error)
assert "through a symlink" in str(test_gadget(reader, {"path": "escape/passwd"}).error)

edit = test_gadget(EditFile(root=root), {"path": "notes.txt", "search": "a", "replace": "c"})
assert "occurs 2 times in notes.txt (at lines 1, 3)" in str(edit.error)

slow = test_gadget(RunCommand(root=root), {"command": "sleep 30", "timeout_s": 0.2})
assert "timed out after 0.2 s and was killed" in str(slow.error)
