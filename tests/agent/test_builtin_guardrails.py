"""The ready-made guardrails, checked on their own (the agent runs them in test_guardrails.py)."""

from __future__ import annotations

import os
import posixpath
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel

from llmist.agent.builtin_guardrails import (
    allow_paths,
    deny_parameters,
    max_answer_chars,
    max_prompt_chars,
    output_validates,
)
from llmist.agent.guardrails import (
    GuardedCall,
    GuardedInput,
    GuardedOutput,
    Guardrail,
    Refuse,
    Tripwire,
    Verdict,
    run_guardrail,
)


def _call(gadget: str, **parameters: Any) -> GuardedCall:
    return GuardedCall(gadget, parameters, "gadget_1")


def _verdict(guardrail: Guardrail, subject: Any) -> Verdict:
    verdict = guardrail.check(subject)
    assert not hasattr(verdict, "__await__")
    return verdict  # type: ignore[return-value]


# --- sizes ------------------------------------------------------------------------------------


def test_a_prompt_within_the_limit_passes_and_one_past_it_trips() -> None:
    guard = max_prompt_chars(10)
    assert _verdict(guard, GuardedInput("x" * 10, "x" * 10)) is None
    verdict = _verdict(guard, GuardedInput("x" * 11, "x" * 11))
    assert isinstance(verdict, Tripwire)
    assert verdict.reason == "the prompt has 11 characters; at most 10 are allowed"
    assert verdict.data == {"chars": 11, "limit": 10}


def test_an_answer_is_measured_as_text_typed_ones_as_json() -> None:
    guard = max_answer_chars(5)
    assert _verdict(guard, GuardedOutput({"a": 1}, '{"a":1}')) == Tripwire(
        "the answer has 7 characters; at most 5 are allowed", {"chars": 7, "limit": 5}
    )


@pytest.mark.parametrize("limit", [-1, 1.5, True, "10"])
def test_a_size_limit_is_a_whole_number(limit: Any) -> None:
    with pytest.raises(ValueError, match="whole number"):
        max_prompt_chars(limit)


# --- deny-list --------------------------------------------------------------------------------

RM_RF = r"\brm\s+-(?=\w*r)(?=\w*f)\w+"
"""``rm`` with both ``-r`` and ``-f``, in any order and company."""


@pytest.mark.parametrize(
    "command", ["rm -rf /", "cd x && rm  -fr .", "sudo rm -rvf ~", "ｒｍ -ｒｆ /", "rm\u00a0-rf /"]
)
def test_a_denied_command_is_refused_with_what_matched(command: str) -> None:
    verdict = _verdict(deny_parameters(RM_RF, gadgets=["RunCommand"]), _call("RunCommand", command=command))
    assert isinstance(verdict, Refuse)
    assert verdict.reason.startswith("its command matches the denied pattern")
    assert verdict.data["parameter"] == "command"


@pytest.mark.parametrize("command", ["ls -la", "rm file.txt", "echo 'farm -rf'"])
def test_other_commands_pass(command: str) -> None:
    assert _verdict(deny_parameters(RM_RF), _call("RunCommand", command=command)) is None


def test_nested_values_are_searched_and_named_by_where_they_sit() -> None:
    call = _call("Batch", steps=[{"run": "ok"}, {"run": "rm -rf /"}])
    verdict = _verdict(deny_parameters(RM_RF), call)
    assert isinstance(verdict, Refuse)
    assert verdict.data["parameter"] == "steps/1/run"


def test_numbers_and_booleans_are_searched_as_json_writes_them() -> None:
    guard = deny_parameters(r"^22$", r"^true$", gadgets=["Connect"], parameters=["port", "root"])
    assert isinstance(_verdict(guard, _call("Connect", port=22)), Refuse)
    assert isinstance(_verdict(guard, _call("Connect", port=2222, root=True)), Refuse)
    assert _verdict(guard, _call("Connect", port=2222, root=False)) is None


def test_only_the_named_parameters_are_searched() -> None:
    guard = deny_parameters(RM_RF, parameters=["command"])
    assert _verdict(guard, _call("RunCommand", command="ls", note="rm -rf later")) is None


def test_the_deny_list_can_trip_the_run_instead_of_refusing() -> None:
    verdict = _verdict(deny_parameters(RM_RF, refuse=False), _call("RunCommand", command="rm -rf /"))
    assert isinstance(verdict, Tripwire)


def test_the_deny_list_checks_only_its_gadgets() -> None:
    from llmist.gadgets.builtins import RunCommand

    guard = deny_parameters(RM_RF, gadgets=[RunCommand])
    assert guard.gadgets == frozenset({"RunCommand"})
    assert guard.applies_to("RunCommand") and not guard.applies_to("WriteFile")


def test_a_deny_list_needs_a_pattern() -> None:
    with pytest.raises(ValueError, match="at least one pattern"):
        deny_parameters()


# --- path allow-list --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "path", ["src", "src/a.py", "src/deep/b.py", "./src/x", "src/../src/y", "README.md", "docs/a.md"]
)
def test_allowed_paths_pass(path: str) -> None:
    guard = allow_paths("src/", "README.md", "docs/*.md")
    assert _verdict(guard, _call("WriteFile", path=path)) is None


@pytest.mark.parametrize(
    "path",
    [
        "secrets.txt",
        "src2/a.py",
        "srcx",
        "src/../secrets",
        "/etc/passwd",
        "../src/a.py",
        "~/.ssh/id_rsa",
        "",
        "  ",
        "C:/Windows",
        "docs/a.txt",
        "src\x00/a",
    ],
)
def test_other_paths_are_refused(path: str) -> None:
    verdict = _verdict(allow_paths("src/", "README.md", "docs/*.md"), _call("WriteFile", path=path))
    assert isinstance(verdict, Refuse)
    assert "is not among the allowed paths ('src/', 'README.md', 'docs/*.md')" in verdict.reason


def test_a_call_without_a_path_is_the_root() -> None:
    assert isinstance(_verdict(allow_paths("src/"), _call("ListDirectory")), Refuse)
    assert _verdict(allow_paths("src/", "."), _call("ListDirectory")) is None


def test_a_path_that_is_not_text_is_refused() -> None:
    assert isinstance(_verdict(allow_paths("src/"), _call("ReadFile", path=["src/a"])), Refuse)


def test_with_a_root_a_symlink_is_followed_to_where_it_leads(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "secrets").mkdir()
    os.symlink(tmp_path / "secrets", tmp_path / "src" / "link")
    guard = allow_paths("src/", root=tmp_path)
    verdict = _verdict(guard, _call("ReadFile", path="src/link/key"))
    assert isinstance(verdict, Refuse)
    assert "it leads to 'secrets/key'" in verdict.reason
    assert _verdict(guard, _call("ReadFile", path="src/own.txt")) is None


def test_a_pattern_must_be_a_relative_path() -> None:
    with pytest.raises(ValueError, match="not a path relative"):
        allow_paths("/etc/")


@given(st.lists(st.sampled_from(["src", "..", ".", "a", "b", "", "~", "/"]), min_size=1, max_size=8))
def test_no_path_outside_the_allowed_directory_is_ever_allowed(parts: list[str]) -> None:
    path = "/".join(parts)
    allowed = _verdict(allow_paths("src/"), _call("ReadFile", path=path)) is None
    norm = posixpath.normpath(path) if path.strip() else ""
    inside = not path.startswith(("/", "~")) and (norm == "src" or norm.startswith("src/"))
    assert allowed == inside


# --- typed output -----------------------------------------------------------------------------


class Invoice(BaseModel):
    number: str
    total: float


class PaidInvoice(Invoice):
    paid: bool


def test_a_text_answer_must_parse_as_the_type() -> None:
    guard = output_validates(Invoice)
    assert _verdict(guard, GuardedOutput('{"number": "A1", "total": 3}', "")) is None
    assert _verdict(guard, GuardedOutput('```json\n{"number": "A1", "total": 3}\n```', "")) is None
    verdict = _verdict(guard, GuardedOutput('{"number": "A1"}', ""))
    assert isinstance(verdict, Tripwire)
    assert verdict.reason == "the answer is not a valid Invoice: total: Field required"
    assert verdict.data[0]["type"] == "missing"


def test_a_typed_answer_is_checked_against_a_stricter_type() -> None:
    verdict = _verdict(output_validates(PaidInvoice), GuardedOutput(Invoice(number="A1", total=3), ""))
    assert isinstance(verdict, Tripwire)
    assert "paid: Field required" in verdict.reason


def test_any_type_pydantic_validates_will_do() -> None:
    assert _verdict(output_validates(list[int]), GuardedOutput("[1, 2]", "")) is None
    assert isinstance(_verdict(output_validates(list[int]), GuardedOutput("[1, 'x']", "")), Tripwire)


async def test_run_guardrail_records_the_check() -> None:
    record, verdict = await run_guardrail(
        deny_parameters(RM_RF), _call("RunCommand", command="rm -rf /"), gadget="RunCommand", invocation_id="g1"
    )
    assert isinstance(verdict, Refuse)
    assert (record.name, record.kind, record.outcome, record.gadget, record.invocation_id) == (
        "deny_parameters",
        "tool_call",
        "refuse",
        "RunCommand",
        "g1",
    )
    assert record.describe().startswith("guardrail 'deny_parameters' (tool_call RunCommand:g1) refused: its command")
