"""``requires_approval``: whether a call needs a person's approval, and why."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from llmist import Gadget, create_gadget, gadget
from llmist.gadgets import approval_reason, may_need_approval
from llmist.gadgets.builtins import EditFile, ListDirectory, ReadFile, RunCommand, WriteFile


@gadget
def plain(x: int) -> int:
    """No approval."""
    return x


@gadget(requires_approval=True)
def always(x: int) -> int:
    """Every call."""
    return x


@gadget(requires_approval=lambda p: "outside the project" if p["path"].startswith("/") else False)
def touch(path: str) -> str:
    """Approval for absolute paths only."""
    return path


class Transfer(Gadget):
    """Approval above an amount."""

    description = "Send money."

    class Params(BaseModel):
        amount: int

    def requires_approval(self, parameters: dict[str, Any]) -> bool:
        return bool(parameters["amount"] > 100)

    def execute(self, params: Any) -> str:
        return "sent"


def test_a_gadget_needs_no_approval_unless_it_says_so() -> None:
    assert approval_reason(plain, {"x": 1}) is None and not may_need_approval(plain)


def test_requires_approval_true_asks_for_every_call() -> None:
    assert approval_reason(always, {"x": 1}) == "always needs a person's approval for each call"


def test_a_rule_over_the_parameters_decides_per_call_and_may_say_why() -> None:
    assert approval_reason(touch, {"path": "notes.txt"}) is None
    assert approval_reason(touch, {"path": "/etc/passwd"}) == "outside the project"
    assert may_need_approval(touch)


def test_a_class_states_its_rule_as_a_method() -> None:
    transfer = Transfer()
    assert approval_reason(transfer, {"amount": 5}) is None
    assert approval_reason(transfer, {"amount": 500}) == "Transfer needs a person's approval for this call"


def test_a_rule_that_raises_asks_for_approval() -> None:
    broken = create_gadget(
        name="broken", description="d", schema={"type": "object"}, execute=lambda p: "x",
        requires_approval=lambda p: p["missing"],
    )  # fmt: skip
    reason = approval_reason(broken, {})
    assert reason is not None and "approval rule failed (KeyError" in reason


def test_the_builtin_writes_and_commands_say_what_they_would_do(tmp_path: Any) -> None:
    assert approval_reason(WriteFile(tmp_path), {"path": "a.txt", "content": ""}) == "it writes 'a.txt'"
    assert approval_reason(EditFile(tmp_path), {"path": "a.txt"}) == "it changes 'a.txt'"
    command = approval_reason(RunCommand(tmp_path), {"command": "ls"})
    assert command is not None and command.startswith("it runs a shell command, with this process's environment")
    assert approval_reason(ReadFile(tmp_path), {"path": "a.txt"}) is None
    assert not may_need_approval(ListDirectory(tmp_path))
